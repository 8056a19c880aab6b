// Backend "auto": is NetworkManager running, and does it manage the declared interfaces?
#include <ibsetup/error.hpp>
#include <ibsetup/nm.hpp>

#include "nm/client.hpp"
#include "nm/plugin.hpp"

namespace ibsetup::nm {

BackendChoice plugin::choose_backend(const profile::ResolvedNode& node)
{
  std::unique_ptr<Client> client;
  try {
    client = std::make_unique<Client>(5);
  } catch (const CallError& e) {
    return {false, std::string("netlink: ") + e.what()};
  }
  if (!client->running()) {
    return {false, "netlink: NetworkManager is not running"};
  }
  if (!client->answered()) {
    // Neither backend is safe: netlink would change what NetworkManager may take back.
    throw EnvironmentError(k_not_answering);
  }
  for (const auto& i : node.interfaces) {
    // A pkey child is managed through its parent; a device NM has not seen does not decide.
    const std::string& base = i.parent ? *i.parent : i.name;
    NMDevice* d = client->device(base);
    if (d != nullptr && !nm_device_get_managed(d)) {
      return {false, "netlink: NetworkManager is running but does not manage " + base};
    }
  }
  return {true, "networkmanager: NetworkManager is running and manages the declared interfaces"};
}

}  // namespace ibsetup::nm
