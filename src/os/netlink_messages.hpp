// The rtnetlink requests apply sends, built apart from the socket so tests can check their
// attribute layout (docs/facts.md: IFLA_LINKINFO { IFLA_INFO_KIND "ipoib", IFLA_INFO_DATA {
// IFLA_IPOIB_PKEY u16, IFLA_IPOIB_MODE u16 } }).
#pragma once

#include <ibsetup/address.hpp>
#include <ibsetup/plan.hpp>
#include <ibsetup/profile.hpp>

#include <netlink/msg.h>

#include <optional>
#include <string>

namespace ibsetup::apply::detail {

// An RTM_*LINK request (with NLM_F_REQUEST | NLM_F_ACK | flags) and its ifinfomsg header.
nl_msg* link_request(int type, int flags, int index);

// RTM_NEWLINK creating pkey child name on the parent with that ifindex. Free with nlmsg_free.
nl_msg* ipoib_child_request(const std::string& name, int parent_index, uint16_t pkey,
                            std::optional<profile::Mode> mode);

// RTM_NEWLINK setting the IPoIB mode of an existing link. Free with nlmsg_free.
nl_msg* ipoib_mode_request(int index, profile::Mode mode);

// RTM_NEWADDR (add: NLM_F_CREATE | NLM_F_EXCL) or RTM_DELADDR of address on the link with that
// ifindex, byte for byte what libnl-route's rtnl_addr_build_{add,delete}_request built before
// and what `ip address add` sends: IFA_LOCAL and IFA_ADDRESS both the address, host scope for
// 127.0.0.0/8, else universe. Free with nlmsg_free.
nl_msg* address_request(bool add, int index, const IpPrefix& address);

}  // namespace ibsetup::apply::detail
