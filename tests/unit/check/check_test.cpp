// Every local check against the healthy fixture (tests/fixtures/sysfs/hdr-2hca, all pass) and
// against a copy with one thing broken: each case names the check that must fail and its
// exact message, and no other check may fail.
#include "gtest_compat.hpp"
#include "test_util.hpp"

#include <ibsetup/check.hpp>
#include <ibsetup/inventory.hpp>
#include <ibsetup/profile.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <map>

namespace fs = std::filesystem;
using namespace ibsetup;

namespace {

const fs::path k_fixtures = fs::path(IBSETUP_TEST_DATA) / "../fixtures/sysfs";
const std::string k_profile = std::string(IBSETUP_TEST_DATA) + "/check/cluster.yaml";
const std::string k_port = "class/infiniband/mlx5_0/ports/1/";

struct Case {
  const char* name;
  std::vector<std::pair<std::string, std::string>> writes;  // path -> content ("" removes)
  const char* id;
  const char* subject;
  const char* message;
  const char* profile_edit = nullptr;  // appended to the profile's group (YAML, 4 spaces)
  const char* also = nullptr;          // ids of failures that rightly come with it ("a,b")
};

// A copy of the healthy fixture under tmp, to break one thing in.
fs::path healthy_copy(const test::TempDir& tmp)
{
  const fs::path root = tmp.path() / "sys";
  fs::copy(k_fixtures / "hdr-2hca", root,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  return root;
}

std::string profile_text()
{
  std::ifstream in(k_profile);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<check::Result> run(const fs::path& root, const std::string& extra_yaml,
                               const std::string& ib0_edit = "")
{
  std::string text = profile_text() + extra_yaml;
  if (!ib0_edit.empty()) {
    text.replace(text.find("        mtu: 4092\n"), 18, ib0_edit);
  }
  const auto p = profile::load_profile_text(text, "cluster.yaml");
  const auto node = profile::resolve_node(p, "hdr01");
  inventory::Options o;
  o.sysfs_root = root.string();
  o.counters = !node.checks.counter_max.empty();
  o.netdev_names = {"ib0", "ib1"};
  const auto host = inventory::inspect(o);
  return check::check_local(node, host, root.string(), {false});
}

std::vector<const check::Result*> failures(const std::vector<check::Result>& results)
{
  std::vector<const check::Result*> out;
  for (const auto& r : results) {
    if (r.status == check::Status::fail) {
      out.push_back(&r);
    }
  }
  return out;
}

TEST(CheckLocal, HealthyFixturePassesEveryCheck)
{
  const auto results = run(k_fixtures / "hdr-2hca", "");
  EXPECT_TRUE(failures(results).empty());
  size_t passed = 0;
  for (const auto& r : results) {
    passed += r.status == check::Status::pass ? 1 : 0;
    // A captured tree has no IB MTU (it comes from libibverbs), so the largest MTU ib1 may
    // have (it declares none) is not known: skipped, not passed.
    EXPECT_TRUE(r.status == check::Status::pass || r.id == "ipoib.addresses" ||
                (r.id == "ipoib.mtu" && r.subject == "ib1"))
        << r.message;
  }
  EXPECT_EQ(passed, 31U);
}

// Issue 13: a firmware number longer than unsigned long long is compared, not converted
// (std::stoull threw std::out_of_range: "internal error").
TEST(CheckLocal, FirmwareNumbersOfAnyLengthCompare)
{
  test::TempDir tmp;
  const fs::path root = healthy_copy(tmp);
  std::ofstream(root / "class/infiniband/mlx5_0/fw_ver") << "20.31.99999999999999999999\n";
  for (const auto& r : run(root, "")) {
    if (r.id == "hca.firmware" && r.subject == "mlx5_0") {
      EXPECT_EQ(check::Status::pass, r.status) << r.message;
      EXPECT_EQ("mlx5_0: firmware 20.31.99999999999999999999", r.message);
    }
  }
}

// Without a minimum in the profile, an attribute the kernel could not give is a skip (a
// virtual function's link registers read zero), and the other one is still checked.
TEST(CheckLocal, UnknownPcieLinkIsASkipWithoutAProfileMinimum)
{
  test::TempDir tmp;
  const fs::path root = healthy_copy(tmp);
  std::ofstream(root / "class/infiniband/mlx5_0/device/current_link_speed") << "Unknown\n";
  std::string text = profile_text();
  const auto line = text.find("        pcie: {width: 16, speed: 16.0}\n");
  ASSERT_NE(line, std::string::npos);
  text.erase(line, std::string("        pcie: {width: 16, speed: 16.0}\n").size());
  const auto node = profile::resolve_node(profile::load_profile_text(text, "c.yaml"), "hdr01");
  inventory::Options o;
  o.sysfs_root = root.string();
  o.netdev_names = {"ib0", "ib1"};
  const auto pcie_of_mlx5_0 = [&] {
    std::string seen;
    for (const auto& r : check::check_local(node, inventory::inspect(o), root.string(), {false})) {
      if (r.id.rfind("pcie.", 0) == 0 && r.subject == "mlx5_0") {
        seen += r.id + " " + check::to_string(r.status) + ": " + r.message + "\n";
      }
    }
    return seen;
  };
  EXPECT_EQ(pcie_of_mlx5_0(),
            "pcie.width pass: mlx5_0: PCIe link x16 (card max x16, bridge max x16)\n"
            "pcie.speed skip: mlx5_0: PCIe speed unknown in sysfs\n");
  // A virtual function: width 0 and speed Unknown (its link registers read zero) skip both.
  std::ofstream(root / "class/infiniband/mlx5_0/device/current_link_width") << "0\n";
  EXPECT_EQ(pcie_of_mlx5_0(),
            "pcie.width skip: mlx5_0: PCIe width unknown in sysfs\n"
            "pcie.speed skip: mlx5_0: PCIe speed unknown in sysfs\n");
}

class CheckFailure : public ::testing::TestWithParam<Case> {};

TEST_P(CheckFailure, NamesTheCheckAndWhatItSaw)
{
  const Case& c = GetParam();
  test::TempDir tmp;
  const fs::path root = healthy_copy(tmp);
  for (const auto& [path, content] : c.writes) {
    if (content.empty()) {
      fs::remove_all(root / path);
    } else {
      std::ofstream(root / path) << content << '\n';
    }
  }
  const auto results = run(root, c.profile_edit != nullptr ? c.profile_edit : "");
  const auto failed = failures(results);
  ASSERT_FALSE(failed.empty()) << c.name;
  bool found = false;
  for (const auto* f : failed) {
    if (f->id == c.id) {
      found = true;
      EXPECT_EQ(f->subject, c.subject);
      std::string message = f->message;  // the tree's own path, which differs each run
      if (const auto at = message.find(root.string()); at != std::string::npos) {
        message.replace(at, root.string().size(), "ROOT");
      }
      EXPECT_EQ(message, c.message);
    }
  }
  EXPECT_TRUE(found) << c.name << ": first failure was " << failed[0]->id << ": "
                     << failed[0]->message;
  // Nothing else fails (the healthy tree passes everything), but for a declared companion.
  for (const auto* f : failed) {
    EXPECT_TRUE(f->id == c.id ||
                (c.also != nullptr &&
                 (std::string(",") + c.also + ",").find("," + f->id + ",") != std::string::npos))
        << c.name << ": also " << f->id << ": " << f->message;
  }
}

const Case k_cases[] = {
    {"hca_missing",
     {{"class/infiniband/mlx5_1", ""}},
     "hca.present",
     "mlx5_1",
     "mlx5_1: not found (HCAs on this host: mlx5_0)",
     nullptr,
     "ipoib.port,ipoib.plan"},
    {"verbs_abi_missing",
     {{"class/infiniband_verbs/abi_version", ""}},
     "hca.abi",
     "infiniband_verbs",
     "infiniband_verbs: ROOT/class/infiniband_verbs/abi_version missing (is the kernel module "
     "ib_uverbs loaded?)"},
    {"old_firmware",
     {{"class/infiniband/mlx5_0/fw_ver", "20.28.1002"}},
     "hca.firmware",
     "mlx5_0",
     "mlx5_0: firmware 20.28.1002, expected at least 20.31.1014"},
    // Issue 13: a version that is not dotted numbers is unknown and never passes.
    {"firmware_not_available",
     {{"class/infiniband/mlx5_0/fw_ver", "N/A"}},
     "hca.firmware",
     "mlx5_0",
     "mlx5_0: firmware 'N/A' is not a version number, expected at least 20.31.1014"},
    {"firmware_empty",
     {{"class/infiniband/mlx5_0/fw_ver", "\n"}},
     "hca.firmware",
     "mlx5_0",
     "mlx5_0: firmware unknown, expected at least 20.31.1014"},
    {"firmware_binary",
     {{"class/infiniband/mlx5_0/fw_ver", std::string("\xff\x1b[2J9", 6)}},
     "hca.firmware",
     "mlx5_0",
     "mlx5_0: firmware '\\xff\\x1b[2J9' is not a version number, expected at least 20.31.1014"},
    {"firmware_leading_zeros",
     {{"class/infiniband/mlx5_0/fw_ver", "20.00000000000000000030.99999999999999999999"}},
     "hca.firmware",
     "mlx5_0",
     "mlx5_0: firmware 20.00000000000000000030.99999999999999999999, expected at least "
     "20.31.1014"},
    {"firmware_too_short",
     {{"class/infiniband/mlx5_0/fw_ver", "20.31"}},
     "hca.firmware",
     "mlx5_0",
     "mlx5_0: firmware 20.31, expected at least 20.31.1014"},
    {"pcie_x8",
     {{"class/infiniband/mlx5_0/device/current_link_width", "8"}},
     "pcie.width",
     "mlx5_0",
     "mlx5_0: PCIe link x8, expected at least x16 (card max x16, bridge max x16, profile x16)"},
    // The kernel's "Unknown" (a link that did not train) cannot meet the profile's minimum;
    // that used to skip both PCIe checks and pass the node.
    {"pcie_speed_unknown",
     {{"class/infiniband/mlx5_0/device/current_link_speed", "Unknown"}},
     "pcie.speed",
     "mlx5_0",
     "mlx5_0: PCIe link speed unknown in sysfs, expected at least 16 GT/s (profile)"},
    {"pcie_width_missing",
     {{"class/infiniband/mlx5_0/device/current_link_width", ""}},
     "pcie.width",
     "mlx5_0",
     "mlx5_0: PCIe link width unknown in sysfs, expected at least x16 (profile)"},
    {"pcie_down",
     {{"class/infiniband/mlx5_0/device/current_link_speed", "Unknown"},
      {"class/infiniband/mlx5_0/device/current_link_width", "0"}},
     "pcie.width",
     "mlx5_0",
     "mlx5_0: PCIe link width unknown in sysfs, expected at least x16 (profile)",
     nullptr,
     "pcie.speed"},
    // An unreadable mode file: apply would set the mode, so it fails (it is not a skip).
    {"mode_unreadable",
     {{"class/net/ib0/mode", ""}},
     "ipoib.mode",
     "ib0",
     "ib0: mode unknown, expected datagram"},
    // A width past the register's 6 bits is no width: unknown, shown as "?" like a missing one
    // (it was "x2.14748e+09", then "x2147483647").
    {"pcie_x8_huge_card_max",
     {{"class/infiniband/mlx5_0/device/current_link_width", "8"},
      {"class/infiniband/mlx5_0/device/max_link_width", "2147483647"}},
     "pcie.width",
     "mlx5_0",
     "mlx5_0: PCIe link x8, expected at least x16 (card max x?, bridge max x16, profile x16)"},
    // A card that fell off the bus answers config reads with all ones: width 63, speed
    // "Unknown". It fails with a minimum in the profile and without one (mlx5_1 has none);
    // it passed mlx5_1 as "x63" before.
    {"pcie_all_ones",
     {{"class/infiniband/mlx5_0/device/current_link_width", "63"},
      {"class/infiniband/mlx5_0/device/current_link_speed", "Unknown"}},
     "pcie.width",
     "mlx5_0",
     "mlx5_0: PCIe link status reads all ones (x63): the card does not answer config reads "
     "(removed from the bus, or hung?)",
     nullptr,
     "pcie.speed"},
    {"pcie_all_ones_no_minimum",
     {{"class/infiniband/mlx5_1/device/current_link_width", "63"},
      {"class/infiniband/mlx5_1/device/current_link_speed", "Unknown"}},
     "pcie.width",
     "mlx5_1",
     "mlx5_1: PCIe link status reads all ones (x63): the card does not answer config reads "
     "(removed from the bus, or hung?)"},
    // A card max of all ones is no limit: unknown.
    {"pcie_card_max_all_ones",
     {{"class/infiniband/mlx5_1/device/max_link_width", "63"},
      {"class/infiniband/mlx5_1/device/current_link_width", "4"}},
     "pcie.width",
     "mlx5_1",
     "mlx5_1: PCIe link x4, expected at least x16 (card max x?, bridge max x16)"},
    // A conventional PCI bridge shows max_link_width 0 (a VM's passed-through HCA): not a
    // limit. It used to make any width pass ("bridge max x0").
    {"pcie_bridge_width_zero",
     {{"class/infiniband/mlx5_1/device/../max_link_width", "0"},
      {"class/infiniband/mlx5_1/device/current_link_width", "4"}},
     "pcie.width",
     "mlx5_1",
     "mlx5_1: PCIe link x4, expected at least x16 (card max x16, bridge max x?)"},
    {"pcie_gen3",
     {{"class/infiniband/mlx5_0/device/current_link_speed", "8.0 GT/s PCIe"}},
     "pcie.speed",
     "mlx5_0",
     "mlx5_0: PCIe link 8 GT/s, expected at least 16 GT/s (card max 16 GT/s, bridge max 16 "
     "GT/s, profile 16 GT/s)"},
    {"port_init",
     {{k_port + "state", "2: INIT"}},
     "port.state",
     "mlx5_0/1",
     "mlx5_0/1: state INIT, expected ACTIVE"},
    {"port_polling",
     {{k_port + "phys_state", "2: Polling"}},
     "port.phys_state",
     "mlx5_0/1",
     "mlx5_0/1: physical state Polling, expected LinkUp"},
    {"port_edr",
     {{k_port + "rate", "100 Gb/sec (4X EDR)"}},
     "port.rate",
     "mlx5_0/1",
     "mlx5_0/1: rate 100 Gb/s (4X EDR), expected at least 200"},
    {"port_ethernet",
     {{k_port + "link_layer", "Ethernet"}},
     "port.link_layer",
     "mlx5_0/1",
     "mlx5_0/1: link layer Ethernet, expected InfiniBand",
     nullptr,
     "ipoib.plan"},
    {"no_sm",
     {{k_port + "sm_lid", "0x0"}},
     "port.sm",
     "mlx5_0/1",
     "mlx5_0/1: no subnet manager seen (SM LID 0)"},
    {"no_lid",
     {{k_port + "lid", "0x0"}},
     "port.lid",
     "mlx5_0/1",
     "mlx5_0/1: no LID assigned (LID 0)"},
    {"pkey_missing",
     {},
     "port.pkeys",
     "mlx5_0/1",
     "mlx5_0/1: P_Key 0x8002 not in the port's P_Key table (0xffff 0x8001)",
     "      - {parent: ib0, pkey: 0x8002, ipv4: 10.12.0.0/16}\n",
     "ipoib.exists"},
    {"pkey_limited_member",
     {{k_port + "pkeys/1", "0x0001"}},
     "port.pkeys",
     "mlx5_0/1",
     "mlx5_0/1: P_Key 0x8001: the port is only a limited member of the partition (0xffff 0x0001)",
     "      - {parent: ib0, pkey: 0x8001, ipv4: 10.12.0.0/16}\n",
     "ipoib.exists"},
    {"counter_above",
     {{k_port + "counters/symbol_error", "50"}},
     "port.counters",
     "mlx5_0/1:symbol_error",
     "mlx5_0/1: symbol_error 50, expected at most 10",
     "    checks: {counters: {symbol_error: 10}}\n"},
    {"counter_saturated",
     {{k_port + "counters/link_downed", "255"}},
     "port.counters",
     "mlx5_0/1:link_downed",
     "mlx5_0/1: link_downed 255 (saturated: the real count is higher; reset the counters), "
     "expected at most 300",
     "    checks: {counters: {link_downed: 300}}\n"},
    // Each counter saturates at its own width: 4 bits here, and symbol_error (16 bits) at
    // 255 is a count like any other.
    {"counter_saturated_4_bits",
     {{k_port + "counters/local_link_integrity_errors", "15"}},
     "port.counters",
     "mlx5_0/1:local_link_integrity_errors",
     "mlx5_0/1: local_link_integrity_errors 15 (saturated: the real count is higher; reset the "
     "counters), expected at most 100",
     "    checks: {counters: {local_link_integrity_errors: 100}}\n"},
    {"counter_255_of_16_bits",
     {{k_port + "counters/symbol_error", "255"}},
     "port.counters",
     "mlx5_0/1:symbol_error",
     "mlx5_0/1: symbol_error 255, expected at most 10",
     "    checks: {counters: {symbol_error: 10}}\n"},
    {"ipoib_missing", {{"class/net/ib1", ""}}, "ipoib.exists", "ib1", "ib1: no such interface"},
    {"ipoib_no_carrier",
     {{"class/net/ib0/carrier", "0"}, {"class/net/ib0/operstate", "down"}},
     "ipoib.up",
     "ib0",
     "ib0: not up with carrier (up, operstate down, carrier off)"},
    {"ipoib_mode",
     {{"class/net/ib0/mode", "connected"}},
     "ipoib.mode",
     "ib0",
     "ib0: mode connected, expected datagram"},
    {"ipoib_mtu",
     {{"class/net/ib0/mtu", "2044"}},
     "ipoib.mtu",
     "ib0",
     "ib0: MTU 2044, expected 4092"},
};

INSTANTIATE_TEST_SUITE_P(Fixtures, CheckFailure, ::testing::ValuesIn(k_cases),
                         [](const ::testing::TestParamInfo<Case>& param) {
                           return std::string(param.param.name);
                         });

TEST(CheckLocal, AddressDriftNamesMissingAndUnexpected)
{
  const auto p = profile::load_profile(k_profile);
  const auto node = profile::resolve_node(p, "hdr01");
  inventory::Options o;
  o.sysfs_root = (k_fixtures / "hdr-2hca").string();
  o.netdev_names = {"ib0", "ib1"};
  auto host = inventory::inspect(o);
  for (auto& n : host.netdevs) {
    std::string why;
    n.addresses = {
        *IpPrefix::parse(n.name == "ib0" ? "10.10.0.1/16" : "10.99.0.1/16", Family::ipv4, &why)};
  }
  const auto results = check::check_local(node, host, o.sysfs_root, {true});
  const auto failed = failures(results);
  ASSERT_EQ(failed.size(), 1U);
  EXPECT_EQ(failed[0]->id, "ipoib.addresses");
  EXPECT_EQ(failed[0]->message,
            "ib1: addresses 10.99.0.1/16, missing 10.11.0.1/16, unexpected 10.99.0.1/16");
  EXPECT_EQ(failed[0]->expected, "10.11.0.1/16");
  // The wanted address is a secondary of an unexpected primary: the plan removes and re-adds
  // it, and the check names it neither missing nor unexpected.
  for (auto& n : host.netdevs) {
    if (n.name == "ib1") {
      std::string why;
      n.addresses = {*IpPrefix::parse("10.11.0.50/16", Family::ipv4, &why),
                     *IpPrefix::parse("10.11.0.1/16", Family::ipv4, &why)};
    }
  }
  const auto results_again = check::check_local(node, host, o.sysfs_root, {true});
  const auto again = failures(results_again);
  ASSERT_EQ(again.size(), 1U);
  EXPECT_EQ(again[0]->message,
            "ib1: addresses 10.11.0.50/16 10.11.0.1/16, unexpected 10.11.0.50/16");
}

// A plan error is reported on the interface its record names, with the planner's text.
TEST(CheckLocal, PlanErrorNamesItsInterface)
{
  test::TempDir tmp;
  const fs::path root = healthy_copy(tmp);
  std::ofstream(root / k_port / "link_layer") << "Ethernet\n";
  std::vector<const check::Result*> plan_errors;
  const auto results = run(root, "");
  for (const auto* f : failures(results)) {
    if (f->id == "ipoib.plan") {
      plan_errors.push_back(f);
    }
  }
  ASSERT_EQ(1U, plan_errors.size());
  EXPECT_EQ("ib0", plan_errors[0]->subject);
  EXPECT_EQ(
      "ib0: mlx5_0 port 1 is an Ethernet (RoCE) port; IPoIB needs an InfiniBand port (set "
      "link_type: ib)",
      plan_errors[0]->message);
  EXPECT_EQ(plan_errors[0]->message, plan_errors[0]->observed);
}

// With a plan error for the interface the planner has no action for it, and mode and MTU
// passed whatever they were ("mode datagram", expected connected); so with --warn ipoib.plan a
// node in the wrong mode was ok. They are compared with the profile too.
TEST(CheckLocal, ModeAndMtuFailBesideAPlanError)
{
  const auto results =
      run(k_fixtures / "hdr-2hca", "", "        mode: connected\n        mtu: 65520\n");
  std::map<std::string, std::string> ib0;
  for (const auto* f : failures(results)) {
    if (f->subject == "ib0") {
      ib0[f->id] = f->message;
    }
  }
  EXPECT_EQ(1U, ib0.count("ipoib.plan"));
  EXPECT_EQ("ib0: mode datagram, expected connected", ib0["ipoib.mode"]);
  EXPECT_EQ("ib0: MTU 4092, expected 65520", ib0["ipoib.mtu"]);
}

TEST(CheckSettings, DisabledBecomeSkipAndWarnOnlyBecomeWarnings)
{
  std::vector<check::Result> r = {
      {"port.rate", "a/1", check::Status::fail, "", "", "slow", {}, {}},
      {"port.sm", "a/1", check::Status::fail, "", "", "no sm", {}, {}},
      {"hca.firmware", "a", check::Status::fail, "", "", "old", {}, {}}};
  check::apply_settings(r, {{"port.rate"}, {"hca"}});
  EXPECT_EQ(r[0].status, check::Status::skip);
  EXPECT_EQ(r[1].status, check::Status::fail);
  EXPECT_EQ(r[2].status, check::Status::warn);
  check::Report report{"h", r};
  EXPECT_EQ(check::report_to_nhc(report),
            "ERROR:  ibsetup:  Health check failed:  no sm\nWARNING:  ibsetup:  old\n");
  EXPECT_FALSE(report.ok());
  EXPECT_TRUE(check::is_check_id_or_group("port"));
  EXPECT_FALSE(check::is_check_id_or_group("port.speed"));
}

TEST(CheckReportText, SummaryCountsAgreeInNumber)
{
  check::Report one{"h",
                    {{"port.rate", "a/1", check::Status::warn, "", "", "slow", {}, {}},
                     {"port.sm", "a/1", check::Status::pass, "", "", "sm", {}, {}}}};
  const std::string text = check::report_to_text(one);
  EXPECT_NE(text.find("h: ok (1 passed, 1 warning, 0 failed, 0 skipped)"), std::string::npos)
      << text;
  one.checks[1].status = check::Status::warn;
  EXPECT_NE(check::report_to_text(one).find("(0 passed, 2 warnings,"), std::string::npos);
}

}  // namespace
