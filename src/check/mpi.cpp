// The mpi group: the memlock limit, the kernel modules, memory registration, and the order of
// the four checks. The device files are in mpi_devices.cpp.
#include "check/mpi.hpp"

#include "os/rdma_dl.hpp"
#include "os/sysfs.hpp"
#include "os/verbs_device.hpp"
#include "os/verbs_register.hpp"
#include "probe/rdma_logic.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iterator>

namespace ibsetup::check::mpi {

namespace {

constexpr const char* k_ids[] = {"mpi.memlock", "mpi.devices", "mpi.modules", "mpi.reg_mr"};

Memlock real_memlock()
{
  Memlock out;
  out.root = geteuid() == 0;
  rlimit limit{};
  if (getrlimit(RLIMIT_MEMLOCK, &limit) != 0) {
    out.error = errno;
    return out;
  }
  out.unlimited = limit.rlim_cur == RLIM_INFINITY;
  out.bytes = out.unlimited ? 0 : static_cast<uint64_t>(limit.rlim_cur);
  return out;
}

Registered real_register(const std::string& device, uint64_t bytes)
{
  const os::RegisterOutcome o = os::register_memory(device, static_cast<size_t>(bytes));
  return {o.error, o.step};
}

Result make(const char* id, const std::string& subject, Status status, std::string expected,
            std::string observed, const std::string& message)
{
  Result r;
  r.id = id;
  r.subject = subject;
  r.status = status;
  r.expected = std::move(expected);
  r.observed = std::move(observed);
  r.message = subject + ": " + message;
  return r;
}

void append(std::vector<Result>& to, std::vector<Result> from)
{
  to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

// The declared HCAs by device name, each once; an HCA given by PCI address is looked up in
// sysfs (empty name with no RDMA device there).
std::vector<Hca> declared_hcas(const profile::ResolvedNode& node, const std::string& sysfs_root)
{
  std::vector<Hca> out;
  const inventory::SysfsReader sysfs(sysfs_root, inventory::is_live_root(sysfs_root));
  for (const auto& p : rdma::declared_ports(node)) {
    Hca hca{p.device, p.pci};
    if (hca.name.empty()) {
      hca.name = os::device_at_pci(sysfs, p.pci);
    }
    bool seen = false;
    for (const auto& h : out) {
      seen = seen || (hca.name.empty() ? h.pci == hca.pci : h.name == hca.name);
    }
    if (!seen) {
      out.push_back(hca);
    }
  }
  return out;
}

}  // namespace

std::string limit_text(const Memlock& limit)
{
  if (limit.unlimited) {
    return "unlimited";
  }
  const uint64_t kib = limit.bytes / 1024;
  if (kib >= 1024 && kib % 1024 == 0) {
    return std::to_string(kib / 1024) + " MiB";
  }
  return kib * 1024 == limit.bytes ? std::to_string(kib) + " KiB"
                                   : std::to_string(limit.bytes) + " bytes";
}

Result memlock_result(const Memlock& limit, std::optional<uint64_t> min_kib)
{
  const std::string expected =
      min_kib ? "unlimited or at least " + limit_text({0, false, *min_kib * 1024}) : "unlimited";
  if (limit.error != 0) {
    return make("mpi.memlock", "memlock", Status::fail, expected,
                std::string("getrlimit: ") + std::strerror(limit.error),
                std::string("cannot read RLIMIT_MEMLOCK: ") + std::strerror(limit.error));
  }
  const std::string have = limit_text(limit);
  if (limit.unlimited) {
    // No value: metrics read an absent value as unlimited (README, "MPI readiness").
    return make("mpi.memlock", "memlock", Status::pass, expected, have, "RLIMIT_MEMLOCK unlimited");
  }
  const bool ok = min_kib && limit.bytes >= *min_kib * 1024;
  std::string message;
  if (ok) {
    message = "RLIMIT_MEMLOCK " + have + " (profile minimum " +
              limit_text({0, false, *min_kib * 1024}) + ")";
  } else if (limit.root) {
    // As root (a systemd timer, Ansible's become) the limit is this process's own: the
    // limits.d advice would not change it, and a job may well have another.
    message = "RLIMIT_MEMLOCK " + have + ", expected " + expected +
              ": this check runs as root, and the limit of a root process started outside "
              "slurmd is not the jobs' (pam_limits' '*' never applies to root; a systemd "
              "service has its unit's LimitMEMLOCK): run the check from slurmd "
              "(HealthCheckProgram), or set LimitMEMLOCK=infinity in the unit that starts it, "
              "or disable mpi.memlock here";
  } else {
    message = "RLIMIT_MEMLOCK " + have + ", expected " + expected +
              ": MPI cannot pin its buffers; a job inherits the limit of slurmd (set "
              "LimitMEMLOCK=infinity in its systemd unit, and "
              "PropagateResourceLimitsExcept=MEMLOCK in slurm.conf so the login shell's "
              "limit is not carried over) or of PAM logins ('* - memlock unlimited' in "
              "/etc/security/limits.d/*.conf)";
  }
  Result r =
      make("mpi.memlock", "memlock", ok ? Status::pass : Status::fail, expected, have, message);
  r.value = static_cast<double>(limit.bytes) / 1024;
  r.unit = "KiB";
  return r;
}

std::vector<Result> module_results(const profile::ResolvedNode& node, const Options& options)
{
  struct Module {
    const char* name;
    const char* for_what;
  };
  std::vector<Module> wanted = {
      {"ib_uverbs", "verbs from user space (/dev/infiniband/uverbsN)"},
      {"rdma_ucm", "the RDMA connection manager from user space (/dev/infiniband/rdma_cm)"},
      {"ib_umad", "management datagrams from user space (/dev/infiniband/umadN)"}};
  if (!node.interfaces.empty()) {
    wanted.push_back({"ib_ipoib", "the IPoIB interfaces this node declares"});
  }
  const inventory::SysfsReader sysfs(options.sysfs_root, options.live);
  std::vector<Result> out;
  for (const auto& m : wanted) {
    // Built-in modules have a /sys/module directory too.
    const bool loaded = sysfs.is_dir(std::string("module/") + m.name);
    out.push_back(make("mpi.modules", m.name, loaded ? Status::pass : Status::fail, "loaded",
                       loaded ? "loaded" : "not loaded",
                       loaded ? std::string("loaded")
                              : std::string("not loaded (no ") + options.sysfs_root + "/module/" +
                                    m.name + "); it provides " + m.for_what + ": modprobe " +
                                    m.name + ", and list it in /etc/rdma/modules/ or " +
                                    "/etc/modules-load.d/ for boot"));
  }
  return out;
}

Result reg_mr_result(const std::string& hca, uint64_t mib, const Registered& outcome,
                     const Memlock& limit)
{
  const std::string size = std::to_string(mib) + " MiB";
  const std::string expected = "registers " + size;
  if (outcome.error == 0) {
    return make("mpi.reg_mr", hca, Status::pass, expected, "registered",
                "registered " + size + " (ibv_reg_mr)");
  }
  // ENOSYS: libibverbs could not be loaded, and its message says why.
  const std::string err = os::verbs_error_text(outcome.error);
  std::string cause;
  if (outcome.step == "ibv_reg_mr") {
    const bool below = limit.error == 0 && !limit.unlimited && limit.bytes < mib * 1024 * 1024;
    if (below && (outcome.error == ENOMEM || outcome.error == EPERM || outcome.error == EAGAIN)) {
      cause = "likely the memlock limit: RLIMIT_MEMLOCK is " + limit_text(limit) + ", below " +
              size + " (see mpi.memlock)";
    } else {
      cause = "not the memlock limit (RLIMIT_MEMLOCK " +
              (limit.error != 0 ? std::string("unknown") : limit_text(limit)) +
              "): likely the IOMMU (look for DMA faults in dmesg) or too little free memory";
    }
  } else if (outcome.error == ENOSYS && outcome.step != "malloc") {
    cause = "libibverbs is not usable on this host";
  } else if (outcome.step == "ibv_open_device" && outcome.error == ENODEV) {
    cause = "libibverbs does not list this device (no provider library, or no such HCA)";
  } else if (outcome.step == "ibv_open_device") {
    // libibverbs reports a device file it may not open as ENOENT or EACCES, by version.
    cause = "this user cannot open the device (see mpi.devices)";
  } else if (outcome.step == "malloc") {
    cause = "this process could not allocate the buffer";
  } else {
    cause = "the device refused before any memory was registered";
  }
  return make("mpi.reg_mr", hca, Status::fail, expected, outcome.step + ": " + err,
              outcome.step + " failed: " + err + " (registering " + size + "); " + cause);
}

std::vector<Result> check_mpi(const profile::ResolvedNode& node, const Options& options,
                              const Seams& seams)
{
  std::vector<Result> out;
  const auto skip = [&](const char* id, const std::string& subject, const std::string& why) {
    out.push_back(make(id, subject, Status::skip, "", "", why));
  };
  const auto hcas = declared_hcas(node, options.sysfs_root);
  if (hcas.empty() || options.saved) {
    for (const char* id : k_ids) {
      skip(id, node.host,
           hcas.empty() ? "no HCA declared for this node: no MPI over verbs to check"
                        : "judged only on the host itself, not from a saved inventory");
    }
    return out;
  }
  const inventory::SysfsReader sysfs(options.sysfs_root, options.live);
  if (!options.live) {
    // A captured tree: this process and this machine's /dev say nothing about it.
    const char* why = "judged only on this machine, not for a captured tree";
    skip("mpi.memlock", "memlock", why);
    skip("mpi.devices", node.host, why);
    if (sysfs.is_dir("module")) {
      append(out, module_results(node, options));
    } else {
      skip("mpi.modules", node.host, "the captured tree has no module/ directory");
    }
    skip("mpi.reg_mr", node.host, why);
    return out;
  }
  const Memlock limit = seams.memlock ? seams.memlock() : real_memlock();
  out.push_back(memlock_result(limit, options.memlock_min_kib));
  append(out, device_results(hcas, options, seams));
  append(out, module_results(node, options));
  if (!options.reg_mr) {
    skip("mpi.reg_mr", node.host, "disabled");
    return out;
  }
  // Without device files no registration can be tried; mpi.devices already failed.
  if (!os::device_dir_present(options.dev_dir)) {
    skip("mpi.reg_mr", node.host, "no " + options.dev_dir + " (see mpi.devices): not checked");
    return out;
  }
  const auto reg = seams.register_memory ? seams.register_memory : real_register;
  const auto mib = static_cast<uint64_t>(options.register_mib);
  for (const auto& h : hcas) {
    if (h.name.empty()) {
      out.push_back(make("mpi.reg_mr", h.pci, Status::fail,
                         "registers " + std::to_string(mib) + " MiB", "no RDMA device",
                         "no RDMA device at this PCI address"));
      continue;
    }
    out.push_back(reg_mr_result(h.name, mib, reg(h.name, mib * 1024 * 1024), limit));
  }
  return out;
}

}  // namespace ibsetup::check::mpi
