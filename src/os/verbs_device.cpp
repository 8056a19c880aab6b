#include "os/verbs_device.hpp"

#include "os/sysfs.hpp"

#include <infiniband/verbs.h>
#include <sys/stat.h>

#include <cerrno>
#include <map>

namespace ibsetup::os {

namespace {

int mtu_bytes(ibv_mtu mtu)
{
  switch (mtu) {
  case IBV_MTU_256:
    return 256;
  case IBV_MTU_512:
    return 512;
  case IBV_MTU_1024:
    return 1024;
  case IBV_MTU_2048:
    return 2048;
  case IBV_MTU_4096:
    return 4096;
  default:
    return 0;
  }
}

VerbsPortState state_of(ibv_port_state state)
{
  switch (state) {
  case IBV_PORT_DOWN:
    return VerbsPortState::down;
  case IBV_PORT_INIT:
    return VerbsPortState::init;
  case IBV_PORT_ARMED:
    return VerbsPortState::armed;
  case IBV_PORT_ACTIVE:
    return VerbsPortState::active;
  case IBV_PORT_ACTIVE_DEFER:
    return VerbsPortState::active_defer;
  default:
    return VerbsPortState::nop;
  }
}

VerbsLinkLayer link_layer_of(uint8_t link_layer)
{
  switch (link_layer) {
  case IBV_LINK_LAYER_INFINIBAND:
    return VerbsLinkLayer::infiniband;
  case IBV_LINK_LAYER_ETHERNET:
    return VerbsLinkLayer::ethernet;
  default:
    return VerbsLinkLayer::unknown;
  }
}

class Devices : public VerbsDevices {
public:
  Devices() = default;
  ~Devices() override
  {
    for (auto& [name, opened] : m_open) {
      if (opened.ctx != nullptr) {
        ibv_close_device(opened.ctx);
      }
    }
    if (m_devices != nullptr) {
      ibv_free_device_list(m_devices);
    }
  }
  Devices(const Devices&) = delete;
  Devices& operator=(const Devices&) = delete;

  const VerbsDeviceList& list() override
  {
    if (!m_listed) {
      m_listed = true;
      int count = 0;
      m_devices = ibv_get_device_list(&count);
      if (m_devices == nullptr) {
        m_list.error = errno;
      }
      for (int i = 0; m_devices != nullptr && i < count; ++i) {
        m_list.names.emplace_back(ibv_get_device_name(m_devices[i]));
      }
    }
    return m_list;
  }

  int open(const std::string& device) override
  {
    const auto it = m_open.find(device);
    if (it != m_open.end()) {
      return it->second.error;
    }
    Opened& opened = m_open[device];
    opened.error = ENODEV;
    const auto& names = list().names;
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == device) {
        opened.ctx = ibv_open_device(m_devices[i]);
        opened.error = opened.ctx != nullptr ? 0 : errno;
        break;
      }
    }
    return opened.error;
  }

  VerbsPortCount port_count(const std::string& device) override
  {
    VerbsPortCount out;
    ibv_device_attr attr{};
    ibv_context* ctx = context(device);
    out.error = ctx == nullptr ? ENODEV : ibv_query_device(ctx, &attr);
    out.count = out.error == 0 ? attr.phys_port_cnt : 0;
    return out;
  }

  VerbsPort query_port(const std::string& device, int port) override
  {
    VerbsPort out;
    ibv_context* ctx = context(device);
    if (ctx == nullptr) {
      out.error = ENODEV;
      return out;
    }
    ibv_port_attr attr{};
    int rc = ibv_query_port(ctx, static_cast<uint8_t>(port), &attr);
    if (rc < 0) {
      rc = errno;  // some libibverbs versions return -1 and set errno
    }
    out.error = rc;
    if (rc == 0) {
      out.state = state_of(attr.state);
      out.link_layer = link_layer_of(attr.link_layer);
      out.active_mtu = mtu_bytes(attr.active_mtu);
    }
    return out;
  }

private:
  struct Opened {
    ibv_context* ctx = nullptr;
    int error = 0;
  };

  ibv_context* context(const std::string& device) const
  {
    const auto it = m_open.find(device);
    return it == m_open.end() ? nullptr : it->second.ctx;
  }

  bool m_listed = false;
  ibv_device** m_devices = nullptr;
  VerbsDeviceList m_list;
  std::map<std::string, Opened> m_open;
};

}  // namespace

std::unique_ptr<VerbsDevices> make_verbs_devices()
{
  return std::make_unique<Devices>();
}

bool device_dir_present(const std::string& dir)
{
  struct stat st {};
  return stat(dir.c_str(), &st) == 0;
}

std::string device_at_pci(const inventory::SysfsReader& sysfs, const std::string& pci)
{
  const auto names = sysfs.list("bus/pci/devices/" + pci + "/infiniband");
  return names.empty() ? std::string() : names.front();
}

}  // namespace ibsetup::os
