#include "inventory/inspect_scope.hpp"

#include <ibsetup/inventory.hpp>
#include <ibsetup/plan.hpp>
#include <ibsetup/profile.hpp>

namespace ibsetup::inventory {

Host inspect_node(const profile::ResolvedNode& node, const std::string& sysfs_root, bool counters)
{
  return inspect_node(node, sysfs_root, counters, true);
}

Host inspect_node(const profile::ResolvedNode& node, const std::string& sysfs_root, bool counters,
                  bool pkey_tables)
{
  Options o;
  o.sysfs_root = sysfs_root;
  o.counters = counters;
  o.netdev_names = plan::netdev_names(node);
  auto host = inspect_host(o, pkey_tables);
  host.host = node.host;
  return host;
}

}  // namespace ibsetup::inventory
