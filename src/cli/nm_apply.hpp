// apply through NetworkManager (--backend networkmanager, or auto when NM manages the node).
#pragma once

#include <ibsetup/profile.hpp>

#include <functional>
#include <string>

namespace ibsetup::cli {

struct NmApplyFlags {
  bool activate = true;
  bool adopt = false;
  bool dry_run = false;
  bool json = false;
  bool quiet = false;
  std::string adopt_dir = "/var/lib/ibsetup/adopted";
  unsigned rollback_timeout_s = 120;
};

int apply_with_networkmanager(const std::string& cluster, const profile::ResolvedNode& node,
                              const NmApplyFlags& flags, const std::function<bool()>& interrupted);

}  // namespace ibsetup::cli
