// The live NetworkManager backend: one connection profile per declared interface, stored and
// activated through NetworkManager's D-Bus API (libnm) inside a checkpoint.
#pragma once
#pragma GCC visibility push(default)  // the public API: export.hpp says why

#include <ibsetup/apply.hpp>
#include <ibsetup/plan.hpp>
#include <ibsetup/profile.hpp>

#include <functional>
#include <string>
#include <vector>

namespace ibsetup::nm {

// Whether NetworkManager should carry out this node's changes (backend "auto"): its D-Bus
// service is running and it manages every declared base interface that exists. why says
// which way it went and the reason, for the user.
struct BackendChoice {
  bool use_networkmanager = false;
  std::string why;
};
BackendChoice choose_backend(const profile::ResolvedNode& node);

struct Options {
  bool activate = true;  // false: store the profiles only (--no-activate)
  bool adopt = false;    // delete other profiles that claim a declared interface
  bool dry_run = false;  // compute and report; change nothing
  // Where adopted profiles are saved (as keyfiles) before they are deleted.
  std::string adopt_dir = "/var/lib/ibsetup/adopted";
  // NetworkManager rolls the checkpoint back by itself after this many seconds if ibsetup
  // dies before destroying it.
  unsigned rollback_timeout_s = 120;
  unsigned activation_timeout_s = 30;
  std::function<bool()> interrupted = [] { return false; };
  std::function<void(const std::string&)> progress;
  // After activation, inside the checkpoint: re-reads the host and plans again (the netlink
  // backend's verification, apply::verify_host). A plan that keeps actions rolls back through
  // the checkpoint. Empty: no check against the host (--no-activate changes no device).
  std::function<plan::Plan()> replan;
  int verify_tries = 10;
  int verify_interval_ms = 100;
};

// Both backends report through apply::Report (backend networkmanager).
using Foreign = apply::Foreign;
using Report = apply::Report;

// Brings NetworkManager's profiles for node to what the profile says. Profiles are found by
// their stable UUID (render::connection_uuid(cluster, host, ifname)) and updated in place;
// profiles that already match are left alone. Everything runs inside a checkpoint over the
// affected devices: on any failure (NM refuses a setting, activation fails or times out, the
// stored profile differs from the one sent, the host does not match the profile after
// activation (options.replan), interruption) ibsetup rolls back to it and restores
// every profile it added, changed or deleted. Throws EnvironmentError when NetworkManager
// cannot be reached; every later failure is in the report.
Report apply_node(const profile::ResolvedNode& node, const std::string& cluster,
                  const Options& options);

}  // namespace ibsetup::nm
#pragma GCC visibility pop
