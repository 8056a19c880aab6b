// MPI readiness (check group mpi): what an MPI job over verbs needs from the node before
// MPI_Init, judged locally and fast. mpi.memlock, mpi.devices, mpi.modules, mpi.reg_mr.
#pragma once

#include <ibsetup/check.hpp>
#include <ibsetup/profile.hpp>

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ibsetup::check::mpi {

// RLIMIT_MEMLOCK (soft) of this process; error is the errno of getrlimit. root: the process
// runs as euid 0, whose limit says nothing of the jobs' (pam_limits' '*' skips root, a
// systemd service has its unit's LimitMEMLOCK).
struct Memlock {
  int error = 0;
  bool unlimited = false;
  uint64_t bytes = 0;
  bool root = false;
};

// A device file as stat(2) sees it; error is its errno (the rest is then unset).
struct FileInfo {
  int error = 0;
  bool is_char = false;
  mode_t mode = 0;  // permission bits
  gid_t gid = 0;
  std::string group;  // the group's name, or its number when it has none
};

// What registering memory did (os::RegisterOutcome, repeated so that this header stays free of
// src/os/).
struct Registered {
  int error = 0;
  std::string step;
};

// The host access of the checks; each empty member uses the real one. Tests give their own.
struct Seams {
  std::function<Memlock()> memlock;
  std::function<FileInfo(const std::string& path)> stat;
  std::function<Registered(const std::string& device, uint64_t bytes)> register_memory;
};

struct Options {
  std::string sysfs_root = "/sys";
  std::string dev_dir = "/dev/infiniband";
  // live: sysfs_root and dev_dir are this machine's, and this process is the one to judge.
  // A captured tree is not live (only mpi.modules is judged, when it holds module/); a saved
  // inventory is neither live nor a tree (every mpi check is skipped).
  bool live = true;
  bool saved = false;
  std::optional<uint64_t> memlock_min_kib;  // nullopt: unlimited required
  int register_mib = 64;
  bool reg_mr = true;  // false: mpi.reg_mr is disabled, so no memory is registered at all
};

// The four checks for node, in the order of check_ids(). A node that declares no HCA (hcas[] or
// an interface's device) gets one skip per id. Never throws for what it finds on the host.
std::vector<Result> check_mpi(const profile::ResolvedNode& node, const Options& options,
                              const Seams& seams = {});

// A declared HCA: its device name, or the PCI address it was declared by when no RDMA device
// is there (name then empty).
struct Hca {
  std::string name;
  std::string pci;
};

// Parts of check_mpi, for its tests.
Result memlock_result(const Memlock& limit, std::optional<uint64_t> min_kib);
// module: the kernel module that makes the device file (named when it is missing).
Result device_file_result(const std::string& subject, const std::string& path, const FileInfo& info,
                          const std::string& module);
std::vector<Result> module_results(const profile::ResolvedNode& node, const Options& options);
std::vector<Result> device_results(const std::vector<Hca>& hcas, const Options& options,
                                   const Seams& seams);
Result reg_mr_result(const std::string& hca, uint64_t mib, const Registered& outcome,
                     const Memlock& limit);

// "64 KiB", "8 MiB", "unlimited": a memlock limit for people.
std::string limit_text(const Memlock& limit);

}  // namespace ibsetup::check::mpi
