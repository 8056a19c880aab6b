// rdma.device: each declared HCA port opens and queries through libibverbs, as an MPI rank
// would do first. Device access is the os/verbs_device.hpp seam.
#include "os/rdma_dl.hpp"
#include "os/sysfs.hpp"
#include "os/verbs_device.hpp"
#include "probe/rdma_checks.hpp"

#include <algorithm>
#include <cstring>

namespace ibsetup::check::rdma {

namespace {

std::string subject_of(const std::string& device, int port)
{
  return port > 0 ? device + "/" + std::to_string(port) : device;
}

std::string names_of(const os::VerbsDeviceList& list)
{
  std::string out;
  for (const auto& name : list.names) {
    out += (out.empty() ? "" : ", ") + name;
  }
  return out.empty() ? "none" : out;
}

Result query(os::VerbsDevices& devices, const std::string& device, int port)
{
  Result r;
  r.id = "rdma.device";
  r.subject = subject_of(device, port);
  r.expected = "opens; port queries";
  const os::VerbsPort attr = devices.query_port(device, port);
  if (attr.error != 0) {
    r.status = Status::fail;
    r.observed = std::string("ibv_query_port: ") + std::strerror(attr.error);
    r.message = r.subject + ": opens, but ibv_query_port failed: " + std::strerror(attr.error);
    return r;
  }
  const std::string state = inventory::to_string(attr.state);
  r.observed = "port " + state + ", link layer " + inventory::to_string(attr.link_layer);
  if (attr.state != os::VerbsPortState::active) {
    r.status = Status::warn;
    r.message = r.subject + ": opens, but the port is " + state + ": no RDMA traffic can pass";
  } else {
    r.message = r.subject + ": opens; port " + state;
  }
  return r;
}

}  // namespace

std::vector<Result> device_checks(const profile::ResolvedNode& node, const RdmaOptions& options,
                                  os::VerbsDevices& devices)
{
  std::vector<Result> out;
  const auto ports = declared_ports(node);
  auto result = [&](const std::string& subject, Status status, const std::string& observed,
                    const std::string& message) {
    Result r;
    r.id = "rdma.device";
    r.subject = subject;
    r.status = status;
    r.expected = "opens; port queries";
    r.observed = observed;
    r.message = subject + ": " + message;
    out.push_back(r);
  };
  if (ports.empty()) {
    result(node.host, Status::skip, "no HCA declared", "no HCA port declared for this node");
    return out;
  }
  if (!os::device_dir_present(options.dev_dir)) {
    for (const auto& p : ports) {
      result(subject_of(p.device.empty() ? p.pci : p.device, p.port), Status::skip,
             "no " + options.dev_dir,
             "no " + options.dev_dir + " on this host (ib_uverbs not loaded?): not checked");
    }
    return out;
  }
  const inventory::SysfsReader sysfs(options.sysfs_root);
  const os::VerbsDeviceList& list = devices.list();
  for (const auto& p : ports) {
    std::string name = p.device;
    if (name.empty()) {
      name = os::device_at_pci(sysfs, p.pci);
      if (name.empty()) {
        result(subject_of(p.pci, p.port), Status::fail, "no RDMA device",
               "no RDMA device at this PCI address");
        continue;
      }
    }
    const std::string subject = subject_of(name, p.port);
    if (list.error != 0) {
      result(subject, Status::fail, "ibv_get_device_list: " + os::verbs_error_text(list.error),
             "cannot list RDMA devices: " + os::verbs_error_text(list.error));
      continue;
    }
    if (std::find(list.names.begin(), list.names.end(), name) == list.names.end()) {
      result(subject, Status::fail, "no such device (have: " + names_of(list) + ")",
             "no such RDMA device (this host has: " + names_of(list) + ")");
      continue;
    }
    if (const int e = devices.open(name); e != 0) {
      result(subject, Status::fail, "ibv_open_device: " + os::verbs_error_text(e),
             "cannot open: " + os::verbs_error_text(e));
      continue;
    }
    if (p.port > 0) {
      out.push_back(query(devices, name, p.port));
    } else {
      const os::VerbsPortCount count = devices.port_count(name);
      if (count.error != 0) {
        result(subject, Status::fail,
               std::string("ibv_query_device: ") + std::strerror(count.error),
               std::string("opens, but ibv_query_device failed: ") + std::strerror(count.error));
      }
      for (int port = 1; port <= count.count; ++port) {
        out.push_back(query(devices, name, port));
      }
    }
  }
  return out;
}

std::vector<Result> device_checks(const profile::ResolvedNode& node, const RdmaOptions& options)
{
  const auto devices = os::make_verbs_devices();
  return device_checks(node, options, *devices);
}

}  // namespace ibsetup::check::rdma
