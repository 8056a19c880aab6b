// rdma.device: each declared HCA port opens and queries through libibverbs, as an MPI rank
// would do first.
#include "os/sysfs.hpp"
#include "probe/rdma_checks.hpp"

#include <ibsetup/inventory.hpp>

#include <infiniband/verbs.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace ibsetup::check::rdma {

namespace {

namespace fs = std::filesystem;

const char* link_layer_name(uint8_t link_layer)
{
  switch (link_layer) {
  case IBV_LINK_LAYER_INFINIBAND:
    return "InfiniBand";
  case IBV_LINK_LAYER_ETHERNET:
    return "Ethernet";
  default:
    return "unknown";
  }
}

// As sysfs and ibstat spell them (ibv_port_state_str's wording differs between versions).
const char* state_name(ibv_port_state state)
{
  switch (state) {
  case IBV_PORT_DOWN:
    return "DOWN";
  case IBV_PORT_INIT:
    return "INIT";
  case IBV_PORT_ARMED:
    return "ARMED";
  case IBV_PORT_ACTIVE:
    return "ACTIVE";
  case IBV_PORT_ACTIVE_DEFER:
    return "ACTIVE_DEFER";
  default:
    return "NOP";
  }
}

// The RDMA device at a PCI address: the name under the PCI device's infiniband/ directory,
// read through the rooted reader (a link out of a captured tree is not followed).
std::string device_at(const std::string& sysfs_root, const std::string& pci)
{
  const inventory::SysfsReader sysfs(sysfs_root, inventory::is_live_root(sysfs_root));
  const auto names = sysfs.list("bus/pci/devices/" + pci + "/infiniband");
  return names.empty() ? std::string() : names.front();
}

std::string subject_of(const std::string& device, int port)
{
  return port > 0 ? device + "/" + std::to_string(port) : device;
}

class DeviceList {
public:
  DeviceList() : m_list(ibv_get_device_list(&m_count)), m_errno(errno) {}
  ~DeviceList()
  {
    if (m_list != nullptr) {
      ibv_free_device_list(m_list);
    }
  }
  DeviceList(const DeviceList&) = delete;
  DeviceList& operator=(const DeviceList&) = delete;

  bool ok() const { return m_list != nullptr; }
  int error() const { return m_errno; }
  ibv_device* find(const std::string& name) const
  {
    for (int i = 0; m_list != nullptr && i < m_count; ++i) {
      if (name == ibv_get_device_name(m_list[i])) {
        return m_list[i];
      }
    }
    return nullptr;
  }
  std::string names() const
  {
    std::string out;
    for (int i = 0; m_list != nullptr && i < m_count; ++i) {
      out += (out.empty() ? "" : ", ") + std::string(ibv_get_device_name(m_list[i]));
    }
    return out.empty() ? "none" : out;
  }

private:
  int m_count = 0;
  ibv_device** m_list;
  int m_errno;
};

Result query(ibv_context* ctx, const std::string& device, int port)
{
  Result r;
  r.id = "rdma.device";
  r.subject = subject_of(device, port);
  r.expected = "opens; port queries";
  ibv_port_attr attr{};
  int rc = ibv_query_port(ctx, static_cast<uint8_t>(port), &attr);
  if (rc < 0) {
    rc = errno;
  }
  if (rc != 0) {
    r.status = Status::fail;
    r.observed = std::string("ibv_query_port: ") + std::strerror(rc);
    r.message = r.subject + ": opens, but ibv_query_port failed: " + std::strerror(rc);
    return r;
  }
  const std::string state = state_name(attr.state);
  r.observed = "port " + state + ", link layer " + link_layer_name(attr.link_layer);
  if (attr.state != IBV_PORT_ACTIVE) {
    r.status = Status::warn;
    r.message = r.subject + ": opens, but the port is " + state + ": no RDMA traffic can pass";
  } else {
    r.message = r.subject + ": opens; port " + state;
  }
  return r;
}

}  // namespace

std::vector<Result> device_checks(const profile::ResolvedNode& node, const RdmaOptions& options)
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
  std::error_code ec;
  if (!fs::exists(options.dev_dir, ec)) {
    for (const auto& p : ports) {
      result(subject_of(p.device.empty() ? p.pci : p.device, p.port), Status::skip,
             "no " + options.dev_dir,
             "no " + options.dev_dir + " on this host (ib_uverbs not loaded?): not checked");
    }
    return out;
  }
  const DeviceList list;
  for (const auto& p : ports) {
    std::string name = p.device;
    if (name.empty()) {
      name = device_at(options.sysfs_root, p.pci);
      if (name.empty()) {
        result(subject_of(p.pci, p.port), Status::fail, "no RDMA device",
               "no RDMA device at this PCI address");
        continue;
      }
    }
    const std::string subject = subject_of(name, p.port);
    if (!list.ok()) {
      result(subject, Status::fail,
             std::string("ibv_get_device_list: ") + std::strerror(list.error()),
             std::string("cannot list RDMA devices: ") + std::strerror(list.error()));
      continue;
    }
    ibv_device* dev = list.find(name);
    if (dev == nullptr) {
      result(subject, Status::fail, "no such device (have: " + list.names() + ")",
             "no such RDMA device (this host has: " + list.names() + ")");
      continue;
    }
    ibv_context* ctx = ibv_open_device(dev);
    if (ctx == nullptr) {
      const int e = errno;
      result(subject, Status::fail, std::string("ibv_open_device: ") + std::strerror(e),
             std::string("cannot open: ") + std::strerror(e));
      continue;
    }
    if (p.port > 0) {
      out.push_back(query(ctx, name, p.port));
    } else {
      ibv_device_attr attr{};
      if (const int rc = ibv_query_device(ctx, &attr); rc != 0) {
        result(subject, Status::fail, std::string("ibv_query_device: ") + std::strerror(rc),
               std::string("opens, but ibv_query_device failed: ") + std::strerror(rc));
      }
      for (int port = 1; port <= attr.phys_port_cnt; ++port) {
        out.push_back(query(ctx, name, port));
      }
    }
    ibv_close_device(ctx);
  }
  return out;
}

}  // namespace ibsetup::check::rdma
