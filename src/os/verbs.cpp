// inspect's view of libibverbs: the active IB MTU of a port, which sysfs does not show. Through
// the device-access seam (verbs_device.hpp).
#include "os/verbs_device.hpp"

#include <ibsetup/inventory.hpp>

namespace ibsetup::inventory {

namespace {

class Verbs : public VerbsSource {
public:
  std::optional<int> active_mtu(const std::string& device, int port) override
  {
    if (!m_checked) {
      m_checked = true;
      // Listing devices dlopens every provider library; without uverbs device nodes no
      // device can be opened anyway, so do not pay for it.
      if (os::device_dir_present("/dev/infiniband")) {
        m_devices = os::make_verbs_devices();
      }
    }
    if (m_devices == nullptr || m_devices->open(device) != 0) {
      return std::nullopt;
    }
    const os::VerbsPort attr = m_devices->query_port(device, port);
    if (attr.error != 0 || attr.active_mtu == 0) {
      return std::nullopt;
    }
    return attr.active_mtu;
  }

private:
  bool m_checked = false;
  std::unique_ptr<os::VerbsDevices> m_devices;
};

}  // namespace

std::unique_ptr<VerbsSource> make_verbs_source()
{
  return std::make_unique<Verbs>();
}

}  // namespace ibsetup::inventory
