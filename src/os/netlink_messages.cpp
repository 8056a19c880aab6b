// The rtnetlink requests apply sends (netlink_messages.hpp), built apart from the socket so that
// tests can check their layout, and how `apply --dry-run` describes each.
#include "os/netlink_messages.hpp"

#include <ibsetup/apply.hpp>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cstdio>

namespace ibsetup::apply {

namespace {

constexpr uint16_t k_ipoib_mode_datagram = 0;
constexpr uint16_t k_ipoib_mode_connected = 1;

}  // namespace

namespace detail {

nl_msg* link_request(int type, int flags, int index)
{
  nl_msg* msg = nlmsg_alloc_simple(type, NLM_F_REQUEST | NLM_F_ACK | flags);
  if (msg == nullptr) {
    throw BackendError("netlink: out of memory");
  }
  ifinfomsg ifi{};
  ifi.ifi_family = AF_UNSPEC;
  ifi.ifi_index = index;
  nlmsg_append(msg, &ifi, sizeof ifi, NLMSG_ALIGNTO);
  return msg;
}

namespace {

void put_ipoib(nl_msg* msg, std::optional<uint16_t> pkey, std::optional<profile::Mode> mode)
{
  nlattr* info = nla_nest_start(msg, IFLA_LINKINFO);
  nla_put_string(msg, IFLA_INFO_KIND, "ipoib");
  nlattr* data = nla_nest_start(msg, IFLA_INFO_DATA);
  if (pkey) {
    nla_put_u16(msg, IFLA_IPOIB_PKEY, *pkey);
  }
  if (mode) {
    nla_put_u16(msg, IFLA_IPOIB_MODE,
                *mode == profile::Mode::connected ? k_ipoib_mode_connected : k_ipoib_mode_datagram);
  }
  nla_nest_end(msg, data);
  nla_nest_end(msg, info);
}

}  // namespace

nl_msg* ipoib_child_request(const std::string& name, int parent_index, uint16_t pkey,
                            std::optional<profile::Mode> mode)
{
  nl_msg* msg = link_request(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0);
  nla_put_string(msg, IFLA_IFNAME, name.c_str());
  nla_put_u32(msg, IFLA_LINK, static_cast<uint32_t>(parent_index));
  put_ipoib(msg, pkey, mode);
  return msg;
}

nl_msg* ipoib_mode_request(int index, profile::Mode mode)
{
  nl_msg* msg = link_request(RTM_NEWLINK, 0, index);
  put_ipoib(msg, std::nullopt, mode);
  return msg;
}

nl_msg* address_request(bool add, int index, const IpPrefix& address)
{
  const bool v4 = address.address.family == Family::ipv4;
  nl_msg* msg =
      nlmsg_alloc_simple(add ? RTM_NEWADDR : RTM_DELADDR,
                         NLM_F_REQUEST | NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_EXCL : 0));
  if (msg == nullptr) {
    throw BackendError("netlink: out of memory");
  }
  ifaddrmsg ifa{};
  ifa.ifa_family = v4 ? AF_INET : AF_INET6;
  ifa.ifa_prefixlen = static_cast<unsigned char>(address.length);
  // libnl, like ip, asks for host scope on a loopback address (the kernel does not infer it).
  ifa.ifa_scope = v4 && address.address.bytes[0] == 127 ? RT_SCOPE_HOST : RT_SCOPE_UNIVERSE;
  ifa.ifa_index = static_cast<unsigned>(index);
  const int length = v4 ? 4 : 16;
  if (nlmsg_append(msg, &ifa, sizeof ifa, NLMSG_ALIGNTO) < 0 ||
      nla_put(msg, IFA_LOCAL, length, address.address.bytes.data()) < 0 ||
      nla_put(msg, IFA_ADDRESS, length, address.address.bytes.data()) < 0) {
    nlmsg_free(msg);
    throw BackendError("netlink: out of memory");
  }
  return msg;
}

}  // namespace detail

std::string describe_request(const plan::Action& a)
{
  using plan::ActionKind;
  switch (a.kind) {
  case ActionKind::create_child:
    return "RTM_NEWLINK (create, excl) ifname " + a.ifname + " link " + a.parent +
           " linkinfo{kind ipoib, data{pkey 0x" +
           [&] {
             char b[8];
             std::snprintf(b, sizeof b, "%04x", a.pkey);
             return std::string(b);
           }() +
           (a.mode ? std::string(", mode ") + profile::to_string(*a.mode) : std::string()) + "}}";
  case ActionKind::delete_child:
    return "RTM_DELLINK " + a.ifname;
  case ActionKind::set_mode:
    return "RTM_NEWLINK " + a.ifname + " linkinfo{kind ipoib, data{mode " +
           profile::to_string(a.mode.value_or(profile::Mode::datagram)) +
           "}} (fallback: write /sys/class/net/" + a.ifname + "/mode)";
  case ActionKind::set_mtu:
    return "RTM_NEWLINK " + a.ifname + " mtu " + std::to_string(a.mtu);
  case ActionKind::remove_address:
    return "RTM_DELADDR " + a.ifname + " " + a.address->str();
  case ActionKind::add_address:
    return "RTM_NEWADDR (excl) " + a.ifname + " " + a.address->str();
  case ActionKind::set_up:
  default:
    return "RTM_NEWLINK " + a.ifname + " flags +UP";
  }
}

}  // namespace ibsetup::apply
