#include <ibsetup/inventory.hpp>
#include <ibsetup/plan.hpp>
#include <ibsetup/profile.hpp>

namespace ibsetup::inventory {

Host inspect_node(const profile::ResolvedNode& node, const std::string& sysfs_root, bool counters)
{
  Options o;
  o.sysfs_root = sysfs_root;
  o.counters = counters;
  o.netdev_names = plan::netdev_names(node);
  auto host = inspect_host(o);
  host.host = node.host;
  return host;
}

}  // namespace ibsetup::inventory
