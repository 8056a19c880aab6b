// Reading saved inventories (`check --inventory`): strict JSON and the documented shape.
#include "test_util.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/inventory.hpp>

#include <gtest/gtest.h>

#include <filesystem>

using namespace ibsetup;

namespace {

std::string saved()
{
  return test::read_text(std::filesystem::path(IBSETUP_TEST_DATA) / "plan" / "base-missing" /
                         "observed.json");
}

// The saved inventory with its first `from` replaced by `to`.
std::string edited(const std::string& from, const std::string& to)
{
  auto text = saved();
  const auto at = text.find(from);
  EXPECT_NE(std::string::npos, at) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

std::string failure(const std::string& text)
{
  try {
    (void)inventory::host_from_json(text);
    return "accepted";
  } catch (const InputError& e) {
    return e.what();
  }
}

TEST(InventoryJson, RoundTripsTheSavedForm)
{
  const auto host = inventory::host_from_json(saved());
  EXPECT_EQ("n1", host.host);
  ASSERT_FALSE(host.devices.empty());
  EXPECT_EQ("mlx5_0", host.devices[0].name);
  EXPECT_EQ(inventory::host_to_json(host),
            inventory::host_to_json(inventory::host_from_json(inventory::host_to_json(host))));
}

// host_to_json(host_from_json(x)) == x for every inspect --json document the tests keep, and
// for what inspect writes of every sysfs fixture: the typed model loses nothing JSON shows.
TEST(InventoryJson, FixturesRoundTripByteForByte)
{
  const std::filesystem::path data(IBSETUP_TEST_DATA);
  std::vector<std::string> documents = {
      test::read_text(data / ".." / "fixtures" / "inspect-hdr-2hca.json")};
  for (const auto& e : std::filesystem::directory_iterator(data / "plan")) {
    if (e.is_directory()) {
      // Saved pretty-printed: compared in the form host_to_json writes.
      documents.push_back(inventory::host_to_json(
          inventory::host_from_json(test::read_text(e.path() / "observed.json"))));
    }
  }
  for (const auto& e : std::filesystem::directory_iterator(data / ".." / "fixtures" / "sysfs")) {
    if (e.is_directory()) {
      inventory::Options o;
      o.sysfs_root = e.path().string();
      documents.push_back(inventory::host_to_json(inventory::inspect(o)));
    }
  }
  ASSERT_GT(documents.size(), 20U);
  for (const auto& x : documents) {
    EXPECT_EQ(x, inventory::host_to_json(inventory::host_from_json(x)));
  }
}

// A saved inventory gives the port state codes the sysfs it was taken from gave: the metrics
// of `check --inventory` showed every port as down (state 0) on a healthy node.
TEST(InventoryJson, PortStateCodesComeBackFromTheNames)
{
  size_t ports = 0;
  for (const auto& e : std::filesystem::directory_iterator(
           std::filesystem::path(IBSETUP_TEST_DATA) / ".." / "fixtures" / "sysfs")) {
    if (!e.is_directory()) {
      continue;
    }
    inventory::Options o;
    o.sysfs_root = e.path().string();
    const auto live = inventory::inspect(o);
    const auto saved = inventory::host_from_json(inventory::host_to_json(live));
    ASSERT_EQ(live.devices.size(), saved.devices.size()) << e.path();
    for (size_t d = 0; d < live.devices.size(); ++d) {
      ASSERT_EQ(live.devices[d].ports.size(), saved.devices[d].ports.size()) << e.path();
      for (size_t p = 0; p < live.devices[d].ports.size(); ++p) {
        const auto& a = live.devices[d].ports[p];
        const auto& b = saved.devices[d].ports[p];
        EXPECT_EQ(a.state_code, b.state_code) << e.path() << " port " << a.port;
        EXPECT_EQ(a.phys_state_code, b.phys_state_code) << e.path() << " port " << a.port;
        ports += a.state_code ? 1 : 0;
      }
    }
  }
  EXPECT_GE(ports, 20U);  // every fixture's ports, not an empty loop
}

// LIDs are never negative, nor wider than the sysfs reader reads them; the LMC is 3 bits.
TEST(InventoryJson, LidsOutOfRangeAreRefused)
{
  EXPECT_EQ("devices[0].ports[0].lid: -5 is out of range (0 to 2147483647)",
            failure(edited("\"lid\": 5", "\"lid\": -5")));
  EXPECT_EQ("devices[0].ports[0].sm_lid: -1 is out of range (0 to 2147483647)",
            failure(edited("\"sm_lid\": 1", "\"sm_lid\": -1")));
  EXPECT_EQ("devices[0].ports[0].lmc: 8 is out of range (0 to 7)",
            failure(edited("\"lmc\": 0", "\"lmc\": 8")));
  EXPECT_EQ("accepted", failure(edited("\"lid\": 5", "\"lid\": 65536")));  // OPA
}

// Widths, speeds and MTUs inspect never writes: a negative width showed as `PCIe link x-16`,
// and an IB MTU of 123 made check expect an IPoIB MTU of 119.
TEST(InventoryJson, LinkAndMtuValuesOutOfRangeAreRefused)
{
  EXPECT_EQ("devices[0].pci.link_width: -16 is out of range (0 to 63)",
            failure(edited("\"link_width\": 16", "\"link_width\": -16")));
  EXPECT_EQ("devices[0].pci.max_link_width: 64 is out of range (0 to 63)",
            failure(edited("\"max_link_width\": 16", "\"max_link_width\": 64")));
  EXPECT_EQ("devices[0].pci.numa_node: -2 is out of range (-1 to 65536)",
            failure(edited("\"numa_node\": 0", "\"numa_node\": -2")));
  EXPECT_EQ("accepted", failure(edited("\"numa_node\": 0", "\"numa_node\": -1")));
  EXPECT_EQ("devices[0].pci.link_speed_gts: -16 GT/s is no PCIe link's speed (0 to 1000)",
            failure(edited("\"link_speed_gts\": 16.0", "\"link_speed_gts\": -16.0")));
  EXPECT_EQ("devices[0].ports[0].active_mtu: 123 is not an IB MTU (256, 512, 1024, 2048 or 4096)",
            failure(edited("\"active_mtu\": 4096", "\"active_mtu\": 123")));
  EXPECT_EQ("netdevs[0].mtu: -1 is out of range (0 to 2147483647)",
            failure(edited("\"mtu\": 4092", "\"mtu\": -1")));
}

// Addresses are typed when read: one that is not CIDR is left out with a warning naming it
// (the planner always ignored such an address).
TEST(InventoryJson, AddressThatIsNotCidrIsLeftOutWithAWarning)
{
  const auto text = test::read_text(std::filesystem::path(IBSETUP_TEST_DATA) / "plan" /
                                    "extra-addresses" / "observed.json");
  const auto at = text.find("\"10.11.0.1/16\"");
  ASSERT_NE(std::string::npos, at);
  const auto host = inventory::host_from_json(
      std::string(text).replace(at, 14, "\"10.11.0.1\", \"10.11.0.2/16\""));
  ASSERT_EQ(2U, host.netdevs.size());
  ASSERT_EQ(1U, host.netdevs[1].addresses.size());
  EXPECT_EQ("10.11.0.2/16", host.netdevs[1].addresses[0].str());
  EXPECT_EQ(std::vector<std::string>{"netdevs[1].addresses[0]: cannot parse the address "
                                     "'10.11.0.1' (expected ADDRESS/LENGTH), ignored"},
            host.warnings);
  ASSERT_EQ(2U, host.netdevs[0].addresses.size());
  EXPECT_EQ(inventory::IpoibMode::datagram, host.netdevs[0].mode->value);
  EXPECT_EQ(inventory::LinkLayer::infiniband, host.devices[0].ports[0].link_layer->value);
}

TEST(InventoryJson, InvalidJsonNamesLineAndColumn)
{
  const std::pair<std::string, std::string> cases[] = {
      {edited("\"link_width\": 16", "\"link_width\": NaN"), "line 19, column 19: "},
      {edited("\"link_width\": 16", "\"link_width\": 016"), "line 19, column 21: "},
      {edited("\"link_width\": 16", "\"link_width\": +16"), "line 19, column 19: "},
      {edited("\"n1\"", "\"n1\\udc00\""), "line 2, column 18: "},
      {edited("\"n1\"", "[" + std::string(100000, '[')),
       "line 2, column 73: arrays and objects "
       "nested deeper than 64"},
      {edited("\"host\": \"n1\",", "\"host\": \"n1\", \"host\": \"n2\","),
       "line 2, column 16: duplicate key host"},
  };
  for (const auto& [text, message] : cases) {
    const auto what = failure(text);
    EXPECT_EQ(0U, what.find(message)) << what;
  }
}

TEST(InventoryJson, WrongShapeNamesTheMember)
{
  EXPECT_EQ("devices[0].pci.link_width: expected an integer, got a string",
            failure(edited("\"link_width\": 16", "\"link_width\": \"16\"")));
  EXPECT_EQ("devices[0].pci.link_width: expected an integer, got 16.5",
            failure(edited("\"link_width\": 16", "\"link_width\": 16.5")));
  EXPECT_EQ("devices[0].pci.link_width: expected an integer, got 16.0",
            failure(edited("\"link_width\": 16", "\"link_width\": 16.0")));
  // Beyond 64 bits the parser holds a whole number as a double: it is out of range, not a
  // fraction.
  EXPECT_EQ("devices[0].ports[0].lid: 1.8446744073709552e+19 is out of range",
            failure(edited("\"lid\": 5", "\"lid\": 18446744073709551616")));
  EXPECT_EQ("host: expected a string, got null", failure(edited("\"host\": \"n1\",", "")));
  EXPECT_EQ("expected an object, got an array", failure("[]"));
}

// What the planner and the checks rely on is checked when the inventory is read: a netdev on
// a port its HCA does not list made `check --inventory` read a port that was not there (a
// crash, found by an attack on the inventory reader).
TEST(InventoryJson, BrokenReferencesAreRefusedNamingThePlace)
{
  EXPECT_EQ("netdevs[0].port: ib0 is on mlx5_0 port 2, which the inventory does not list",
            failure(edited("\"device\": \"mlx5_0\",\n   \"port\": 1",
                           "\"device\": \"mlx5_0\",\n   \"port\": 2")));
  EXPECT_EQ("netdevs[0].device: ib0 is on mlx5_9, which the inventory does not list",
            failure(edited("\"device\": \"mlx5_0\",\n   \"port\": 1",
                           "\"device\": \"mlx5_9\",\n   \"port\": 1")));
  EXPECT_EQ("netdevs[0]: ib0 has a device but no port",
            failure(edited("\"device\": \"mlx5_0\",\n   \"port\": 1",
                           "\"device\": \"mlx5_0\",\n   \"port\": null")));
  EXPECT_EQ("devices[0].ports[0].port: 0 is a switch's port, and mlx5_0 is not a switch",
            failure(edited("\"port\": 1", "\"port\": 0")));
  EXPECT_EQ("devices[0].ports[0].port: 256 is not a port number (1 to 255, or a switch's 0)",
            failure(edited("\"port\": 1", "\"port\": 256")));
  EXPECT_EQ("devices[0].ports[0].port: -5 is not a port number (1 to 255, or a switch's 0)",
            failure(edited("\"port\": 1", "\"port\": -5")));
  EXPECT_EQ("devices[1].name: mlx5_0 is listed twice (devices[0])",
            failure(edited("\"name\": \"mlx5_1\"", "\"name\": \"mlx5_0\"")));
  EXPECT_EQ("netdevs[1].name: ib0 is listed twice (netdevs[0])",
            failure(edited("\"name\": \"ib1\"", "\"name\": \"ib0\"")));
  // The saved form itself is accepted (RoundTripsTheSavedForm), and so is an unbound netdev.
  EXPECT_EQ("accepted", failure(edited("\"device\": \"mlx5_0\",\n   \"port\": 1",
                                       "\"device\": null,\n   \"port\": null")));
}

TEST(InventoryJson, APKeyThatDoesNotParseIsLeftOutWithAWarning)
{
  const auto text = saved();
  const auto at = text.find("\"pkeys\": [");
  ASSERT_NE(std::string::npos, at);
  const auto host = inventory::host_from_json(std::string(text).insert(at + 11, "\"0xfffff\", "));
  EXPECT_EQ(std::vector<std::string>{"devices[0].ports[0].pkeys[0]: cannot parse the P_Key "
                                     "'0xfffff' (expected 0xNNNN), ignored"},
            host.warnings);
}

}  // namespace
