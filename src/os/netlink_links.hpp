// Netdevs from one RTM_GETLINK dump, parsed apart from the socket so that tests can feed the
// messages the kernel's ipoib_netlink.c builds (docs/facts.md) on a machine without IPoIB.
#pragma once

#include "inventory/netdev_source.hpp"

#include <linux/netlink.h>

#include <optional>

namespace ibsetup::inventory::detail {

// One RTM_NEWLINK message; nullopt when it is not one or lacks a name. An IPoIB child's parent
// is left as its index (parent_index); name_parents() turns it into a name.
std::optional<NetdevReading> reading_of_link(const nlmsghdr* message);

// Resolves each IPoIB child's parent ifindex (IFLA_LINK) to the parent's name within the
// dump; an index outside it (another namespace) leaves the parent unknown.
void name_parents(std::vector<NetdevReading>& links);

}  // namespace ibsetup::inventory::detail
