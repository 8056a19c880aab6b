// mpi.devices: the device files an MPI rank opens as the job's user, /dev/infiniband/uverbsN of
// each declared HCA and /dev/infiniband/rdma_cm. Usable means a character device that others
// may read and write (rdma-core's udev rules make them 0666), or that a named group other than
// root may (sites that fence RDMA to a group such as rdma): the group is named in the result.
#include "check/mpi.hpp"

#include "os/sysfs.hpp"

#include <grp.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace ibsetup::check::mpi {

namespace {

const char* const k_expected = "a character device, read/write for others or a named group";

FileInfo real_stat(const std::string& path)
{
  FileInfo out;
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    out.error = errno;
    return out;
  }
  out.is_char = S_ISCHR(st.st_mode);
  out.mode = st.st_mode & 07777;
  out.gid = st.st_gid;
  group g{};
  group* found = nullptr;
  std::vector<char> buffer(16384);
  if (getgrgid_r(st.st_gid, &g, buffer.data(), buffer.size(), &found) == 0 && found != nullptr) {
    out.group = found->gr_name;
  } else {
    out.group = std::to_string(st.st_gid);
  }
  return out;
}

std::string octal(mode_t mode)
{
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// The uverbs device of an HCA: class/infiniband_verbs/uverbsN/ibdev names its HCA. A device
// with a PCI parent also lists it under device/infiniband_verbs/ (older kernels' only way).
std::string uverbs_of(const inventory::SysfsReader& sysfs, const std::string& hca)
{
  for (const auto& entry : sysfs.list("class/infiniband_verbs")) {
    if (entry.rfind("uverbs", 0) == 0 &&
        sysfs.read("class/infiniband_verbs/" + entry + "/ibdev") == hca) {
      return entry;
    }
  }
  for (const auto& entry : sysfs.list("class/infiniband/" + hca + "/device/infiniband_verbs")) {
    if (entry.rfind("uverbs", 0) == 0) {
      return entry;
    }
  }
  return {};
}

// The failed mpi.devices result of an HCA without a device file to judge.
Result no_device(const std::string& subject, const std::string& observed,
                 const std::string& message)
{
  Result r;
  r.id = "mpi.devices";
  r.subject = subject;
  r.status = Status::fail;
  r.expected = k_expected;
  r.observed = observed;
  r.message = message;
  return r;
}

}  // namespace

Result device_file_result(const std::string& subject, const std::string& path, const FileInfo& info,
                          const std::string& module)
{
  Result r;
  r.id = "mpi.devices";
  r.subject = subject;
  r.expected = k_expected;
  const auto verdict = [&](Status status, std::string observed, const std::string& message) {
    r.status = status;
    r.observed = std::move(observed);
    r.message = subject + ": " + path + " " + message;
    return r;
  };
  if (info.error == ENOENT) {
    return verdict(Status::fail, "missing",
                   "missing (is " + module + " loaded? does udev create the node?)");
  }
  if (info.error != 0) {
    return verdict(Status::fail, std::string("stat: ") + std::strerror(info.error),
                   std::string("cannot be examined: ") + std::strerror(info.error));
  }
  if (!info.is_char) {
    return verdict(Status::fail, "not a character device",
                   "is not a character device: no RDMA device can be opened through it");
  }
  const std::string observed = "mode " + octal(info.mode) + ", group " + info.group;
  if ((info.mode & 0006) == 0006) {
    return verdict(Status::pass, observed, "usable by every user (" + observed + ")");
  }
  if ((info.mode & 0060) == 0060 && info.gid != 0) {
    return verdict(Status::pass, observed,
                   "usable by members of group " + info.group + " only (" + observed + ")");
  }
  return verdict(Status::fail, observed,
                 "is not usable by unprivileged users (" + observed +
                     "): expected mode 0666 (rdma-core's udev rules) or read/write for a "
                     "group such as rdma");
}

std::vector<Result> device_results(const std::vector<Hca>& hcas, const Options& options,
                                   const Seams& seams)
{
  const auto stat_of = seams.stat ? seams.stat : real_stat;
  const inventory::SysfsReader sysfs(options.sysfs_root, options.live);
  std::vector<Result> out;
  for (const auto& hca : hcas) {
    if (hca.name.empty()) {
      out.push_back(
          no_device(hca.pci, "no RDMA device",
                    hca.pci + ": no RDMA device at this PCI address, so no uverbs device"));
      continue;
    }
    const std::string uverbs = uverbs_of(sysfs, hca.name);
    if (uverbs.empty()) {
      out.push_back(
          no_device(hca.name, "no uverbs device",
                    hca.name + ": no uverbs device in " + options.sysfs_root +
                        "/class/infiniband_verbs (is ib_uverbs loaded? is the HCA present?)"));
      continue;
    }
    const std::string path = options.dev_dir + "/" + uverbs;
    out.push_back(device_file_result(hca.name, path, stat_of(path), "ib_uverbs"));
  }
  const std::string cm = options.dev_dir + "/rdma_cm";
  out.push_back(device_file_result("rdma_cm", cm, stat_of(cm), "rdma_ucm"));
  return out;
}

}  // namespace ibsetup::check::mpi
