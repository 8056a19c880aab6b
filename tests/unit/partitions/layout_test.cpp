// The join of profile and inventories (partitions/layout.cpp): members, item 2's port order,
// item 4's reports, mtu codes and the partitions section's settings.
#include "partitions/layout.hpp"
#include "partitions/report.hpp"
#include "partitions/source_parse.hpp"

#include <ibsetup/profile.hpp>

#include "gtest_compat.hpp"

using namespace ibsetup;
using namespace ibsetup::partitions;

namespace {

const char* const k_profile = R"(version: 1
nodes:
  - hosts: cn[01-03]
    interfaces:
      - name: ib0
        device: mlx5_0
        port: 1
        ipv4: 10.0.0.0/24
      - parent: ib0
        pkey: 0x8001
        ipv4: 10.1.0.0/24
  - hosts: st[01-03]
    interfaces:
      - name: ib0
        mode: datagram
        mtu: 2044
        ipv4: 10.0.1.0/24
      - parent: ib0
        pkey: 0x0002
        mtu: 2044
        ipv4: 10.2.0.0/24
)";

std::string guid(int n)
{
  char buf[19];
  std::snprintf(buf, sizeof buf, "0x0c42a10300aa%04x", n);
  return buf;
}

InventoryHost host(const std::string& name, std::vector<InventoryPort> ports,
                   std::map<std::string, std::pair<std::string, int>> netdevs = {})
{
  InventoryHost h;
  h.host = name;
  h.origin = name + ".json";
  h.ports = std::move(ports);
  h.netdevs = std::move(netdevs);
  return h;
}

// Every host of k_profile with one IB port mlx5_0/1; GUIDs 1.. in host order.
Inventories full_inventories()
{
  Inventories inv;
  int n = 1;
  for (const char* name : {"cn01", "cn02", "cn03", "st01", "st02", "st03"}) {
    inv.hosts[name] = host(name, {{"mlx5_0", 1, guid(n++), true}});
  }
  return inv;
}

profile::Profile load(const std::string& text)
{
  return profile::load_profile_text(text, "cluster.yaml");
}

const Partition& find(const Layout& layout, uint16_t pkey)
{
  for (const auto& p : layout.partitions) {
    if (p.pkey == pkey) {
      return p;
    }
  }
  throw std::runtime_error("no partition " + std::to_string(pkey));
}

std::vector<std::string> member_hosts(const Partition& p)
{
  std::vector<std::string> out;
  for (const auto& m : p.members) {
    out.push_back(m.host + " " + port_name(m.device, m.port) + (m.full ? " full" : " limited"));
  }
  return out;
}

}  // namespace

TEST(PartitionsLayout, EveryPkeyIsAPartitionOfItsHostsAsFullMembers)
{
  const auto layout = build_layout(load(k_profile), full_inventories());
  ASSERT_EQ(layout.partitions.size(), 3U);
  EXPECT_EQ(layout.partitions[0].name, "Default");
  EXPECT_EQ(layout.partitions[0].pkey, 0x7fff);
  EXPECT_TRUE(layout.partitions[0].all_full);
  EXPECT_TRUE(layout.partitions[0].members.empty());
  EXPECT_EQ(layout.partitions[1].pkey, 0x0001);  // 0x8001 in the profile: the same partition
  EXPECT_EQ(layout.partitions[1].name, "ib_8001");
  EXPECT_TRUE(layout.partitions[1].ipoib);
  EXPECT_EQ(
      member_hosts(layout.partitions[1]),
      (std::vector<std::string>{"cn01 mlx5_0/1 full", "cn02 mlx5_0/1 full", "cn03 mlx5_0/1 full"}));
  EXPECT_EQ(layout.partitions[2].pkey, 0x0002);  // written without the bit: 0x8002 too
  EXPECT_EQ(layout.partitions[2].name, "ib_8002");
  EXPECT_EQ(layout.partitions[2].members.size(), 3U);
  EXPECT_EQ(layout.partitions[2].members[0].guid, guid(4));
  EXPECT_TRUE(layout_complete(layout));
  EXPECT_TRUE(layout.missing.empty());
  EXPECT_TRUE(layout.duplicate_guids.empty());
  EXPECT_TRUE(layout.unknown_hosts.empty());
}

TEST(PartitionsLayout, MembersAreSortedByGuidWhateverTheHostOrder)
{
  auto inv = full_inventories();
  inv.hosts["cn01"].ports[0].guid = guid(0x900);  // cn01 now sorts last
  const auto p = find(build_layout(load(k_profile), inv), 0x0001);
  EXPECT_EQ(member_hosts(p), (std::vector<std::string>{"cn02 mlx5_0/1 full", "cn03 mlx5_0/1 full",
                                                       "cn01 mlx5_0/1 full"}));
}

TEST(PartitionsLayout, MtuCodeFollowsTheInterfaces)
{
  const auto layout = build_layout(load(k_profile), full_inventories());
  // cn: no MTU, no mode: the largest datagram MTU, 4092, needs the 4K broadcast group.
  EXPECT_EQ(find(layout, 0x0001).mtu_code, 5);
  // st: datagram 2044 needs 2048.
  EXPECT_EQ(find(layout, 0x0002).mtu_code, 4);
  // Default: the base interfaces of both groups, 4092 and 2044: the largest, with a warning.
  EXPECT_EQ(find(layout, 0x7fff).mtu_code, 5);
  ASSERT_EQ(layout.warnings.size(), 1U);
  EXPECT_EQ(layout.warnings[0],
            "partition 0x7fff (Default): its interfaces need different IB MTUs (cn[01-03] need "
            "mtu=5 (4096), st[01-03] need mtu=4 (2048)); writing the largest, mtu=5");
}

TEST(PartitionsLayout, NeededMtuCodes)
{
  using profile::Mode;
  EXPECT_EQ(needed_mtu_code(Mode::datagram, 4092), 5);
  EXPECT_EQ(needed_mtu_code(Mode::datagram, 2044), 4);
  EXPECT_EQ(needed_mtu_code(Mode::datagram, 2045), 5);
  EXPECT_EQ(needed_mtu_code(Mode::datagram, 1500), 4);
  EXPECT_EQ(needed_mtu_code(Mode::datagram, 1020), 3);
  EXPECT_EQ(needed_mtu_code(Mode::datagram, 68), 1);
  EXPECT_EQ(needed_mtu_code(Mode::datagram, std::nullopt), 5);
  // Connected mode: the broadcast group still carries datagrams, at the 4K IB MTU.
  EXPECT_EQ(needed_mtu_code(Mode::connected, 65520), 5);
  EXPECT_EQ(needed_mtu_code(Mode::connected, 2044), 5);
  EXPECT_EQ(needed_mtu_code(std::nullopt, 2044), 4);
  EXPECT_EQ(needed_mtu_code(std::nullopt, 9000), 5);
  EXPECT_EQ(ib_mtu_code(2048), 4);
  EXPECT_EQ(ib_mtu_code(4096), 5);
  EXPECT_EQ(ib_mtu_code(4092), std::nullopt);
  EXPECT_EQ(rate_code(2.5), 2);
  EXPECT_EQ(rate_code(10), 3);
  EXPECT_EQ(rate_code(100), 16);
  EXPECT_EQ(rate_code(200), 17);
  EXPECT_EQ(rate_code(400), 21);
  EXPECT_EQ(rate_code(7), std::nullopt);
}

TEST(PartitionsLayout, PortOrderDeclaredThenBindingThenOnlyPortThenMissing)
{
  auto inv = full_inventories();
  // 1. cn01 declares mlx5_0 port 1: that wins over the inventory's binding of ib0.
  inv.hosts["cn01"] = host("cn01", {{"mlx5_0", 1, guid(1), true}, {"mlx5_1", 1, guid(11), true}},
                           {{"ib0", {"mlx5_1", 1}}});
  // 2. st01 declares no device: the binding of ib0 picks among two IB ports.
  inv.hosts["st01"] = host("st01", {{"mlx5_0", 1, guid(4), true}, {"mlx5_1", 1, guid(14), true}},
                           {{"ib0", {"mlx5_1", 1}}});
  // 3. st02: no binding, one InfiniBand port (the other is Ethernet).
  inv.hosts["st02"] = host("st02", {{"mlx5_0", 1, guid(15), false}, {"mlx5_1", 1, guid(5), true}});
  // 4. st03: no binding, two InfiniBand ports: missing, naming both.
  inv.hosts["st03"] = host("st03", {{"mlx5_0", 1, guid(6), true}, {"mlx5_0", 2, guid(16), true}});
  const auto layout = build_layout(load(k_profile), inv);
  EXPECT_EQ(find(layout, 0x0001).members[0].device, "mlx5_0");
  EXPECT_EQ(member_hosts(find(layout, 0x0002)),
            (std::vector<std::string>{"st02 mlx5_1/1 full", "st01 mlx5_1/1 full"}));
  ASSERT_EQ(layout.missing.size(), 1U);
  EXPECT_EQ(layout.missing[0].host, "st03");
  EXPECT_EQ(layout.missing[0].what,
            "no port for ib0: candidates mlx5_0/1, mlx5_0/2 (declare device and port on ib0)");
  EXPECT_EQ(layout.missing[0].pkeys, (std::vector<uint16_t>{0x0002}));
  EXPECT_FALSE(layout_complete(layout));
}

TEST(PartitionsLayout, NothingIsLeftOutQuietly)
{
  auto inv = full_inventories();
  inv.hosts.erase("cn02");                                              // a host with no inventory
  inv.hosts["cn03"] = host("cn03", {{"mlx5_1", 1, guid(3), true}});     // lacks mlx5_0/1
  inv.hosts["st02"].ports[0].guid = guid(4);                            // st01's GUID again
  inv.hosts["gpu01"] = host("gpu01", {{"mlx5_0", 1, guid(99), true}});  // not in the profile
  inv.problems.push_back({"-:7", "not JSON"});
  const auto layout = build_layout(load(k_profile), inv);
  ASSERT_EQ(layout.missing.size(), 2U);
  EXPECT_EQ(layout.missing[0].host, "cn02");
  EXPECT_EQ(layout.missing[0].what, "no inventory");
  EXPECT_EQ(layout.missing[1].host, "cn03");
  EXPECT_EQ(layout.missing[1].what,
            "no port for ib0: the inventory has no mlx5_0/1 (declared); InfiniBand ports it has: "
            "mlx5_1/1");
  EXPECT_EQ(layout.duplicate_guids,
            (std::vector<std::string>{guid(4) + " on st01 mlx5_0/1 and st02 mlx5_0/1"}));
  EXPECT_EQ(layout.unknown_hosts, (std::vector<std::string>{"gpu01"}));
  // The GUID seen twice is written once, for the first host.
  EXPECT_EQ(member_hosts(find(layout, 0x0002)),
            (std::vector<std::string>{"st01 mlx5_0/1 full", "st03 mlx5_0/1 full"}));
  // ... and the partition names the port it left out.
  EXPECT_EQ(find(layout, 0x0002).duplicates,
            (std::vector<std::string>{"st02 mlx5_0/1 (" + guid(4) + ", as st01 mlx5_0/1)"}));
  EXPECT_TRUE(find(layout, 0x0001).duplicates.empty());
  const auto lines = report_lines(layout, inv);
  // The inputs' problems (here cn02's inventory, which is not JSON) come before the members
  // they leave missing.
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "-:7: not JSON",
                       "missing member cn02 (partition 0x0001): no inventory",
                       "missing member cn03 (partition 0x0001): no port for ib0: the inventory "
                       "has no mlx5_0/1 (declared); InfiniBand ports it has: mlx5_1/1",
                       "GUID on two ports: " + guid(4) + " on st01 mlx5_0/1 and st02 mlx5_0/1",
                       "inventories of hosts not in the profile (left out): gpu01",
                       layout.warnings[0],
                   }));
}

TEST(PartitionsLayout, EveryResolvablePortOfTheHostsIsListedForVerify)
{
  const auto layout =
      build_layout(load(R"(version: 1
nodes:
  - hosts: cn01
    interfaces:
      - name: ib0
      - parent: ib0
        pkey: 0x8001
  - hosts: gw01
    interfaces:
      - name: ib0
        device: mlx5_0
        port: 1
      - name: ib1
        device: mlx5_1
        port: 1
      - name: ib2
        device: mlx5_2
        port: 1
)"),
                   [] {
                     Inventories inv;
                     inv.hosts["cn01"] = host("cn01", {{"mlx5_0", 1, guid(1), true}});
                     // gw01 is in Default alone; its mlx5_2 is missing.
                     inv.hosts["gw01"] =
                         host("gw01", {{"mlx5_0", 1, guid(3), true}, {"mlx5_1", 1, guid(2), true}});
                     return inv;
                   }());
  std::vector<std::string> ports;
  for (const auto& m : layout.ports) {
    ports.push_back(m.host + " " + port_name(m.device, m.port) + " " + m.guid);
  }
  EXPECT_EQ(ports, (std::vector<std::string>{"cn01 mlx5_0/1 " + guid(1), "gw01 mlx5_1/1 " + guid(2),
                                             "gw01 mlx5_0/1 " + guid(3)}));
  EXPECT_TRUE(layout_complete(layout));
}

TEST(PartitionsLayout, AGuidOnTwoPortsOfOneHostIsADuplicate)
{
  auto inv = full_inventories();
  inv.hosts["cn02"].ports.push_back({"mlx5_1", 1, guid(2), true});  // mlx5_0/1's GUID again
  const auto layout = build_layout(load(k_profile), inv);
  EXPECT_EQ(layout.duplicate_guids,
            (std::vector<std::string>{guid(2) + " on cn02 mlx5_0/1 and cn02 mlx5_1/1"}));
  EXPECT_FALSE(layout_complete(layout));
  EXPECT_EQ(report_lines(layout, inv).at(0),
            "GUID on two ports: " + guid(2) + " on cn02 mlx5_0/1 and cn02 mlx5_1/1");
}

TEST(PartitionsLayout, HostsWithoutPartitionsNeedNoInventory)
{
  const auto layout = build_layout(load(R"(version: 1
nodes:
  - hosts: cn[01-02]
    interfaces:
      - name: ib0
        ipv4: 10.0.0.0/24
)"),
                                   Inventories{});
  EXPECT_TRUE(layout_complete(layout));
  EXPECT_EQ(layout.partitions.size(), 1U);
  EXPECT_EQ(layout.warnings,
            (std::vector<std::string>{
                "the profile declares no pkey: only the Default partition",
                "no inventory for cn[01-02] (not needed: in no partition besides Default)"}));
}

TEST(PartitionsLayout, ProfileSectionNamesLimitsAndOverrides)
{
  const std::string text = std::string(k_profile) + R"(partitions:
  default:
    membership: limited
    mtu: 2048
  pkeys:
    - pkey: 0x8002
      name: storage
      rate: 100
      sl: 3
      limited: cn[01-02]
    - pkey: 0x0001
      mtu: 2048
      name: compute
    - pkey: 0x0003
      limited: st01
)";
  const auto profile = load(text);
  ASSERT_EQ(profile.warnings.size(), 2U);  // [0]: st's pkey 0x0002 lacks the full bit
  EXPECT_EQ(profile.warnings[1].format(),
            "cluster.yaml:35:13: warning: partitions.pkeys[2].pkey: no interface uses partition "
            "0x0003; its partition has only limited members, which cannot reach each other");
  const auto layout = build_layout(profile, full_inventories());
  const auto& def = find(layout, 0x7fff);
  EXPECT_FALSE(def.all_full);
  EXPECT_TRUE(def.all_limited);
  EXPECT_EQ(def.mtu_code, 4);
  const auto& storage = find(layout, 0x0002);
  EXPECT_EQ(storage.name, "storage");
  EXPECT_EQ(storage.rate_code, 16);
  EXPECT_EQ(storage.sl, 3);
  EXPECT_EQ(
      member_hosts(storage),
      (std::vector<std::string>{"cn01 mlx5_0/1 limited", "cn02 mlx5_0/1 limited",
                                "st01 mlx5_0/1 full", "st02 mlx5_0/1 full", "st03 mlx5_0/1 full"}));
  EXPECT_EQ(find(layout, 0x0001).mtu_code, 4);  // the profile's, below what cn need: warned
  const auto& only_limited = find(layout, 0x0003);
  EXPECT_FALSE(only_limited.ipoib);
  EXPECT_EQ(member_hosts(only_limited), (std::vector<std::string>{"st01 mlx5_0/1 limited"}));
  EXPECT_EQ(layout.warnings,
            (std::vector<std::string>{
                "partition 0x7fff (Default): mtu 2048 (partitions.default.mtu) is below the 4096 "
                "that cn[01-03] need; their IPoIB cannot join it",
                "partition 0x0001 (compute): mtu 2048 (partitions.pkeys[1].mtu) is below the "
                "4096 that cn[01-03] need; their IPoIB cannot join it"}));
}

TEST(PartitionsLayout, AFullMemberListedAsLimitedStaysFull)
{
  const std::string text = std::string(k_profile) + R"(partitions:
  pkeys:
    - pkey: 0x8001
      limited: cn01
)";
  const auto layout = build_layout(load(text), full_inventories());
  EXPECT_TRUE(find(layout, 0x0001).members[0].full);
  ASSERT_EQ(layout.warnings.size(), 2U);
  EXPECT_EQ(layout.warnings[1],
            "cn01 mlx5_0/1 is a full member of 0x0001 (ib_8001) and listed in its limited "
            "members (partitions.pkeys[0].limited); written as full");
}

// A profile may name its hosts in full; the inventory readers key every host by its short
// name (what clush and the files give may be either). Every member used to be missing and
// every inventory "not in the profile".
TEST(PartitionsLayout, AProfileOfFullNamesFindsTheShortNamedInventories)
{
  std::string text = k_profile;
  text.replace(text.find("cn[01-03]"), 9, "cn[01-03].site.example");
  const auto layout = build_layout(load(text), full_inventories());
  EXPECT_EQ(member_hosts(find(layout, 0x0001)),
            (std::vector<std::string>{"cn01.site.example mlx5_0/1 full",
                                      "cn02.site.example mlx5_0/1 full",
                                      "cn03.site.example mlx5_0/1 full"}));
  EXPECT_TRUE(layout.missing.empty());
  EXPECT_TRUE(layout.unknown_hosts.empty());
  EXPECT_TRUE(layout_complete(layout));
}

// Two hosts of one short name: an inventory under that name could be either's, so it is
// neither's (both missing), and it is reported as not in the profile.
TEST(PartitionsLayout, AShortNameOfTwoProfileHostsIsNeithers)
{
  std::string text = k_profile;
  text.replace(text.find("cn[01-03]"), 9, "cn01.a,cn01.b");
  auto inv = full_inventories();
  const auto layout = build_layout(load(text), inv);
  std::string missing;
  for (const auto& m : layout.missing) {
    missing += m.host + " ";
  }
  EXPECT_EQ(missing, "cn01.a cn01.b ");
  EXPECT_EQ(layout.unknown_hosts, (std::vector<std::string>{"cn01", "cn02", "cn03"}));
}

// cn01 and cn01.site in one profile: the readers shorten cn01.site's inventory to cn01, and
// its port used to become a full member of cn01's partitions, exit 0. Each host now takes only
// an inventory given under its own name, from every kind of source.
TEST(PartitionsLayout, AFullNamesInventoryIsNotItsShortNamesNeighbours)
{
  const auto profile = load(R"(version: 1
nodes:
  - hosts: cn01
    interfaces: [{name: ib0}, {parent: ib0, pkey: 0x8001}]
  - hosts: cn01.site
    interfaces: [{name: ib0}, {parent: ib0, pkey: 0x8002}]
)");
  const std::string inspect =
      R"({"devices":[{"name":"mlx5_0","ports":[{"port":1,"port_guid":"0xaa",)"
      R"("link_layer":"InfiniBand"}]}]})";
  const std::string topology =
      "Ca\t1 \"H-00000000000000aa\"\t\t# \"cn01.site mlx5_0\"\n"
      "[1](aa) \t\"S-b8599f0300c0a1b0\"[1]\t\t# lid 5 lmc 0 \"MF0;leaf01\" lid 1 4xHDR\n";
  for (const std::string& source :
       {"cn01.site: " + inspect + "\n", "{\"host\":\"cn01.site\"," + inspect.substr(1) + "\n",
        topology}) {
    const auto inv = parse_source_text(source, "-");
    ASSERT_EQ(inv.hosts.count("cn01"), 1U) << source;
    const auto layout = build_layout(profile, inv);
    EXPECT_TRUE(find(layout, 0x0001).members.empty()) << source;
    EXPECT_EQ(member_hosts(find(layout, 0x0002)),
              (std::vector<std::string>{"cn01.site mlx5_0/1 full"}))
        << source;
  }
  // Given under the short name, it is cn01's and not cn01.site's.
  const auto inv = parse_source_text("cn01: " + inspect + "\n", "-");
  const auto layout = build_layout(profile, inv);
  EXPECT_EQ(member_hosts(find(layout, 0x0001)), (std::vector<std::string>{"cn01 mlx5_0/1 full"}));
  std::string missing;
  for (const auto& m : layout.missing) {
    missing += m.host + " ";
  }
  EXPECT_EQ(missing, "cn01.site ");
  // Both in one topology, on two HCAs: one short name, so neither is kept (cn01.site's port
  // was merged into cn01's inventory and became its member, exit 0).
  const auto both = parse_source_text(
      "Ca\t1 \"H-00000000000000aa\"\t\t# \"cn01.site mlx5_0\"\n"
      "[1](aa) \t\"S-b8599f0300c0a1b0\"[1]\t\t# lid 5 lmc 0 \"MF0;leaf01\" lid 1 4xHDR\n"
      "Ca\t1 \"H-00000000000000bb\"\t\t# \"cn01 mlx5_1\"\n"
      "[1](bb) \t\"S-b8599f0300c0a1b0\"[2]\t\t# lid 6 lmc 0 \"MF0;leaf01\" lid 1 4xHDR\n",
      "topo.txt");
  EXPECT_EQ(both.hosts.count("cn01"), 0U);
  ASSERT_FALSE(both.problems.empty());
  EXPECT_NE(both.problems[0].message.find("go by one short name, cn01"), std::string::npos)
      << both.problems[0].message;
  const auto both_layout = build_layout(profile, both);
  EXPECT_TRUE(find(both_layout, 0x0001).members.empty());
  EXPECT_TRUE(find(both_layout, 0x0002).members.empty());
}
