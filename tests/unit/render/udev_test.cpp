// render --format udev: rules naming base interfaces by port GUID (issue 16 item 6), from
// inventories (real inspect --json output of the sysfs fixtures) and from a captured sysfs tree.
#include "render/udev.hpp"

#include "gtest_compat.hpp"
#include "test_util.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/profile.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace ibsetup::render {
namespace {

namespace fs = std::filesystem;

const std::string k_inventories = std::string(IBSETUP_TEST_DATA) + "/partitions/udev";
const fs::path k_golden = fs::path(IBSETUP_TEST_DATA) / "render" / "udev" / "lab01.rules";

profile::ResolvedNode lab(const std::string& host)
{
  const auto p = profile::load_profile(std::string(IBSETUP_PROFILES) + "/lab.yaml");
  return profile::resolve_node(p, host);
}

// One group of one host with the given interfaces (YAML list items).
profile::ResolvedNode node_with(const std::string& interfaces)
{
  const auto p = profile::load_profile_text(
      "version: 1\n"
      "nodes:\n"
      "  - hosts: cn01\n"
      "    interfaces:\n" +
          interfaces,
      "cluster.yaml");
  return profile::resolve_node(p, "cn01");
}

partitions::InventoryHost two_ports()
{
  partitions::InventoryHost h;
  h.host = "cn01";
  h.ports = {{"mlx5_0", 1, "0x0c42a1030016e7e0", true},
             {"mlx5_1", 1, "0x0c42a1030016e7f8", true},
             {"mlx5_2", 1, "0x0c42a1030016e800", false}};  // RoCE: never a candidate
  return h;
}

std::string error_of(const profile::ResolvedNode& node, const partitions::InventoryHost& host)
{
  try {
    render_udev(node, host);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(UdevTest, LabNodeMatchesTheGoldenFile)
{
  const auto node = lab("lab01");
  const auto file = render_udev(node, udev_inventory(node, k_inventories, "/sys"));
  EXPECT_EQ(file.path, "etc/udev/rules.d/70-ibsetup-ipoib.rules");
  EXPECT_EQ(file.mode, 0644U);
  if (std::getenv("IBSETUP_UPDATE_GOLDEN") != nullptr) {
    fs::create_directories(k_golden.parent_path());
    std::ofstream(k_golden) << file.content;
  }
  EXPECT_EQ(test::read_text(k_golden), file.content);
  // One rule per base interface; the pkey child ib0.8010 gets none.
  EXPECT_NE(file.content.find("ATTR{address}==\"?*:0c:42:a1:03:00:16:e7:e0\", NAME=\"ib0\"\n"),
            std::string::npos);
  EXPECT_NE(file.content.find("ATTR{address}==\"?*:0c:42:a1:03:00:16:e7:f8\", NAME=\"ib1\"\n"),
            std::string::npos);
  EXPECT_EQ(file.content.find("8010"), std::string::npos);
}

TEST(UdevTest, PortFromBindingThenOnlyPort)
{
  auto host = two_ports();
  host.netdevs["ib7"] = {"mlx5_1", 1};
  const auto rules = render_udev(node_with("      - name: ib7\n"), host).content;
  EXPECT_NE(rules.find("# ib7: mlx5_1/1 (0x0c42a1030016e7f8), found by the inventory's ib7\n"),
            std::string::npos)
      << rules;
  host.ports.erase(host.ports.begin() + 1);  // one InfiniBand port left (and the RoCE one)
  host.netdevs.clear();
  const auto only = render_udev(node_with("      - name: ib7\n"), host).content;
  EXPECT_NE(only.find("mlx5_0/1 (0x0c42a1030016e7e0), found by the only InfiniBand port"),
            std::string::npos)
      << only;
}

TEST(UdevTest, UnresolvedPortsAreErrorsNamingTheCandidates)
{
  const auto host = two_ports();
  EXPECT_EQ(error_of(node_with("      - name: ib0\n"), host),
            "cn01: which port ib0 is on is unknown: declare device and port in the profile "
            "(InfiniBand ports: mlx5_0/1 (0x0c42a1030016e7e0), mlx5_1/1 (0x0c42a1030016e7f8))");
  EXPECT_EQ(error_of(node_with("      - {name: ib0, device: mlx5_2, port: 1}\n"), host),
            "cn01: ib0 is declared on mlx5_2 port 1, which the inventory lacks (InfiniBand "
            "ports: mlx5_0/1 (0x0c42a1030016e7e0), mlx5_1/1 (0x0c42a1030016e7f8))");
  EXPECT_EQ(error_of(node_with("      - {name: ib0, device: mlx5_0, port: 1}\n"
                               "      - {name: ib1, device: mlx5_0, port: 1}\n"),
                     host),
            "cn01: ib1 and ib0 are both on mlx5_0/1 (0x0c42a1030016e7e0)");
  EXPECT_EQ(error_of(node_with("      []\n"), host),
            "cn01 has no base IPoIB interface in the profile: nothing to name");
}

TEST(UdevTest, InventoryFromACapturedSysfsTree)
{
  // A captured tree is not this host's /sys: no host-name check, the tree is the node's.
  const auto node = lab("lab03");
  const auto host = udev_inventory(node, "", std::string(IBSETUP_FIXTURES) + "/sysfs/hdr-2hca");
  EXPECT_EQ(host.host, "lab03");
  ASSERT_EQ(host.ports.size(), 2U);
  EXPECT_EQ(host.ports[0].guid, "0x0c42a1030016e7e0");
  EXPECT_EQ(host.netdevs.at("ib1"), std::make_pair(std::string("mlx5_1"), 1));
}

TEST(UdevTest, NodeMissingFromTheInventories)
{
  try {
    udev_inventory(lab("lab04"), k_inventories, "/sys");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("has no inventory of lab04"), std::string::npos)
        << e.what();
  }
}

// The inventories' problems are listed on the error's one line: a newline in it reached the
// terminal as a literal "\n" (the error printer escapes it).
TEST(UdevTest, TheInventoriesProblemsAreListedOnOneLine)
{
  ibsetup::test::TempDir dir;
  std::ofstream(dir.path() / "lab04.json")
      << "{\"host\":\"elsewhere\",\"devices\":[],\"netdevs\":[],\"warnings\":[]}\n";
  std::ofstream(dir.path() / "lab03.json") << "{\n";
  try {
    udev_inventory(lab("lab04"), dir.path().string(), "/sys");
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(std::string::npos, what.find('\n')) << what;
    EXPECT_NE(std::string::npos, what.find("has no inventory of lab04; its problems: ")) << what;
    EXPECT_NE(std::string::npos, what.find("lab04.json: ")) << what;
    EXPECT_NE(std::string::npos, what.find("; ")) << what;
  }
}

// A port of the node left out for a problem (a GUID that does not parse) made its other port
// "the only InfiniBand port": the rule named the wrong port, exit 0. Now the node's own
// problems stop the render; another host's are warnings.
TEST(UdevTest, AProblemInTheNodesOwnEntryStopsTheRules)
{
  ibsetup::test::TempDir dir;
  const auto node = node_with("      - name: fab0\n");
  std::ofstream(dir.path() / "cn01.json")
      << R"({"host":"cn01","devices":[{"name":"mlx5_0","ports":[{"port":1,)"
      << R"("link_layer":"InfiniBand","port_guid":"0x0c42a1030016e7eZ"}]},)"
      << R"({"name":"mlx5_1","ports":[{"port":1,"link_layer":"InfiniBand",)"
      << R"("port_guid":"0x0c42a1030016e7f8"}]}],"netdevs":[]})"
      << "\n";
  try {
    udev_inventory(node, dir.path().string(), "/sys");
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(std::string::npos, what.find("cn01.json: a port of cn01 was left out for a problem, "
                                           "so no rule is written"))
        << what;
    EXPECT_NE(std::string::npos, what.find("is not a GUID")) << what;
  }
  // The same port problem on another host's entry: a warning, and cn01's rules are written.
  ibsetup::test::TempDir other;
  std::ofstream(other.path() / "cn01.json")
      << R"({"host":"cn01","devices":[{"name":"mlx5_1","ports":[{"port":1,)"
      << R"("link_layer":"InfiniBand","port_guid":"0x0c42a1030016e7f8"}]}],"netdevs":[]})"
      << "\n";
  std::ofstream(other.path() / "cn02.json")
      << R"({"host":"cn02","devices":[{"name":"mlx5_0","ports":[{"port":1,)"
      << R"("link_layer":"InfiniBand","port_guid":"zz"}]}],"netdevs":[]})"
      << "\n";
  std::vector<std::string> warnings;
  const auto host = udev_inventory(node, other.path().string(), "/sys", &warnings);
  EXPECT_EQ(host.ports.size(), 1U);
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_NE(std::string::npos, warnings[0].find("cn02.json: ")) << warnings[0];
  // An ibnetdiscover topology: the bad port line is not where the host's entry starts, and it
  // stopped nothing (the review's case).
  ibsetup::test::TempDir topo;
  std::ofstream(topo.path() / "topo.txt")
      << "Ca\t2 \"H-0c42a1030016e7e0\"\t\t# \"cn01 mlx5_0\"\n"
      << "[1](c42a1030016e7e0) \t\"S-b8599f0300c0a1b0\"[1]\t\t# lid 5 lmc 0 \"sw\" lid 1 4xHDR\n"
      << "[2](c42a1030016e7eZ) \t\"S-b8599f0300c0a1b0\"[2]\t\t# lid 6 lmc 0 \"sw\" lid 1 4xHDR\n";
  try {
    udev_inventory(node, (topo.path() / "topo.txt").string(), "/sys");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string::npos, std::string(e.what()).find("a port of cn01 was left out"))
        << e.what();
  }
}

TEST(UdevTest, KernelNamesAreWarned)
{
  const auto node = node_with(
      "      - name: ib0\n"
      "      - name: ib12\n"
      "      - name: ibfab0\n"
      "      - name: ib-0\n"
      "      - parent: ib0\n"
      "        pkey: 0x8001\n");
  const auto warnings = udev_name_warnings(node);
  ASSERT_EQ(warnings.size(), 2U);
  EXPECT_EQ(warnings[0],
            "cn01: ib0 is a name the kernel gives IPoIB interfaces (ib<N>): when two ports come up "
            "in the other order, udev cannot rename one to ib0 while the other holds it (EEXIST) "
            "and the names stay swapped; a name outside ib<N> (such as ib-0 or fab0) avoids that");
  EXPECT_EQ(warnings[1].compare(0, 10, "cn01: ib12"), 0) << warnings[1];
  test::TempDir root;
  NodeOptions o;
  o.root = root.path().string();
  std::vector<std::string> from_render;
  render_udev_node(lab("lab01"), o, k_inventories, "/sys", &from_render);
  ASSERT_EQ(from_render.size(), 2U);  // lab01 names ib0 and ib1
  EXPECT_EQ(from_render[1].compare(0, 11, "lab01: ib1 "), 0) << from_render[1];
}

TEST(UdevTest, WrittenThroughTheSafeWriter)
{
  test::TempDir root;
  NodeOptions o;
  o.root = root.path().string();
  const auto node = lab("lab02");
  EXPECT_THROW(render_udev_node(node, o, k_inventories), InputError);  // ib1's mlx5_1 is absent
  const auto first = render_udev_node(lab("lab01"), o, k_inventories);
  ASSERT_EQ(first.size(), 1U);
  EXPECT_EQ(first[0].result, WriteResult::created);
  EXPECT_EQ(test::read_text(root.path() / "etc/udev/rules.d/70-ibsetup-ipoib.rules"),
            first[0].file.content);
  EXPECT_EQ(render_udev_node(lab("lab01"), o, k_inventories)[0].result, WriteResult::unchanged);
  o.root.clear();
  EXPECT_THROW(render_udev_node(lab("lab01"), o, k_inventories), Error);
}

}  // namespace
}  // namespace ibsetup::render
