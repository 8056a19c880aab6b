// Addresses from one RTM_GETADDR dump, parsed apart from the socket so that tests can feed
// crafted and malformed messages.
#pragma once

#include <linux/netlink.h>

#include <optional>
#include <string>
#include <utility>

namespace ibsetup::inventory::detail {

// One RTM_NEWADDR message as (ifindex, "address/prefixlen"), the text libnl's rtnl_addr cache
// gave before (nl_addr2str of rtnl_addr_get_local): IFA_LOCAL, or IFA_ADDRESS when there is no
// IFA_LOCAL, written by inet_ntop. nullopt when it is not one, or has no usable address.
std::optional<std::pair<int, std::string>> address_of(const nlmsghdr* message);

}  // namespace ibsetup::inventory::detail
