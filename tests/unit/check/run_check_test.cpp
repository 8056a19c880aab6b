// run_check as one operation: the budget, the merge of the profile's settings with the
// caller's, which probes run where, the saved inventory, the hooks and Slurm. The host is the
// healthy fixture tree (every local check passes on it) or a slow read through the observe hook.
#include "gtest_compat.hpp"
#include "test_util.hpp"

#include <ibsetup/check.hpp>
#include <ibsetup/error.hpp>
#include <ibsetup/inventory.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <thread>

namespace fs = std::filesystem;
using namespace ibsetup;

namespace {

const std::string k_healthy = std::string(IBSETUP_FIXTURES) + "/sysfs/hdr-2hca";
const std::string k_profile = std::string(IBSETUP_TEST_DATA) + "/check/cluster.yaml";

check::CheckOptions healthy_options()
{
  check::CheckOptions o;
  o.profile_file = k_profile;
  o.node = "hdr01";
  o.sysfs_root = k_healthy;
  return o;
}

// The profile of the check tests with YAML appended to its node group (4 spaces).
std::string profile_with(const test::TempDir& tmp, const std::string& extra)
{
  std::string path = (tmp.path() / "cluster.yaml").string();
  std::ofstream(path) << test::read_text(k_profile) << extra;
  return path;
}

const check::Result* find(const check::Report& report, const std::string& id)
{
  for (const auto& r : report.checks) {
    if (r.id == id) {
      return &r;
    }
  }
  return nullptr;
}

TEST(RunCheck, HealthyFixturePassesWithoutProbesOrSlurm)
{
  int verdicts = 0;
  bool loaded = false;
  check::CheckHooks hooks;
  hooks.loaded = [&] { loaded = true; };
  hooks.verdict = [&](const check::CheckOutcome& o) {
    ++verdicts;
    EXPECT_TRUE(o.report.ok());
  };
  const auto out = check::run_check(healthy_options(), hooks);
  EXPECT_TRUE(loaded);
  EXPECT_EQ(verdicts, 1);
  EXPECT_EQ(out.report.host, "hdr01");
  EXPECT_TRUE(out.report.ok()) << check::report_to_text(out.report);
  EXPECT_FALSE(out.timed_out);
  EXPECT_FALSE(out.slurm.has_value());
  EXPECT_TRUE(out.warnings.empty());
  // A captured tree is another machine: neither ICMP nor RDMA probes run for it.
  EXPECT_EQ(find(out.report, "ip.peer"), nullptr);
  for (const auto& r : out.report.checks) {
    EXPECT_NE(r.id.rfind("rdma.", 0), 0U) << r.message;
  }
}

// The old IBSETUP_CHECK_DELAY_MS case, through the seam: a read that outlasts the budget ends
// in one failing "timeout" result, the verdict that the front end prints.
TEST(RunCheck, ObserveThatOutlastsTheBudgetTimesOut)
{
  auto o = healthy_options();
  o.timeout_s = 0.2;
  check::CheckHooks hooks;
  bool observed = false;
  hooks.observe = [&](const profile::ResolvedNode&, const inventory::Options& io) {
    observed = true;
    EXPECT_EQ(io.sysfs_root, k_healthy);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    return inventory::inspect(io);
  };
  std::vector<std::string> printed;
  hooks.verdict = [&](const check::CheckOutcome& out) {
    printed.push_back(check::report_to_json(out.report));
  };
  const auto start = std::chrono::steady_clock::now();
  const auto out = check::run_check(o, hooks);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  EXPECT_TRUE(observed);
  EXPECT_TRUE(out.timed_out);
  EXPECT_FALSE(out.report.ok());
  ASSERT_EQ(out.report.checks.size(), 1U);
  const auto& r = out.report.checks[0];
  EXPECT_EQ(r.id, "timeout");
  EXPECT_EQ(r.subject, "hdr01");
  EXPECT_EQ(r.observed, "still running");
  EXPECT_EQ(r.message, "hdr01: check did not finish within 0.2 s (--timeout)");
  ASSERT_EQ(printed.size(), 1U);
  EXPECT_EQ(printed[0], check::report_to_json(out.report));
}

TEST(RunCheck, ObserveWithinTheBudgetIsJudged)
{
  auto o = healthy_options();
  o.timeout_s = 5;
  check::CheckHooks hooks;
  hooks.observe = [](const profile::ResolvedNode&, const inventory::Options& io) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return inventory::inspect(io);
  };
  const auto out = check::run_check(o, hooks);
  EXPECT_FALSE(out.timed_out);
  EXPECT_TRUE(out.report.ok());
  EXPECT_NE(find(out.report, "port.state"), nullptr);
}

TEST(RunCheck, TimeoutReportWhileLoading)
{
  const auto r = check::timeout_report("cn01", 1.5, false);
  ASSERT_EQ(r.checks.size(), 1U);
  EXPECT_EQ(r.checks[0].observed, "still loading the profile");
  EXPECT_EQ(r.checks[0].message,
            "cn01: check did not finish within 1.5 s (--timeout); the profile was still being "
            "loaded");
}

// The profile's checks.disable/warn and the caller's lists add up.
TEST(RunCheck, ProfileAndCallerSettingsMerge)
{
  test::TempDir tmp;
  auto o = healthy_options();
  // Port 1 of mlx5_1 runs at 200: asking for 400 fails port.rate, which the profile turns
  // into a warning; the caller disables the pcie group.
  o.profile_file = profile_with(tmp, "    checks:\n      warn: [port.rate]\n");
  std::string text = test::read_text(o.profile_file);
  const std::string from = "          - {port: 1, rate: 200}\n";
  text.replace(text.find(from), from.size(), "          - {port: 1, rate: 400}\n");
  std::ofstream(o.profile_file) << text;
  o.disable = {"pcie"};
  const auto out = check::run_check(o);
  EXPECT_TRUE(out.report.ok()) << check::report_to_text(out.report);
  size_t warned = 0;
  for (const auto& r : out.report.checks) {
    if (r.id == "port.rate" && r.status == check::Status::warn) {
      ++warned;
      EXPECT_EQ(r.subject, "mlx5_1/1");
    }
    if (r.id.rfind("pcie.", 0) == 0) {
      EXPECT_EQ(r.status, check::Status::skip) << r.message;
    }
  }
  EXPECT_EQ(warned, 1U);
  // The caller's warn list alone does the same when the profile has none.
  o.profile_file = k_profile;
  o.warn = {"port"};
  EXPECT_TRUE(check::run_check(o).report.ok());
}

TEST(RunCheck, PeersAreSkippedOffThisMachineAndWithNoPeers)
{
  test::TempDir tmp;
  auto o = healthy_options();
  o.profile_file = profile_with(tmp, "    checks:\n      peers: [hdr02]\n");
  auto out = check::run_check(o);
  const auto* peer = find(out.report, "ip.peer");
  ASSERT_NE(peer, nullptr);
  EXPECT_EQ(peer->status, check::Status::skip);
  EXPECT_EQ(peer->message,
            "hdr01: peers are probed only when checking this machine, not a "
            "captured tree or a saved inventory");
  o.no_peers = true;
  EXPECT_EQ(find(check::run_check(o).report, "ip.peer"), nullptr);
  o.no_peers = false;
  o.disable = {"ip.peer"};
  EXPECT_EQ(find(check::run_check(o).report, "ip.peer"), nullptr);
}

TEST(RunCheck, SavedInventorySkipsTheAbiFiles)
{
  test::TempDir tmp;
  inventory::Options io;
  io.sysfs_root = k_healthy;
  io.netdev_names = {"ib0", "ib1"};
  const std::string saved = (tmp.path() / "inventory.json").string();
  std::ofstream(saved) << inventory::host_to_json(inventory::inspect(io));
  auto o = healthy_options();
  o.sysfs_root = "/sys";  // not read: the saved inventory is the host
  o.inventory_file = saved;
  const auto out = check::run_check(o);
  EXPECT_TRUE(out.report.ok()) << check::report_to_text(out.report);
  const auto* abi = find(out.report, "hca.abi");
  ASSERT_NE(abi, nullptr);
  EXPECT_EQ(abi->status, check::Status::skip);
  for (const auto& r : out.report.checks) {
    EXPECT_NE(r.id.rfind("rdma.", 0), 0U) << r.message;
  }
  std::ofstream(saved) << "{not json";
  EXPECT_THROW(check::run_check(o), InputError);
  o.inventory_file = (tmp.path() / "missing.json").string();
  EXPECT_THROW(check::run_check(o), EnvironmentError);
}

// A saved inventory is judged as the node checked, whatever host it names; when that is
// another machine the outcome says so, once, naming the file, with the name escaped and cut.
TEST(RunCheck, SavedInventoryOfAnotherHostIsJudgedWithAWarning)
{
  test::TempDir tmp;
  inventory::Options io;
  io.sysfs_root = k_healthy;
  io.netdev_names = {"ib0", "ib1"};
  auto host = inventory::inspect(io);
  const std::string saved = (tmp.path() / "inventory.json").string();
  auto o = healthy_options();
  o.inventory_file = saved;
  const auto run_as = [&](const std::string& taken_on) {
    host.host = taken_on;
    std::ofstream(saved, std::ios::trunc) << inventory::host_to_json(host);
    return check::run_check(o);
  };
  for (const std::string same : {"hdr01", "hdr01.cluster.example", ""}) {
    const auto out = run_as(same);
    EXPECT_TRUE(out.report.ok()) << check::report_to_text(out.report);
    EXPECT_TRUE(out.warnings.empty()) << same << ": " << out.warnings[0].format();
  }
  auto out = run_as("cn02");
  EXPECT_TRUE(out.report.ok()) << check::report_to_text(out.report);
  EXPECT_EQ(out.report.host, "hdr01");
  ASSERT_EQ(out.warnings.size(), 1U);
  EXPECT_EQ(out.warnings[0].format(),
            saved + R"(: warning: host: the inventory was taken on "cn02"; it is judged as node )"
                    R"("hdr01" (--node))");
  // Without --node the name came from this machine (as the front end resolves it).
  o.node.clear();
  check::CheckHooks hooks;
  hooks.resolve = [](const profile::Profile& p) { return profile::resolve_node(p, "hdr01"); };
  out = check::run_check(o, hooks);
  ASSERT_EQ(out.warnings.size(), 1U);
  EXPECT_NE(out.warnings[0].format().find(
                R"(judged as node "hdr01", this machine's name (--node chooses))"),
            std::string::npos)
      << out.warnings[0].format();
  o.node = "hdr01";
  // Controls escaped, a quote kept inside the name, cut after 64 bytes between characters.
  const std::string two_bytes = "\xc3\xa9";  // U+00E9, whose first byte is the 64th
  out = run_as("\x1b]0;x\x07\"; it is judged as node \"cn09" + std::string(28, 'x') + two_bytes +
               std::string(200, 'y'));
  ASSERT_EQ(out.warnings.size(), 1U);
  const std::string line = out.warnings[0].format();
  EXPECT_EQ(line.find('\x1b'), std::string::npos) << line;
  EXPECT_EQ(line.find('\x07'), std::string::npos) << line;
  EXPECT_NE(line.find(R"(taken on "\u001b]0;x\u0007\"; it is judged as node \"cn09)"),
            std::string::npos)
      << line;
  EXPECT_NE(
      line.find(std::string(28, 'x') + R"x( ... (265 bytes)"; it is judged as node "hdr01")x"),
      std::string::npos)
      << line;
  EXPECT_EQ(line.find("yy"), std::string::npos) << line;
}

TEST(RunCheck, ProfileWarningsAreInTheOutcome)
{
  test::TempDir tmp;
  auto o = healthy_options();
  // A pkey child in the interfaces list, which the group ends with.
  o.profile_file = profile_with(tmp, "      - {parent: ib0, pkey: 0x0001}\n");
  const auto out = check::run_check(o);
  ASSERT_EQ(out.warnings.size(), 1U);
  EXPECT_NE(out.warnings[0].format().find("lacks the full-membership bit 0x8000"),
            std::string::npos)
      << out.warnings[0].format();
}

// port.pkeys is the only check that looks at a P_Key table, so a node without pkey children
// is observed without them (128 files a port on mlx5; issue 15), and one with a pkey child
// still is, with the whole table in the message of a pkey that is missing.
TEST(RunCheck, PkeyTablesAreReadOnlyForANodeWithPkeyChildren)
{
  const auto without = check::run_check(healthy_options());
  ASSERT_TRUE(without.host.has_value());
  ASSERT_FALSE(without.host->devices.empty());
  ASSERT_FALSE(without.host->devices[0].ports.empty());
  EXPECT_TRUE(without.host->devices[0].ports[0].pkeys.empty());
  EXPECT_EQ(find(without.report, "port.pkeys"), nullptr);
  EXPECT_TRUE(without.report.ok()) << check::report_to_text(without.report);

  test::TempDir tmp;
  auto o = healthy_options();
  o.profile_file = profile_with(tmp, "      - {parent: ib0, pkey: 0x8002, ipv4: 10.12.0.0/16}\n");
  const auto with = check::run_check(o);
  ASSERT_TRUE(with.host.has_value());
  EXPECT_EQ((std::vector<uint16_t>{0xffff, 0x8001}), with.host->devices[0].ports[0].pkeys);
  const auto* pkeys = find(with.report, "port.pkeys");
  ASSERT_NE(pkeys, nullptr);
  EXPECT_NE(pkeys->message.find("not in the port's P_Key table (0xffff 0x8001)"), std::string::npos)
      << pkeys->message;
}

// Slurm is an effect after the verdict: asked for, it runs (here it cannot: no scontrol),
// with the timeout report when the budget ran out.
TEST(RunCheck, SlurmRunsAfterTheVerdict)
{
  auto o = healthy_options();
  o.slurm = true;
  o.scontrol = "/nonexistent/scontrol";
  bool verdict = false;
  check::CheckHooks hooks;
  hooks.verdict = [&](const check::CheckOutcome& out) {
    verdict = true;
    EXPECT_FALSE(out.slurm.has_value());
  };
  const auto out = check::run_check(o, hooks);
  EXPECT_TRUE(verdict);
  ASSERT_TRUE(out.slurm.has_value());
  EXPECT_NE(out.slurm->error.find("/nonexistent/scontrol"), std::string::npos) << out.slurm->error;
  EXPECT_TRUE(out.report.ok());
}

TEST(RunCheck, OptionsOutOfRangeAreInputErrors)
{
  auto o = healthy_options();
  o.disable = {"port.nosuch"};
  EXPECT_THROW(check::run_check(o), InputError);
  o = healthy_options();
  o.timeout_s = 0;
  EXPECT_THROW(check::run_check(o), InputError);
  o.timeout_s = std::nan("");
  EXPECT_THROW(check::run_check(o), InputError);
  o = healthy_options();
  o.peer_timeout_ms = 600001;
  EXPECT_THROW(check::run_check(o), InputError);
}

TEST(RunCheck, UnknownNodeIsAnInputError)
{
  auto o = healthy_options();
  o.node = "nosuchnode";
  EXPECT_THROW(check::run_check(o), InputError);
  // The front end's resolver is used instead of the library's.
  check::CheckHooks hooks;
  hooks.resolve = [](const profile::Profile& p) { return profile::resolve_node(p, "hdr07"); };
  EXPECT_EQ(check::run_check(o, hooks).report.host, "hdr07");
}

}  // namespace
