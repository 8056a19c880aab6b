// Netdevs from the kernel's link dump (issue 15): internal to libibsetup, so that the public
// inventory::Options keeps its layout. A live inspect (inspect_host) reads netdevs this way;
// inspect() on a tree walks sysfs.
#pragma once

#include <ibsetup/inventory.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ibsetup::inventory {

// One netdev as the kernel's link dump reports it (RTM_GETLINK): what read_netdev would read
// from sysfs, with the hardware address. Kernels before 5.10 (and their backports) report
// pkey, mode and umcast only for children made through netlink: `ipoib_attributes` says
// whether they came with the link, and inspect() reads them from sysfs when not.
struct NetdevReading {
  Netdev netdev;
  std::optional<std::string> address;  // "80:00:00:48:fe:80:...", as sysfs prints it
  bool ipoib_attributes = false;
  std::optional<int> parent_index;  // IFLA_LINK of an IPoIB child, until named
};

class NetdevSource {
public:
  virtual ~NetdevSource() = default;
  virtual std::vector<NetdevReading> netdevs() = 0;
};

std::unique_ptr<NetdevSource> make_netlink_netdev_source();

// inspect(options), with the netdevs from `netdevs` instead of the sysfs walk when not null,
// and without the ports' P_Key tables when pkey_tables is false.
Host inspect(const Options& options, NetdevSource* netdevs, bool pkey_tables = true);

}  // namespace ibsetup::inventory
