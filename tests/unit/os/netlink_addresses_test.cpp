// Addresses from the RTM_GETADDR dump: messages built the way the kernel's inet_fill_ifaddr and
// inet6_fill_ifaddr build them, and malformed ones, which are skipped without reading past
// the message. The text must stay what libnl's address cache gave (nl_addr2str of
// rtnl_addr_get_local, then "/prefixlen").
#include "os/netlink_addresses.hpp"
#include "os/netlink_messages.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include <cstring>
#include <optional>
#include <vector>

using namespace ibsetup;
using ibsetup::inventory::detail::address_of;

namespace {

struct Attr {
  int type;
  std::vector<unsigned char> bytes;
};

std::vector<unsigned char> bytes_of(int family, const char* text)
{
  std::vector<unsigned char> out(family == AF_INET ? 4 : 16);
  EXPECT_EQ(1, inet_pton(family, text, out.data()));
  return out;
}

nl_msg* message(int family, unsigned prefixlen, int index, const std::vector<Attr>& attrs,
                int type = RTM_NEWADDR)
{
  nl_msg* msg = nlmsg_alloc_simple(type, NLM_F_MULTI);
  ifaddrmsg ifa{};
  ifa.ifa_family = static_cast<unsigned char>(family);
  ifa.ifa_prefixlen = static_cast<unsigned char>(prefixlen);
  ifa.ifa_index = static_cast<unsigned>(index);
  nlmsg_append(msg, &ifa, sizeof ifa, NLMSG_ALIGNTO);
  for (const auto& a : attrs) {
    nla_put(msg, a.type, static_cast<int>(a.bytes.size()), a.bytes.data());
  }
  nla_put_string(msg, IFA_LABEL, "ib0");
  return msg;
}

std::string text_of(nl_msg* msg, int expected_index = -1)
{
  const auto a = address_of(nlmsg_hdr(msg));
  nlmsg_free(msg);
  if (!a) {
    return "none";
  }
  if (expected_index >= 0) {
    EXPECT_EQ(expected_index, a->first);
  }
  return a->second;
}

TEST(NetlinkAddresses, Ipv4SendsLocalAndAddress)
{
  const auto a = bytes_of(AF_INET, "10.0.0.5");
  EXPECT_EQ("10.0.0.5/24", text_of(message(AF_INET, 24, 7, {{IFA_ADDRESS, a}, {IFA_LOCAL, a}}), 7));
  // A host route's full length is written out too ("/32"), as before.
  const auto h = bytes_of(AF_INET, "192.168.5.5");
  EXPECT_EQ("192.168.5.5/32", text_of(message(AF_INET, 32, 7, {{IFA_ADDRESS, h}, {IFA_LOCAL, h}})));
}

TEST(NetlinkAddresses, PeerAddressReportsTheLocalOne)
{
  // `ip addr add 10.0.0.1 peer 10.0.0.2/32`: IFA_ADDRESS is the peer.
  EXPECT_EQ("10.0.0.1/32", text_of(message(AF_INET, 32, 3,
                                           {{IFA_ADDRESS, bytes_of(AF_INET, "10.0.0.2")},
                                            {IFA_LOCAL, bytes_of(AF_INET, "10.0.0.1")}})));
  EXPECT_EQ("fd00:3::1/128", text_of(message(AF_INET6, 128, 3,
                                             {{IFA_ADDRESS, bytes_of(AF_INET6, "fd00:3::2")},
                                              {IFA_LOCAL, bytes_of(AF_INET6, "fd00:3::1")}})));
}

TEST(NetlinkAddresses, Ipv6SendsOnlyIfaAddress)
{
  EXPECT_EQ("fd00:1::1/64",
            text_of(message(AF_INET6, 64, 2,
                            {{IFA_ADDRESS, bytes_of(AF_INET6, "fd00:0001:0000:0000::0001")}})));
  EXPECT_EQ("fe80::f492:1bff:fe68:15d7/64",
            text_of(message(AF_INET6, 64, 2,
                            {{IFA_ADDRESS, bytes_of(AF_INET6, "fe80::f492:1bff:fe68:15d7")}})));
  EXPECT_EQ(
      "::ffff:10.1.2.3/128",
      text_of(message(AF_INET6, 128, 2, {{IFA_ADDRESS, bytes_of(AF_INET6, "::ffff:10.1.2.3")}})));
}

TEST(NetlinkAddresses, OtherFamiliesAreHexAsLibnlWroteThem)
{
  EXPECT_EQ("2a/0", text_of(message(35 /* AF_PHONET */, 0, 2, {{IFA_LOCAL, {0x2a}}})));
}

TEST(NetlinkAddresses, MalformedMessagesAreSkipped)
{
  const auto a = bytes_of(AF_INET, "10.0.0.5");
  EXPECT_EQ("none", text_of(message(AF_INET, 24, 7, {})));  // no address at all
  EXPECT_EQ("none", text_of(message(AF_INET, 24, 7, {{IFA_LOCAL, a}}, RTM_NEWLINK)));
  EXPECT_EQ("none", text_of(message(AF_INET, 24, 7, {{IFA_LOCAL, {10, 0, 0}}})));  // 3 bytes
  EXPECT_EQ("none", text_of(message(AF_INET6, 64, 7, {{IFA_ADDRESS, a}})));  // 4 bytes for IPv6
  EXPECT_EQ("none", text_of(message(AF_INET, 24, 7, {{IFA_LOCAL, {}}})));    // empty

  // A header too short for its ifaddrmsg.
  nl_msg* msg = nlmsg_alloc_simple(RTM_NEWADDR, NLM_F_MULTI);
  uint16_t half = 0;
  nlmsg_append(msg, &half, sizeof half, NLMSG_ALIGNTO);
  EXPECT_EQ("none", text_of(msg));

  // An attribute whose length runs past the end of the message is not read.
  msg = message(AF_INET, 24, 7, {{IFA_LOCAL, a}});
  nlmsghdr* header = nlmsg_hdr(msg);
  nlattr* attr = nlmsg_attrdata(header, sizeof(ifaddrmsg));
  attr->nla_len = 200;
  EXPECT_EQ("none", text_of(msg));
}

ifaddrmsg ifa_of(nl_msg* msg)
{
  ifaddrmsg ifa{};
  std::memcpy(&ifa, nlmsg_data(nlmsg_hdr(msg)), sizeof ifa);
  return ifa;
}

std::optional<inventory::detail::Ipv4Bytes> peer_in(nl_msg* msg, int index, const char* local,
                                                    int prefixlen)
{
  inventory::detail::Ipv4Bytes l{};
  EXPECT_EQ(1, inet_pton(AF_INET, local, l.data()));
  auto peer = inventory::detail::ipv4_peer_of(nlmsg_hdr(msg), index, l, prefixlen);
  nlmsg_free(msg);
  return peer;
}

// `ip address add 10.9.0.1 peer 10.9.0.2 dev ib0`: the kernel's message has IFA_ADDRESS the peer.
TEST(NetlinkAddresses, PeerOfAPointToPointAddress)
{
  const auto l = bytes_of(AF_INET, "10.9.0.1");
  const auto p = bytes_of(AF_INET, "10.9.0.2");
  const std::vector<Attr> both{{IFA_ADDRESS, p}, {IFA_LOCAL, l}};
  const auto peer = peer_in(message(AF_INET, 32, 7, both), 7, "10.9.0.1", 32);
  ASSERT_TRUE(peer);
  EXPECT_EQ(p, std::vector<unsigned char>(peer->begin(), peer->end()));
  // Another link, prefix length or local address; a plain address; IPv6; no IFA_LOCAL.
  EXPECT_FALSE(peer_in(message(AF_INET, 32, 8, both), 7, "10.9.0.1", 32));
  EXPECT_FALSE(peer_in(message(AF_INET, 24, 7, both), 7, "10.9.0.1", 32));
  EXPECT_FALSE(peer_in(message(AF_INET, 32, 7, both), 7, "10.9.0.3", 32));
  EXPECT_FALSE(
      peer_in(message(AF_INET, 32, 7, {{IFA_ADDRESS, l}, {IFA_LOCAL, l}}), 7, "10.9.0.1", 32));
  EXPECT_FALSE(peer_in(message(AF_INET6, 32, 7, both), 7, "10.9.0.1", 32));
  EXPECT_FALSE(peer_in(message(AF_INET, 32, 7, {{IFA_ADDRESS, p}}), 7, "10.9.0.1", 32));
  // A short attribute is not read past.
  EXPECT_FALSE(peer_in(message(AF_INET, 32, 7, {{IFA_ADDRESS, {10, 9}}, {IFA_LOCAL, l}}), 7,
                       "10.9.0.1", 32));
}

TEST(NetlinkAddressRequests, AddSendsLocalAndAddressAsIpDoes)
{
  const auto prefix = IpPrefix::parse("10.100.3.1/24", Family::ipv4, nullptr).value();
  nl_msg* msg = apply::detail::address_request(true, 9, prefix);
  nlmsghdr* hdr = nlmsg_hdr(msg);
  EXPECT_EQ(RTM_NEWADDR, hdr->nlmsg_type);
  EXPECT_EQ(NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, hdr->nlmsg_flags);
  const ifaddrmsg ifa = ifa_of(msg);
  EXPECT_EQ(AF_INET, ifa.ifa_family);
  EXPECT_EQ(24, ifa.ifa_prefixlen);
  EXPECT_EQ(0, ifa.ifa_flags);
  EXPECT_EQ(RT_SCOPE_UNIVERSE, ifa.ifa_scope);
  EXPECT_EQ(9U, ifa.ifa_index);
  nlattr* tb[IFA_MAX + 1] = {};
  ASSERT_EQ(0, nlmsg_parse(hdr, sizeof(ifaddrmsg), tb, IFA_MAX, nullptr));
  ASSERT_NE(nullptr, tb[IFA_LOCAL]);
  ASSERT_NE(nullptr, tb[IFA_ADDRESS]);
  EXPECT_EQ(bytes_of(AF_INET, "10.100.3.1"),
            std::vector<unsigned char>(static_cast<unsigned char*>(nla_data(tb[IFA_LOCAL])),
                                       static_cast<unsigned char*>(nla_data(tb[IFA_LOCAL])) + 4));
  EXPECT_EQ(0, nla_memcmp(tb[IFA_ADDRESS], nla_data(tb[IFA_LOCAL]), 4));
  // Nothing else: 16 header + 8 ifaddrmsg + 2 x 8 attributes.
  EXPECT_EQ(40U, hdr->nlmsg_len);
  nlmsg_free(msg);
}

TEST(NetlinkAddressRequests, DeleteAndIpv6AndLoopback)
{
  const auto v6 = IpPrefix::parse("fd00:5::1/64", Family::ipv6, nullptr).value();
  nl_msg* msg = apply::detail::address_request(false, 4, v6);
  nlmsghdr* hdr = nlmsg_hdr(msg);
  EXPECT_EQ(RTM_DELADDR, hdr->nlmsg_type);
  EXPECT_EQ(NLM_F_REQUEST | NLM_F_ACK, hdr->nlmsg_flags);
  EXPECT_EQ(AF_INET6, ifa_of(msg).ifa_family);
  EXPECT_EQ(64, ifa_of(msg).ifa_prefixlen);
  nlattr* tb[IFA_MAX + 1] = {};
  ASSERT_EQ(0, nlmsg_parse(hdr, sizeof(ifaddrmsg), tb, IFA_MAX, nullptr));
  EXPECT_EQ(16, nla_len(tb[IFA_LOCAL]));
  EXPECT_EQ(16, nla_len(tb[IFA_ADDRESS]));
  nlmsg_free(msg);

  const auto loopback = IpPrefix::parse("127.0.0.2/8", Family::ipv4, nullptr).value();
  msg = apply::detail::address_request(true, 1, loopback);
  EXPECT_EQ(RT_SCOPE_HOST, ifa_of(msg).ifa_scope);
  nlmsg_free(msg);
}

}  // namespace
