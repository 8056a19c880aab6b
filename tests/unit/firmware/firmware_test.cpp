// mstconfig output parsing over every real capture, and the firmware step's logic with a fake
// tool.
#include "gtest_compat.hpp"
#include "test_util.hpp"
#include "common/termination_guard.hpp"
#include "firmware/reboot.hpp"

#include <ibsetup/firmware.hpp>

#include <unistd.h>

#include <csignal>
#include <iostream>
#include <map>
#include <regex>
#include <set>

namespace ibsetup::firmware {
namespace {

using profile::LinkType;

const std::filesystem::path k_captures = IBSETUP_FIXTURES "/mstconfig";

// The mstconfig outputs in a capture: the header comments, the author's prompt and command
// lines and the '...' of a cut listing are not mstconfig's; a command line starts a new output.
std::vector<std::string> outputs(const std::string& file)
{
  static const std::regex k_command(
      R"(^(# (source|note):|\S+@\S+.*[#$]( |$)|\[\S+@.*\]#|\$ |sh-[0-9.]+# |(sudo )?m(st|lx)config ))");
  std::vector<std::string> out{""};
  std::istringstream in(test::read_text(k_captures / file));
  std::string line;
  while (std::getline(in, line)) {
    if (std::regex_search(line, k_command)) {
      if (!out.back().empty()) {
        out.emplace_back();
      }
      continue;
    }
    if (line != "...") {
      out.back() += line + "\n";
    }
  }
  if (out.back().empty() && out.size() > 1) {
    out.pop_back();
  }
  return out;
}

struct Expected {
  std::optional<std::string> device;
  std::vector<std::string> columns;
  std::optional<std::string> p1;  // Next Boot
  std::optional<std::string> p2;
  std::optional<std::string> p1_new;
  std::optional<std::string> p2_new;
  std::vector<std::string> errors;
  bool semaphore = false;
  bool applied = false;
};

const std::map<std::string, Expected>& expectations()
{
  const std::vector<std::string> nb{"Next Boot"};
  const std::vector<std::string> nb_new{"Next Boot", "New"};
  static const std::map<std::string, Expected> k{
      {"1.txt", {"/dev/mst/mt4115_pciconf0", {}, "ETH(2)", {}, {}, {}, {}, false, false}},
      {"2.txt", {"/dev/mst/mt4103_pci_cr0", nb, "ETH(2)", "ETH(2)", {}, {}, {}, false, false}},
      {"3.txt", {"/dev/mst/mt4103_pciconf0", nb, "VPI(3)", "VPI(3)", {}, {}, {}, false, false}},
      {"4.txt", {"/dev/mst/mt4099_pciconf0", nb, "ETH(2)", "ETH(2)", {}, {}, {}, false, false}},
      {"5.txt",
       {"/dev/mst/mtxxxx_pciconf0", nb_new, "IB(1)", "IB(1)", "ETH(2)", "ETH(2)", {}, false, true}},
      {"6.txt",
       {"/dev/mst/mt4103_pci_cr0", nb_new, "ETH(2)", "ETH(2)", "IB(1)", "IB(1)", {}, false, true}},
      {"7.txt", {"0005:03:00.0", nb_new, "ETH(2)", "IB(1)", "ETH(2)", "ETH(2)", {}, false, true}},
      {"8.txt", {{}, {}, "IB(1)", "IB(1)", {}, {}, {}, false, false}},
      {"9.txt",
       {"/dev/mst/mt4123_pciconf0", nb_new, "IB(1)", "IB(1)", "ETH(2)", "ETH(2)", {}, false, true}},
      {"10.txt", {"/dev/mst/mt4103_pciconf0", nb_new, "IB(1)", {}, "ETH(2)", {}, {}, false, true}},
      {"11.txt", {{}, {}, {}, {}, {}, {}, {"Failed to open the device"}, true, false}},
      {"13.txt", {{}, {}, {}, {}, {}, {}, {"Unsupported device"}, false, false}},
      {"14.txt", {"0000:05:00.0", nb, "ETH(2)", "VPI(3)", {}, {}, {}, false, false}},
      {"15.txt", {"0000:0d:00.0", nb_new, {}, {}, {}, {}, {}, false, true}},
  };
  return k;
}

TEST(MstconfigParse, EveryCaptureHasAnExpectation)
{
  const auto files = test::files_with(k_captures, ".txt");
  EXPECT_EQ(files.size(), expectations().size());
  for (const auto& f : files) {
    EXPECT_EQ(expectations().count(f.filename().string()), 1U) << f;
  }
}

TEST(MstconfigParse, EveryCapture)
{
  for (const auto& [file, want] : expectations()) {
    const auto texts = outputs(file);
    ASSERT_EQ(texts.size(), file == "8.txt" ? 2U : 1U) << file;
    for (const auto& text : texts) {
      SCOPED_TRACE(file);
      MstconfigOutput got;
      ASSERT_NO_THROW(got = parse_mstconfig(text)) << text;
      EXPECT_EQ(got.device, want.device);
      EXPECT_EQ(got.columns, want.columns);
      EXPECT_EQ(got.value("LINK_TYPE_P1"), want.p1);
      EXPECT_EQ(got.value("LINK_TYPE_P2"), want.p2);
      EXPECT_EQ(got.value("LINK_TYPE_P1", "New"), want.p1_new);
      EXPECT_EQ(got.value("LINK_TYPE_P2", "New"), want.p2_new);
      EXPECT_EQ(got.errors, want.errors);
      EXPECT_EQ(got.semaphore_denied, want.semaphore);
      EXPECT_EQ(got.applied, want.applied);
      EXPECT_EQ(got.reboot_notice, want.applied);
    }
  }
}

TEST(MstconfigParse, OtherParametersAreKept)
{
  const auto got = parse_mstconfig(outputs("15.txt").front());
  EXPECT_EQ(got.device_type, "ConnectX5");
  EXPECT_EQ(got.value("NUM_OF_VFS", "New"), "4");
  EXPECT_EQ(parse_mstconfig(outputs("2.txt").front()).parameters.size(), 28U);
  EXPECT_EQ(parse_mstconfig(outputs("1.txt").front()).value("NUM_OF_VFS"), "8");
}

TEST(MstconfigParse, TabsAndExtendedColumns)
{
  const auto tabs = parse_mstconfig(
      "Device:\t0000:3b:00.0\nConfigurations:\tNext Boot\n\tLINK_TYPE_P1\t\tIB(1)\t\n");
  EXPECT_EQ(tabs.value("LINK_TYPE_P1"), "IB(1)");
  const auto e = parse_mstconfig(
      "Configurations:          Default    Current     Next Boot\n"
      "*        LINK_TYPE_P1    VPI(3)     IB(1)       ETH(2)\n"
      "         LINK_TYPE_P2    VPI(3)     IB(1)       IB(1)\n"
      "The '*' shows parameters with next value different from default/current value.\n");
  EXPECT_EQ(e.columns, (std::vector<std::string>{"Default", "Current", "Next Boot"}));
  EXPECT_EQ(e.value("LINK_TYPE_P1"), "ETH(2)");
  EXPECT_EQ(e.value("LINK_TYPE_P1", "Current"), "IB(1)");
  EXPECT_EQ(e.value("LINK_TYPE_P2"), "IB(1)");
  EXPECT_EQ(parse_mstconfig("Configurations:   Next   Boot\n LINK_TYPE_P1 IB(1)\r\n")
                .value("LINK_TYPE_P1"),
            "IB(1)");
}

TEST(MstconfigParse, ValueNeverIndexesPastTheValues)
{
  MstconfigOutput out;
  out.columns = {"Default", "Current", "Next Boot"};
  out.parameters.emplace_back("LINK_TYPE_P1", std::vector<std::string>{"IB(1)"});
  out.parameters.emplace_back("LINK_TYPE_P2", std::vector<std::string>{});
  EXPECT_EQ(out.value("LINK_TYPE_P1"), std::nullopt);
  EXPECT_EQ(out.value("LINK_TYPE_P1", "Default"), "IB(1)");
  EXPECT_EQ(out.value("LINK_TYPE_P2", "Default"), std::nullopt);
  out.columns.clear();
  EXPECT_EQ(out.value("LINK_TYPE_P2"), std::nullopt);
}

// Random sequences of lines mstconfig prints: the parser either understands them or throws
// ParseError, and value() answers for every parameter and column; nothing else leaks.
TEST(MstconfigParse, ShuffledOutputNeverLeaksAStandardException)
{
  const std::vector<std::string> lines{"Configurations:",
                                       "Configurations:   Next Boot",
                                       "Configurations:   Next Boot   New",
                                       "Configurations:   Default   Current   Next Boot",
                                       "  LINK_TYPE_P1   IB(1)",
                                       "  LINK_TYPE_P1   IB(1)   ETH(2)",
                                       "* LINK_TYPE_P2   VPI(3)  IB(1)   ETH(2)",
                                       "  LINK_TYPE_P1",
                                       "Device #1:",
                                       "Device:   0000:3b:00.0",
                                       "-E- Failed to open the device",
                                       "-I- Please reboot machine to load new configurations.",
                                       "Apply new Configuration? (y/n) [n] : y",
                                       "Applying... Done!",
                                       "y",
                                       ""};
  unsigned long long state = 42;
  const auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<size_t>(state >> 33U);
  };
  for (int run = 0; run < 5000; ++run) {
    std::string text;
    const size_t count = next() % 8;
    for (size_t i = 0; i < count; ++i) {
      text += lines[next() % lines.size()] + "\n";
    }
    try {
      const auto out = parse_mstconfig(text);
      for (const auto& [name, values] : out.parameters) {
        for (const char* column : {"Default", "Current", "Next Boot", "New", "Other"}) {
          (void)out.value(name, column);
        }
      }
    } catch (const ParseError&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what() << " on:\n" << text;
      return;
    }
  }
}

TEST(MstconfigParse, UnknownLinesAreErrorsQuotingTheLine)
{
  const std::vector<std::pair<std::string, int>> bad{
      {"Device #1:\nSegmentation fault\n", 2},
      {"Configurations:    Next Boot\n  LINK_TYPE_P1   IB(1)  ETH(2)\n", 2},  // too many values
      {"Configurations:    Next Boot   Later\n", 1},
      {"Konfigurationen:\n", 1},
      {"Device #1:\nDevice #2:\n", 2},
      // Issue 13 (found by fuzzing MstconfigOutput::value): values read without columns, then
      // a header with three; value() indexed past them and threw std::out_of_range.
      {"Configurations:\n LINK_TYPE_P1 IB(1)\nConfigurations: Default Current Next Boot\n", 3},
      {" LINK_TYPE_P1 IB(1)\nConfigurations: Default Current Next Boot\n", 2},
      {"Configurations: Next Boot\nConfigurations:\n", 2},
      // Ambiguous: a column named twice, a parameter listed twice with two values.
      {"Configurations: Next Boot Next Boot\n LINK_TYPE_P1 IB(1) ETH(2)\n", 1},
      {"Configurations: Next Boot\n LINK_TYPE_P1 IB(1)\n LINK_TYPE_P1 ETH(2)\n", 3},
      // Two devices named: which one the values are of (and the query is trusted by) would
      // be the last line's.
      {"Device:         0000:3b:00.0\nDevice:         0000:86:00.0\n", 2},
      {"PCI device: /sys/bus/pci/devices/0000:05:00.0/config\nDevice: 0000:06:00.0\n", 2},
  };
  for (const auto& [text, line] : bad) {
    try {
      parse_mstconfig(text);
      ADD_FAILURE() << "parsed: " << text;
    } catch (const ParseError& e) {
      EXPECT_EQ(e.line(), line) << text;
      EXPECT_NE(std::string(e.what()).find("not understood: '"), std::string::npos);
    }
  }
}

// The same device named twice, in either form, is one device.
TEST(MstconfigParse, OneDeviceNamedTwiceIsOne)
{
  const auto out = parse_mstconfig(
      "PCI device: /sys/bus/pci/devices/0000:05:00.0/config\nDevice: 0000:05:00.0\n");
  EXPECT_EQ("0000:05:00.0", out.device.value_or("none"));
  EXPECT_NO_THROW(parse_mstconfig("Device: 0000:3B:00.0\nDevice: 3b:00.0\n"));
}

TEST(MstconfigParse, LinkTypeValues)
{
  EXPECT_EQ(parse_link_type("IB(1)"), LinkType::ib);
  EXPECT_EQ(parse_link_type("ETH(2)"), LinkType::eth);
  EXPECT_EQ(parse_link_type("VPI(3)"), LinkType::vpi);
  EXPECT_EQ(parse_link_type("ETH"), LinkType::eth);
  EXPECT_EQ(parse_link_type("1"), LinkType::ib);
  EXPECT_FALSE(parse_link_type("IB(2)"));
  EXPECT_FALSE(parse_link_type("True(1)"));
  EXPECT_FALSE(parse_link_type(""));
  EXPECT_EQ(mst_value(LinkType::vpi), 3);
}

// A Tool that answers from a map and records what it was asked.
class FakeTool : public Tool {
public:
  std::map<std::string, std::map<int, LinkType>> next;
  std::set<std::string> failing_query;
  std::set<std::string> failing_set;
  std::set<std::string> set_then_fail;  // writes, then fails (killed after the write)
  std::vector<std::string> calls;
  std::vector<std::string> detail;  // with the LINK_TYPE_Pn numbers and values

  std::vector<std::pair<int, LinkType>> query(const std::string& pci,
                                              const std::vector<int>& ports) override
  {
    calls.push_back("query " + pci);
    std::string line = "query " + pci;
    for (int p : ports) {
      line += " P" + std::to_string(p);
    }
    detail.push_back(line);
    if (failing_query.count(pci) != 0) {
      throw EnvironmentError("query failed");
    }
    std::vector<std::pair<int, LinkType>> out;
    for (int p : ports) {
      out.emplace_back(p, next.at(pci).at(p));
    }
    return out;
  }
  void set(const std::string& pci, const std::vector<std::pair<int, LinkType>>& values) override
  {
    calls.push_back("set " + pci);
    std::string line = "set " + pci;
    for (const auto& [p, t] : values) {
      line += " P" + std::to_string(p) + "=" + profile::to_string(t);
    }
    detail.push_back(line);
    if (failing_set.count(pci) != 0) {
      throw EnvironmentError("set failed");
    }
    for (const auto& [p, t] : values) {
      next[pci][p] = t;
    }
    if (set_then_fail.count(pci) != 0) {
      throw EnvironmentError("mstconfig was killed after 60 s");
    }
  }
};

inventory::Host two_hcas(inventory::LinkLayer layer0 = inventory::LinkLayer::infiniband)
{
  inventory::Host h;
  h.host = "n1";
  for (int i = 0; i < 2; ++i) {
    inventory::Device d;
    d.name = "mlx5_" + std::to_string(i);
    d.pci = inventory::PciLink{};
    d.pci->address = i == 0 ? "0000:3b:00.0" : "0000:86:00.0";
    for (int p = 1; p <= 2; ++p) {
      inventory::Port port;
      port.port = p;
      port.link_layer = i == 0 && p == 1 ? layer0 : inventory::LinkLayer::infiniband;
      d.ports.push_back(port);
    }
    h.devices.push_back(d);
  }
  return h;
}

profile::ResolvedNode node(const std::string& yaml_hcas)
{
  const auto p = profile::load_profile_text(
      "version: 1\nnodes:\n  - hosts: n1\n    hcas:\n" + yaml_hcas +
          "    interfaces:\n      - {name: ib0, device: mlx5_0, port: 1}\n",
      "test.yaml");
  return profile::resolve_node(p, "n1");
}

TEST(FirmwareState, HcaWideTypeCoversEveryPortAndPortsOverride)
{
  FakeTool tool;
  tool.next["0000:3b:00.0"] = {{1, LinkType::ib}, {2, LinkType::ib}};
  const auto s = query_state(node("      - device: mlx5_0\n        link_type: ib\n        ports:\n"
                                  "          - {port: 2, link_type: eth}\n"),
                             two_hcas(), &tool);
  ASSERT_EQ(s.devices.size(), 1U);
  ASSERT_EQ(s.devices[0].ports.size(), 2U);
  EXPECT_EQ(s.devices[0].ports[0].desired, LinkType::ib);
  EXPECT_EQ(s.devices[0].ports[1].desired, LinkType::eth);
  EXPECT_FALSE(s.devices[0].ports[0].differs());
  EXPECT_TRUE(s.devices[0].ports[1].differs());
  EXPECT_TRUE(s.warnings.empty());
}

TEST(FirmwareState, EveryDeviceIsQueriedBeforeAnythingIsSet)
{
  FakeTool tool;
  tool.next["0000:3b:00.0"] = {{1, LinkType::eth}, {2, LinkType::eth}};
  tool.failing_query.insert("0000:86:00.0");
  const auto n = node(
      "      - {device: mlx5_0, link_type: ib}\n"
      "      - {device: mlx5_1, link_type: ib}\n");
  EXPECT_THROW(query_state(n, two_hcas(), &tool), EnvironmentError);
  EXPECT_EQ(tool.calls, (std::vector<std::string>{"query 0000:3b:00.0", "query 0000:86:00.0"}));
}

TEST(FirmwareState, FailureMidWayKeepsWhatWasDone)
{
  FakeTool tool;
  tool.next["0000:3b:00.0"] = {{1, LinkType::eth}, {2, LinkType::ib}};
  tool.next["0000:86:00.0"] = {{1, LinkType::eth}, {2, LinkType::eth}};
  tool.failing_set.insert("0000:86:00.0");
  const auto n = node(
      "      - {device: mlx5_0, link_type: ib}\n"
      "      - {device: mlx5_1, link_type: ib}\n");
  const auto s = query_state(n, two_hcas(), &tool);
  const auto r = apply_state(s, tool);
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.done.size(), 1U);
  EXPECT_EQ(r.done[0].device, "mlx5_0");
  EXPECT_EQ(r.done[0].port, 1);
  EXPECT_EQ(r.done[0].from, LinkType::eth);
  EXPECT_NE(r.failure->find("mlx5_1 (0000:86:00.0): set failed"), std::string::npos);
  // The failed set is followed by a query of what the card now holds: nothing changed there.
  EXPECT_EQ(tool.calls, (std::vector<std::string>{"query 0000:3b:00.0", "query 0000:86:00.0",
                                                  "set 0000:3b:00.0", "query 0000:3b:00.0",
                                                  "set 0000:86:00.0", "query 0000:86:00.0"}));
  EXPECT_EQ(r.failure->find("made all the same"), std::string::npos) << *r.failure;
}

TEST(FirmwareState, ASetThatFailsAfterWritingReportsWhatTheCardHolds)
{
  FakeTool tool;
  tool.next["0000:3b:00.0"] = {{1, LinkType::eth}, {2, LinkType::ib}};
  tool.set_then_fail.insert("0000:3b:00.0");
  const auto s = query_state(node("      - {device: mlx5_0, link_type: ib}\n"), two_hcas(), &tool);
  const auto r = apply_state(s, tool);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(*r.failure,
            "mlx5_0 (0000:3b:00.0): mstconfig was killed after 60 s; a second query shows the "
            "change was made all the same");
  ASSERT_EQ(r.done.size(), 1U);
  EXPECT_EQ(r.done[0].to, LinkType::ib);
  EXPECT_EQ(r.state.devices[0].ports[0].next_boot, LinkType::ib);
  // The port runs InfiniBand, so nothing is owed. Running Ethernet, the next run finds the
  // link type already set (by the write above) and owes the reboot.
  const auto eth = apply_state(query_state(node("      - {device: mlx5_0, link_type: ib}\n"),
                                           two_hcas(inventory::LinkLayer::ethernet), &tool),
                               tool);
  EXPECT_TRUE(eth.ok());  // already ib after the first run's write
  EXPECT_TRUE(eth.reboot_required());
}

TEST(FirmwareState, RebootPendingComparesNextBootWithTheRunningPort)
{
  FakeTool tool;
  tool.next["0000:3b:00.0"] = {{1, LinkType::ib}, {2, LinkType::ib}};
  const auto n = node("      - {device: mlx5_0, link_type: ib}\n");
  const auto s = query_state(n, two_hcas(inventory::LinkLayer::ethernet), &tool);
  EXPECT_FALSE(s.devices[0].differs());
  EXPECT_TRUE(s.devices[0].ports[0].reboot_pending());
  const auto r = apply_state(s, tool);
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.done.empty());
  EXPECT_TRUE(r.reboot_required());
  EXPECT_EQ(tool.calls.size(), 1U);  // pending, not set again

  PortLinkType vpi;
  vpi.next_boot = LinkType::vpi;
  vpi.link_layer = inventory::LinkLayer::ethernet;
  EXPECT_FALSE(vpi.reboot_pending());
}

// No link_layer file, or a value ibsetup does not know: the running type may differ from what
// was just set, so this run's set owes a reboot (exit status, JSON, marker). A port nobody set
// owes none, or every apply on such a host would stop for a reboot that changes nothing.
TEST(FirmwareState, AnUnreadableRunningTypeOwesARebootOnlyAfterASet)
{
  FakeTool tool;
  tool.next["0000:3b:00.0"] = {{1, LinkType::eth}, {2, LinkType::ib}};
  auto host = two_hcas();
  host.devices[0].ports[0].link_layer.reset();
  host.devices[0].ports[1].link_layer =
      inventory::Reading<inventory::LinkLayer>(inventory::LinkLayer::other, "Omni");
  const auto n = node("      - {device: mlx5_0, link_type: ib}\n");
  const auto r = apply_state(query_state(n, host, &tool), tool);
  ASSERT_TRUE(r.ok()) << *r.failure;
  ASSERT_EQ(r.done.size(), 1U);
  EXPECT_TRUE(r.reboot_required());
  EXPECT_NE(to_json(r.state, &r).find("\"reboot_required\":true"), std::string::npos);
  EXPECT_NE(
      to_text(r.state, &r).find("port 1 (0000:3b:00.0): next boot IB, running unknown: pending"),
      std::string::npos);
  EXPECT_EQ(to_text(r.state, &r).find("port 2 (0000:3b:00.0): next boot IB, running Omni: pending"),
            std::string::npos);

  // The next run (after the reboot, the type still unreadable): nothing to set, nothing owed.
  const auto again = apply_state(query_state(n, host, &tool), tool);
  ASSERT_TRUE(again.ok()) << *again.failure;
  EXPECT_TRUE(again.done.empty());
  EXPECT_FALSE(again.reboot_required());
  EXPECT_FALSE(again.state.devices[0].ports[0].reboot_pending());
}

TEST(FirmwareState, ProblemsBeforeAnyQuery)
{
  FakeTool tool;
  auto host = two_hcas();
  EXPECT_THROW(query_state(node("      - {device: mlx5_7, link_type: ib}\n"), host, &tool),
               InputError);
  host.devices[0].pci.reset();
  EXPECT_THROW(query_state(node("      - {device: mlx5_0, link_type: ib}\n"), host, &tool),
               EnvironmentError);
  EXPECT_TRUE(tool.calls.empty());
  // A pci: in the profile stands in for the missing sysfs link.
  tool.next["0000:3b:00.0"] = {{1, LinkType::ib}, {2, LinkType::ib}};
  EXPECT_NO_THROW(query_state(
      node("      - {device: mlx5_0, pci: \"0000:3b:00.0\", link_type: ib}\n"), host, &tool));
}

TEST(FirmwareState, NoLinkTypeNoQuery)
{
  FakeTool tool;
  const auto n = node("      - {device: mlx5_0}\n");
  EXPECT_FALSE(declares_link_type(n));
  const auto s = query_state(n, two_hcas(), &tool);
  EXPECT_TRUE(s.devices.empty());
  EXPECT_TRUE(tool.calls.empty());
}

TEST(FirmwareState, WarnsAboutIpoibOnEthernet)
{
  FakeTool tool;
  tool.next["0000:3b:00.0"] = {{1, LinkType::eth}, {2, LinkType::ib}};
  const auto s = query_state(node("      - {device: mlx5_0, link_type: ib}\n"), two_hcas(), &tool);
  ASSERT_EQ(s.warnings.size(), 1U);
  EXPECT_NE(s.warnings[0].find("ib0: IPoIB is declared on mlx5_0 port 1, whose link type is ETH"),
            std::string::npos);
  // Once the port is set to IB the warning no longer holds, and the report does not carry it.
  const auto r = apply_state(s, tool);
  ASSERT_TRUE(r.ok()) << *r.failure;
  ASSERT_EQ(r.done.size(), 1U);
  EXPECT_TRUE(r.state.warnings.empty()) << r.state.warnings[0];
}

// One dual-port card as mlx5 shows it: an HCA with a single port 1 per PCI function.
inventory::Host one_card(int functions = 2)
{
  inventory::Host h;
  h.host = "n1";
  for (int f = 0; f < functions; ++f) {
    inventory::Device d;
    d.name = "mlx5_" + std::to_string(f);
    d.pci = inventory::PciLink{};
    d.pci->address = "0000:3b:00." + std::to_string(f);
    inventory::Port port;
    port.port = 1;
    port.link_layer = inventory::LinkLayer::infiniband;
    d.ports.push_back(port);
    h.devices.push_back(d);
  }
  return h;
}

TEST(FirmwarePorts, PhysicalPortFollowsTheDriversLayout)
{
  // mlx4: one function, ports 1..n, even on a function other than 0.
  const auto mlx4 = two_hcas().devices[0];
  EXPECT_EQ(physical_port(mlx4, "0000:3b:00.0", 1, "h"), 1);
  EXPECT_EQ(physical_port(mlx4, "0000:3b:00.0", 2, "h"), 2);
  EXPECT_EQ(physical_port(mlx4, "0000:3b:00.1", 2, "h"), 2);
  // mlx5: one single-port HCA per physical port.
  const auto card = one_card(3);
  EXPECT_EQ(physical_port(card.devices[0], "0000:3b:00.0", 1, "h"), 1);
  EXPECT_EQ(physical_port(card.devices[1], "0000:3b:00.1", 1, "h"), 2);
  auto portless = card.devices[1];
  portless.ports.clear();
  EXPECT_EQ(physical_port(portless, "0000:3b:00.1", 1, "h"), 2);
  try {
    physical_port(card.devices[2], "0000:3b:00.2", 1, "nodes[0].hcas[1]");
    ADD_FAILURE() << "function 2 mapped";
  } catch (const InputError& e) {
    EXPECT_NE(
        std::string(e.what()).find(
            "nodes[0].hcas[1]: mlx5_2 (0000:3b:00.2) has a single port and is PCI function 2: "
            "ibsetup cannot tell which physical port"),
        std::string::npos)
        << e.what();
  }
  try {
    physical_port(card.devices[1], "0000:3b:00.1", 2, "h");
    ADD_FAILURE() << "port 2 of a single-port HCA mapped";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("mlx5_1 (0000:3b:00.1) has a single port (port 1, the "
                                         "card's LINK_TYPE_P2), so port 2 is not on it"),
              std::string::npos)
        << e.what();
  }
}

TEST(FirmwarePorts, FunctionsOfOneCardAreOneMstconfigDevice)
{
  FakeTool tool;
  tool.next["0000:3b:00.0"] = {{1, LinkType::ib}, {2, LinkType::ib}};
  const auto n = node(
      "      - {device: mlx5_0, link_type: ib}\n"
      "      - {device: mlx5_1, link_type: eth}\n");
  const auto s = query_state(n, one_card(), &tool);
  EXPECT_EQ(tool.detail, (std::vector<std::string>{"query 0000:3b:00.0 P1 P2"}));
  ASSERT_EQ(s.devices.size(), 2U);
  EXPECT_EQ(s.devices[1].pci, "0000:3b:00.1");
  EXPECT_EQ(s.devices[1].card, "0000:3b:00.0");
  ASSERT_EQ(s.devices[1].ports.size(), 1U);
  EXPECT_EQ(s.devices[1].ports[0].port, 1);
  EXPECT_EQ(s.devices[1].ports[0].physical, 2);
  EXPECT_FALSE(s.devices[0].differs());
  EXPECT_TRUE(s.devices[1].differs());
  EXPECT_NE(to_text(s, nullptr)
                .find("  ~ mlx5_1 port 1 (0000:3b:00.1, physical port 2): next "
                      "boot IB -> ETH, running InfiniBand  (mstconfig set "
                      "LINK_TYPE_P2=2)\n"),
            std::string::npos)
      << to_text(s, nullptr);
  EXPECT_NE(to_text(s, nullptr).find("    mlx5_0 port 1 (0000:3b:00.0): IB, running InfiniBand\n"),
            std::string::npos);

  const auto r = apply_state(s, tool);
  ASSERT_TRUE(r.ok()) << *r.failure;
  EXPECT_EQ(tool.detail,
            (std::vector<std::string>{"query 0000:3b:00.0 P1 P2", "set 0000:3b:00.0 P2=eth",
                                      "query 0000:3b:00.0 P1 P2"}));
  EXPECT_EQ(tool.next["0000:3b:00.0"][1], LinkType::ib);  // mlx5_0's port is left alone
  ASSERT_EQ(r.done.size(), 1U);
  EXPECT_EQ(r.done[0].device, "mlx5_1");
  EXPECT_EQ(r.done[0].port, 1);
  EXPECT_EQ(r.done[0].physical, 2);
  EXPECT_TRUE(r.reboot_required());
  EXPECT_NE(to_text(s, &r).find("  set mlx5_1 port 1 (0000:3b:00.1) LINK_TYPE_P2 IB -> ETH "
                                "(confirmed by a second query)\n"),
            std::string::npos)
      << to_text(s, &r);
  const auto json = to_json(s, &r);
  EXPECT_NE(
      json.find(R"({"device":"mlx5_0","pci":"0000:3b:00.0","ports":[{"port":1,"desired":"ib",)"),
      std::string::npos)
      << json;
  EXPECT_NE(
      json.find(
          R"({"device":"mlx5_1","pci":"0000:3b:00.1","ports":[{"port":1,"physical_port":2,"desired":"eth","next_boot":"eth",)"),
      std::string::npos)
      << json;
  EXPECT_NE(
      json.find(
          R"("done":[{"device":"mlx5_1","pci":"0000:3b:00.1","port":1,"physical_port":2,"from":"ib","to":"eth"}])"),
      std::string::npos)
      << json;

  test::TempDir dir;
  const auto marker = (dir.path() / "reboot-required").string();
  update_reboot_marker(marker, r.state);
  EXPECT_NE(test::read_text(marker).find(
                "\nmlx5_1 0000:3b:00.1 LINK_TYPE_P2=ETH (port 1, running InfiniBand)\n"),
            std::string::npos)
      << test::read_text(marker);
}

// The defect this guards against: mlx5_1's port used to be set as LINK_TYPE_P1 of its own
// address, which is mlx5_0's physical port.
TEST(FirmwarePorts, SecondFunctionAloneSetsP2OfTheCard)
{
  FakeTool tool;
  tool.next["0000:3b:00.0"] = {{1, LinkType::ib}, {2, LinkType::ib}};
  const auto s = query_state(node("      - {device: mlx5_1, link_type: eth}\n"), one_card(), &tool);
  const auto r = apply_state(s, tool);
  ASSERT_TRUE(r.ok()) << *r.failure;
  EXPECT_EQ(tool.detail,
            (std::vector<std::string>{"query 0000:3b:00.0 P2", "set 0000:3b:00.0 P2=eth",
                                      "query 0000:3b:00.0 P2"}));
  EXPECT_EQ(tool.next["0000:3b:00.0"][1], LinkType::ib);
  EXPECT_EQ(tool.next["0000:3b:00.0"][2], LinkType::eth);
}

TEST(FirmwarePorts, BothFunctionsDifferingIsOneSet)
{
  FakeTool tool;
  tool.next["0000:3b:00.0"] = {{1, LinkType::eth}, {2, LinkType::eth}};
  const auto n = node(
      "      - {device: mlx5_1, link_type: ib}\n"
      "      - {device: mlx5_0, link_type: ib}\n");
  const auto r = apply_state(query_state(n, one_card(), &tool), tool);
  ASSERT_TRUE(r.ok()) << *r.failure;
  EXPECT_EQ(tool.detail,
            (std::vector<std::string>{"query 0000:3b:00.0 P1 P2", "set 0000:3b:00.0 P1=ib P2=ib",
                                      "query 0000:3b:00.0 P1 P2"}));
  ASSERT_EQ(r.done.size(), 2U);
  EXPECT_EQ(r.done[0].device, "mlx5_1");  // in the profile's order
  EXPECT_EQ(r.done[0].physical, 2);
  EXPECT_EQ(r.done[1].device, "mlx5_0");
  EXPECT_EQ(r.done[1].physical, 1);
}

TEST(FirmwarePorts, ASetFailureNamesTheCardAndItsHcas)
{
  FakeTool tool;
  tool.next["0000:3b:00.0"] = {{1, LinkType::eth}, {2, LinkType::eth}};
  tool.failing_set.insert("0000:3b:00.0");
  const auto r = apply_state(
      query_state(node("      - {device: mlx5_1, link_type: ib}\n"), one_card(), &tool), tool);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(*r.failure, "card 0000:3b:00.0 (mlx5_1 0000:3b:00.1): set failed");
}

TEST(FirmwarePorts, VirtualFunctionIsAnErrorBeforeAnyQuery)
{
  FakeTool tool;
  tool.next["0000:3b:00.0"] = {{1, LinkType::ib}, {2, LinkType::ib}};
  const auto n = node(
      "      - {device: mlx5_0, link_type: ib}\n"
      "      - {device: mlx5_2, link_type: ib}\n");
  try {
    query_state(n, one_card(3), &tool);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("mlx5_2 (0000:3b:00.2) has a single port and is PCI "
                                         "function 2"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(tool.calls.empty());
}

TEST(FirmwarePorts, OnePhysicalPortDeclaredTwice)
{
  FakeTool tool;
  tool.next["0000:3b:00.0"] = {{1, LinkType::ib}, {2, LinkType::ib}};
  const auto conflict = node(
      "      - {device: mlx5_1, link_type: ib}\n"
      "      - {pci: \"0000:3b:00.1\", link_type: eth}\n");
  try {
    query_state(conflict, one_card(), &tool);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "nodes[0].hcas[1]: mlx5_1 port 1 (eth) and nodes[0].hcas[0]: mlx5_1 port 1 (ib) "
                  "are the same physical port, LINK_TYPE_P2 of the card at 0000:3b:00.0"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(tool.calls.empty());
  // Declared twice alike: set once.
  const auto twice = node(
      "      - {device: mlx5_1, link_type: eth}\n"
      "      - {pci: \"0000:3b:00.1\", link_type: eth}\n");
  const auto r = apply_state(query_state(twice, one_card(), &tool), tool);
  ASSERT_TRUE(r.ok()) << *r.failure;
  EXPECT_EQ(tool.detail,
            (std::vector<std::string>{"query 0000:3b:00.0 P2", "set 0000:3b:00.0 P2=eth",
                                      "query 0000:3b:00.0 P2"}));
}

// One device at 0000:3b:00.0 whose port 1 runs Ethernet and boots next as IB: a reboot is owed.
State reboot_owed(const std::string& device)
{
  State s;
  DeviceLinkTypes d;
  d.device = device;
  d.pci = "0000:3b:00.0";
  PortLinkType p;
  p.port = 1;
  p.next_boot = LinkType::ib;
  p.link_layer = inventory::LinkLayer::ethernet;
  d.ports.push_back(p);
  s.devices.push_back(d);
  return s;
}

// An empty path is refused with the library's error, not std::filesystem's.
TEST(FirmwareMarker, AnEmptyPathIsAnEnvironmentError)
{
  EXPECT_THROW(update_reboot_marker("", reboot_owed("mlx5_0")), EnvironmentError);
}

TEST(FirmwareMarker, WrittenAtomicallyAndRemovedWhenNothingIsOwed)
{
  test::TempDir dir;
  const auto path = (dir.path() / "run" / "reboot-required").string();
  State s = reboot_owed("mlx5_0");
  update_reboot_marker(path, s);
  const auto text = test::read_text(path);
  EXPECT_NE(text.find("\nmlx5_0 0000:3b:00.0 LINK_TYPE_P1=IB (running Ethernet)\n"),
            std::string::npos);
  // Set by this run while the running type cannot be read: owed, "running ?"; not set: not.
  s.devices[0].ports[0].link_layer.reset();
  detail::write_reboot_marker(
      path, s, {Change{"mlx5_0", "0000:3b:00.0", 1, 0, LinkType::eth, LinkType::ib}});
  EXPECT_NE(test::read_text(path).find("\nmlx5_0 0000:3b:00.0 LINK_TYPE_P1=IB (running ?)\n"),
            std::string::npos);
  update_reboot_marker(path, s);
  EXPECT_FALSE(std::filesystem::exists(path));
  update_reboot_marker(path, reboot_owed("mlx5_0"));
  s.devices[0].ports[0].link_layer = inventory::LinkLayer::infiniband;
  update_reboot_marker(path, s);
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_NO_THROW(update_reboot_marker(path, s));  // already gone
}

// A stop signal already noted (render's or firmware --apply's hold, set_step's own guard) does
// not stop the marker: the card it tells of is already set. render's files would be undone.
// The lines of devices this run did not look at are kept: reading the old marker while a
// signal was held used to fail, and they were dropped (the marker removed, had this run owed
// nothing).
TEST(FirmwareMarker, WrittenWhenAStopSignalIsHeld)
{
  test::TempDir dir;
  const auto path = (dir.path() / "run" / "reboot-required").string();
  update_reboot_marker(path, reboot_owed("mlx5_9"));
  EXPECT_EXIT(
      {
        TerminationGuard hold;
        raise(SIGTERM);
        try {
          update_reboot_marker(path, reboot_owed("mlx5_0"));
        } catch (const std::exception& e) {
          std::cerr << e.what();
          _exit(1);
        }
        const std::string text = test::read_text(path);
        _exit(TerminationGuard::pending() == SIGTERM &&
                      text.find("\nmlx5_0 0000:3b:00.0 LINK_TYPE_P1=IB") != std::string::npos &&
                      text.find("\nmlx5_9 0000:3b:00.0 LINK_TYPE_P1=IB") != std::string::npos
                  ? 0
                  : 2);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(FirmwareMarker, SysfsNamesCannotAddLines)
{
  test::TempDir dir;
  const auto path = (dir.path() / "reboot-required").string();
  update_reboot_marker(path, reboot_owed("evil\nX=1 \x1b[31m"));
  const auto text = test::read_text(path);
  EXPECT_NE(text.find("\nevil\\nX=1 \\x1b[31m 0000:3b:00.0 LINK_TYPE_P1=IB (running Ethernet)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("\nX=1"), std::string::npos) << text;
}

TEST(FirmwareMarker, AMarkerThatCannotBeWrittenKeepsTheReport)
{
  test::TempDir dir;
  const auto path = (dir.path() / "reboot-required").string();
  std::filesystem::create_symlink(dir.path() / "elsewhere", path);
  FakeTool tool;
  tool.next["0000:3b:00.0"] = {{1, LinkType::eth}, {2, LinkType::ib}};
  const auto s = query_state(node("      - {device: mlx5_0, link_type: ib}\n"),
                             two_hcas(inventory::LinkLayer::ethernet), &tool);
  StepOptions options;
  options.reboot_marker = path;
  const auto out = set_step(s, tool, options);
  ASSERT_TRUE(out.report.has_value());
  ASSERT_EQ(out.report->done.size(), 1U);  // the set happened and is reported
  ASSERT_TRUE(out.report->failure.has_value());
  EXPECT_NE(out.report->failure->find("the reboot marker: "), std::string::npos)
      << *out.report->failure;
  EXPECT_EQ(out.result, ErrorKind::environment);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "elsewhere"));
}

}  // namespace
}  // namespace ibsetup::firmware
