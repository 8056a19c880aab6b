// inspect_host and inspect_node without the ports' P_Key tables (issue 15): `check` reads them
// only for a node that declares pkey children, since a table is one sysfs file an entry (128 a
// port on mlx5) that nothing else it checks uses. Internal to libibsetup, so that the public
// inventory::Options keeps its layout.
#pragma once

#include <ibsetup/inventory.hpp>

#include <string>

namespace ibsetup::inventory {

Host inspect_host(Options options, bool pkey_tables);
Host inspect_node(const profile::ResolvedNode& node, const std::string& sysfs_root, bool counters,
                  bool pkey_tables);

}  // namespace ibsetup::inventory
