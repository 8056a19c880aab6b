// Netdevs from the link dump: the messages are built the way the kernel builds them
// (rtnl_fill_ifinfo, and ipoib_netlink.c's fill_info for IPoIB), from the captured
// `ip -d link show` of /work/shared/realdata (docs/facts.md), since no IPoIB netdev can exist
// on a machine without an HCA. The real kernel's answer for other netdevs is compared with
// sysfs by tests/scripts/netdev_oracle_test.sh.
#include "inventory/read.hpp"
#include "os/netlink_links.hpp"
#include "os/sysfs.hpp"
#include "test_util.hpp"

#include <ibsetup/inventory.hpp>

#include <gtest/gtest.h>

#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include <filesystem>

using namespace ibsetup;
using namespace ibsetup::inventory;

namespace {

// mlx5_ib0.8001@mlx5_ib0 (realdata/outputs/ip-d-link-show-2.txt): its 20-byte address.
const unsigned char k_child_address[20] = {0x00, 0x00, 0x1f, 0xe3, 0xfe, 0x80, 0x00,
                                           0x00, 0x00, 0x00, 0x00, 0x00, 0x24, 0x8a,
                                           0x07, 0x03, 0x00, 0xa3, 0x19, 0x64};

struct Link {
  Link(std::string n, int i, unsigned t = 32, unsigned f = 0,
       std::optional<uint32_t> l = std::nullopt)
      : name(std::move(n)), index(i), type(t), flags(f), link(l)
  {
  }
  std::string name;
  int index = 0;
  unsigned type = 32;
  unsigned flags = 0;
  std::optional<uint32_t> link;  // IFLA_LINK
  bool ipoib_info = true;
  uint16_t pkey = 0xffff;
  uint16_t mode = 0;
  uint16_t umcast = 0;
  uint8_t operstate = 2;  // IF_OPER_DOWN
  uint8_t carrier = 0;
};

nl_msg* message_of(const Link& l)
{
  nl_msg* msg = nlmsg_alloc_simple(RTM_NEWLINK, NLM_F_MULTI);
  ifinfomsg ifi{};
  ifi.ifi_family = AF_UNSPEC;
  ifi.ifi_type = static_cast<unsigned short>(l.type);
  ifi.ifi_index = l.index;
  ifi.ifi_flags = l.flags;
  nlmsg_append(msg, &ifi, sizeof ifi, NLMSG_ALIGNTO);
  nla_put_string(msg, IFLA_IFNAME, l.name.c_str());
  nla_put_u32(msg, IFLA_MTU, 4092);
  nla_put_u8(msg, IFLA_OPERSTATE, l.operstate);
  nla_put_u8(msg, IFLA_CARRIER, l.carrier);
  nla_put(msg, IFLA_ADDRESS, sizeof k_child_address, k_child_address);
  if (l.link) {
    nla_put_u32(msg, IFLA_LINK, *l.link);
  }
  if (l.ipoib_info) {
    nlattr* info = nla_nest_start(msg, IFLA_LINKINFO);
    nla_put_string(msg, IFLA_INFO_KIND, "ipoib");
    nlattr* data = nla_nest_start(msg, IFLA_INFO_DATA);
    nla_put_u16(msg, IFLA_IPOIB_PKEY, l.pkey);
    nla_put_u16(msg, IFLA_IPOIB_MODE, l.mode);
    nla_put_u16(msg, IFLA_IPOIB_UMCAST, l.umcast);
    nla_nest_end(msg, data);
    nla_nest_end(msg, info);
  }
  return msg;
}

NetdevReading read_link(const Link& l)
{
  nl_msg* msg = message_of(l);
  auto r = detail::reading_of_link(nlmsg_hdr(msg));
  nlmsg_free(msg);
  EXPECT_TRUE(r.has_value());
  return r.value_or(NetdevReading{});
}

TEST(NetlinkLinks, PkeyChildMadeThroughNetlink)
{
  Link base{"mlx5_ib0", 19, 32, IFF_UP | IFF_BROADCAST | IFF_MULTICAST};
  base.operstate = 6;  // IF_OPER_UP
  base.carrier = 1;
  Link child{"mlx5_ib0.8001", 28, 32, IFF_BROADCAST | IFF_MULTICAST, 19U};
  child.pkey = 0x8001;
  std::vector<NetdevReading> links{read_link(base), read_link(child)};
  detail::name_parents(links);
  const Netdev& c = links[1].netdev;
  EXPECT_TRUE(links[1].ipoib_attributes);
  EXPECT_TRUE(c.ipoib);
  EXPECT_EQ(28, c.ifindex);
  EXPECT_EQ(4092, c.mtu);
  EXPECT_EQ(0x8001, c.pkey);
  EXPECT_EQ(IpoibMode::datagram, c.mode->value);
  EXPECT_EQ(false, c.umcast);
  EXPECT_EQ("mlx5_ib0", c.parent.value_or("none"));
  EXPECT_EQ("down", c.operstate.value_or("none"));
  EXPECT_EQ(false, c.admin_up);
  // sysfs refuses `carrier` on a netdev that is down; the reading must match it.
  EXPECT_FALSE(c.carrier.has_value());
  EXPECT_EQ("00:00:1f:e3:fe:80:00:00:00:00:00:00:24:8a:07:03:00:a3:19:64", *links[1].address);
  const Netdev& b = links[0].netdev;
  EXPECT_FALSE(b.parent.has_value());  // its own index is not a parent
  EXPECT_EQ("up", *b.operstate);
  EXPECT_EQ(true, b.carrier);
  EXPECT_EQ(0xffff, b.pkey);
}

TEST(NetlinkLinks, ConnectedModeAndUmcast)
{
  Link l{"ib1", 4};
  l.mode = 1;  // IPOIB_MODE_CONNECTED
  l.umcast = 1;
  const auto r = read_link(l);
  EXPECT_EQ(IpoibMode::connected, r.netdev.mode->value);
  EXPECT_EQ(true, r.netdev.umcast);
}

TEST(NetlinkLinks, OlderKernelWithoutIpoibAttributesLeavesThemToSysfs)
{
  // Before Linux 5.10 a base interface (and a child made through sysfs) carried no ipoib
  // attributes (realdata/outputs/ip-d-link-show-1.txt).
  Link l{"mlx5_ib0", 19, 32, IFF_UP};
  l.ipoib_info = false;
  l.link = 19;
  const auto r = read_link(l);
  EXPECT_FALSE(r.ipoib_attributes);
  EXPECT_FALSE(r.netdev.pkey.has_value());
  EXPECT_FALSE(r.netdev.mode.has_value());
  EXPECT_FALSE(r.netdev.parent.has_value());
}

TEST(NetlinkLinks, VethPeerIsNotAParent)
{
  Link l{"veth0", 5, 1, IFF_UP, 6U};  // ARPHRD_ETHER, IFLA_LINK = the peer
  l.ipoib_info = false;
  const auto r = read_link(l);
  EXPECT_FALSE(r.netdev.ipoib);
  EXPECT_FALSE(r.netdev.parent.has_value());
  EXPECT_EQ(1, r.netdev.type);
}

TEST(NetlinkLinks, ParentOutsideTheDumpIsLeftToSysfs)
{
  Link child{"ib0.8002", 30, 32, 0, 99U};
  std::vector<NetdevReading> links{read_link(child)};
  detail::name_parents(links);
  EXPECT_FALSE(links[0].netdev.parent.has_value());
  EXPECT_FALSE(links[0].ipoib_attributes);
}

TEST(NetlinkLinks, ParentInAnotherNamespaceIsLeftToSysfs)
{
  nl_msg* msg = message_of(Link{"ib0.8003", 31, 32, 0, 7U});
  nla_put_s32(msg, IFLA_LINK_NETNSID, 2);
  const auto r = detail::reading_of_link(nlmsg_hdr(msg));
  nlmsg_free(msg);
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->ipoib_attributes);
  EXPECT_FALSE(r->parent_index.has_value());
}

TEST(NetlinkLinks, OtherMessagesAndShortAttributesAreRefusedOrSkipped)
{
  nl_msg* msg = nlmsg_alloc_simple(RTM_NEWADDR, 0);
  EXPECT_FALSE(detail::reading_of_link(nlmsg_hdr(msg)).has_value());
  nlmsg_free(msg);
  // No name: not a netdev. A 1-byte IFLA_MTU and an empty ipoib data nest: fields left out.
  msg = nlmsg_alloc_simple(RTM_NEWLINK, 0);
  ifinfomsg ifi{};
  ifi.ifi_type = 32;
  nlmsg_append(msg, &ifi, sizeof ifi, NLMSG_ALIGNTO);
  EXPECT_FALSE(detail::reading_of_link(nlmsg_hdr(msg)).has_value());
  nla_put_string(msg, IFLA_IFNAME, "ib9");
  const uint8_t one = 1;
  nla_put(msg, IFLA_MTU, 1, &one);
  nlattr* info = nla_nest_start(msg, IFLA_LINKINFO);
  nla_put_string(msg, IFLA_INFO_KIND, "ipoib");
  nlattr* data = nla_nest_start(msg, IFLA_INFO_DATA);
  nla_nest_end(msg, data);
  nla_nest_end(msg, info);
  const auto r = detail::reading_of_link(nlmsg_hdr(msg));
  nlmsg_free(msg);
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->netdev.mtu.has_value());
  EXPECT_FALSE(r->ipoib_attributes);
}

// inspect() with a link source gives the same host as the sysfs walk on every fixture tree:
// the source here replays what sysfs holds, with the ipoib attributes left to sysfs (an older
// kernel) on every other netdev.
class FromSysfs : public NetdevSource {
public:
  explicit FromSysfs(std::string root) : root_(std::move(root)) {}
  std::vector<NetdevReading> netdevs() override
  {
    std::vector<NetdevReading> out;
    SysfsReader fs(root_, false);
    std::vector<std::string> warnings;
    const Reader r(fs, warnings);
    bool with_attributes = false;
    for (const auto& name : fs.list("class/net")) {
      NetdevReading reading;
      reading.netdev = read_netdev(r, name);
      reading.address = r.text("class/net/" + name + "/address");
      reading.ipoib_attributes = reading.netdev.ipoib && with_attributes;
      with_attributes = !with_attributes;
      out.push_back(std::move(reading));
    }
    return out;
  }

private:
  std::string root_;
};

TEST(NetlinkLinks, InspectWithALinkSourceMatchesTheSysfsWalk)
{
  const auto fixtures = std::filesystem::path(IBSETUP_FIXTURES) / "sysfs";
  int compared = 0;
  for (const auto& entry : std::filesystem::directory_iterator(fixtures)) {
    if (!entry.is_directory()) {
      continue;
    }
    Options o;
    o.sysfs_root = entry.path().string();
    const std::string walked = host_to_json(inspect(o));
    FromSysfs source(o.sysfs_root);
    EXPECT_EQ(walked, host_to_json(inspect(o, &source))) << entry.path();
    ++compared;
  }
  EXPECT_GE(compared, 10);
}

}  // namespace

namespace {

// A dump that names other netdevs than /sys lists (this /sys belongs to another network
// namespace, or is a tree mounted over /sys): inspect reads sysfs as before.
class OtherNamespace : public NetdevSource {
public:
  std::vector<NetdevReading> netdevs() override
  {
    NetdevReading lo;
    lo.netdev.name = "lo";
    lo.netdev.ifindex = 1;
    lo.netdev.type = 772;
    return {lo};
  }
};

TEST(NetlinkLinks, ADumpOfAnotherNamespaceFallsBackToSysfs)
{
  Options o;
  o.sysfs_root = std::string(IBSETUP_FIXTURES) + "/sysfs/hdr-2hca";
  OtherNamespace other;
  const Host h = inspect(o, &other);
  EXPECT_EQ(host_to_json(inspect(o)), host_to_json(h));
  ASSERT_FALSE(h.netdevs.empty());
  EXPECT_EQ("ib0", h.netdevs.front().name);
}

// Addresses by the index of the dumping namespace's lo (1) and of the tree's ib0 (4).
class ByIndex : public AddressSource {
public:
  std::map<int, std::vector<std::string>> addresses() override
  {
    ++calls;
    return {{1, {"127.0.0.1/8"}}, {4, {"192.0.2.9/24"}}};
  }
  int calls = 0;
};

// Netlink's indexes belong to its namespace, not to the /sys being read: with the two
// disagreeing, an address is bound only to the netdev netlink names for its index, and the
// user hears of the others.
TEST(NetlinkLinks, AddressesOfAnotherNamespaceAreNotBound)
{
  Options o;
  o.sysfs_root = std::string(IBSETUP_FIXTURES) + "/sysfs/hdr-2hca";
  ByIndex addresses;
  o.addresses = &addresses;
  OtherNamespace other;  // lo at index 1; the tree's ib0 has index 4
  const Host h = inspect(o, &other);
  ASSERT_FALSE(h.netdevs.empty());
  EXPECT_EQ(4, h.netdevs.front().ifindex.value_or(0));
  for (const auto& n : h.netdevs) {
    EXPECT_TRUE(n.addresses.empty()) << n.name;
  }
  EXPECT_EQ(0, addresses.calls);  // nothing could have been bound: not even dumped
  ASSERT_FALSE(h.warnings.empty());
  EXPECT_NE(std::string::npos,
            h.warnings.back().find("no netdev has the name netlink gives its interface index"))
      << h.warnings.back();
  // The same tree and source with agreeing names binds them (the control).
  FromSysfs same(o.sysfs_root);
  const Host bound = inspect(o, &same);
  EXPECT_EQ(1, addresses.calls);
  ASSERT_FALSE(bound.netdevs.front().addresses.empty());
}

// One netdev renamed between the dump and the listing (udev at boot): the names differ, so
// sysfs is read whole, but every other netdev keeps the addresses netlink gives its index.
class RenamedBetween : public NetdevSource {
public:
  explicit RenamedBetween(std::string root) : inner_(std::move(root)) {}
  std::vector<NetdevReading> netdevs() override
  {
    auto out = inner_.netdevs();
    for (auto& r : out) {
      if (r.netdev.name == "ib1") {
        r.netdev.name = "ib1old";
      }
    }
    return out;
  }

private:
  FromSysfs inner_;
};

class ToBoth : public AddressSource {
public:
  explicit ToBoth(std::map<int, std::vector<std::string>> a) : a_(std::move(a)) {}
  std::map<int, std::vector<std::string>> addresses() override { return a_; }

private:
  std::map<int, std::vector<std::string>> a_;
};

TEST(NetlinkLinks, ARenameInBetweenCostsOnlyThatNetdevsAddresses)
{
  Options o;
  o.sysfs_root = std::string(IBSETUP_FIXTURES) + "/sysfs/hdr-2hca";
  const Host plain = inspect(o);
  std::map<int, std::vector<std::string>> by_index;
  for (const auto& n : plain.netdevs) {
    ASSERT_TRUE(n.ifindex) << n.name;
    by_index[*n.ifindex] = {"192.0.2." + std::to_string(*n.ifindex) + "/24"};
  }
  ToBoth addresses(by_index);
  o.addresses = &addresses;
  RenamedBetween renamed(o.sysfs_root);
  const Host h = inspect(o, &renamed);
  ASSERT_EQ(2U, h.netdevs.size());
  for (const auto& n : h.netdevs) {
    EXPECT_EQ(n.name == "ib1", n.addresses.empty()) << n.name;
  }
  ASSERT_FALSE(h.warnings.empty());
  EXPECT_NE(std::string::npos, h.warnings.back().find("(ib1old)")) << h.warnings.back();
}
}  // namespace
