// Addresses from one RTM_GETADDR dump, parsed apart from the socket so that tests can feed
// crafted and malformed messages.
#pragma once

#include <linux/netlink.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace ibsetup::inventory::detail {

// One RTM_NEWADDR message as (ifindex, "address/prefixlen"), the text libnl's rtnl_addr cache
// gave before (nl_addr2str of rtnl_addr_get_local): IFA_LOCAL, or IFA_ADDRESS when there is no
// IFA_LOCAL, written by inet_ntop. nullopt when it is not one, or has no usable address.
std::optional<std::pair<int, std::string>> address_of(const nlmsghdr* message);

using Ipv4Bytes = std::array<uint8_t, 4>;

// The peer of a point-to-point IPv4 address (`ip address add L peer P`) in one RTM_NEWADDR
// message: its IFA_ADDRESS when the message is the address local/prefixlen on the link with
// that ifindex and IFA_ADDRESS differs from IFA_LOCAL; nullopt for anything else.
std::optional<Ipv4Bytes> ipv4_peer_of(const nlmsghdr* message, int index, const Ipv4Bytes& local,
                                      int prefixlen);

// The same from one RTM_GETADDR dump of this host (the first match): why an RTM_DELADDR
// naming the local address twice (as `ip address del` does) was refused with EADDRNOTAVAIL,
// since the kernel matches IFA_ADDRESS against the peer. nullopt when the dump fails or holds
// no such address.
std::optional<Ipv4Bytes> ipv4_peer(int index, const Ipv4Bytes& local, int prefixlen);

}  // namespace ibsetup::inventory::detail
