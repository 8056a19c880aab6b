// check's metrics: the exposition format rules (HELP and TYPE, escaping, invalid UTF-8, sorted
// and byte-stable), stable port series, and agreement with --json result by result.
#include "gtest_compat.hpp"
#include "test_util.hpp"

#include "check/metrics_writer.hpp"

#include <ibsetup/check.hpp>
#include <ibsetup/fleet.hpp>
#include <ibsetup/inventory.hpp>
#include <ibsetup/profile.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using namespace ibsetup;
using check::metrics::escape_label_value;
using check::metrics::format_value;

namespace {

const fs::path k_fixtures = fs::path(IBSETUP_TEST_DATA) / "../fixtures/sysfs";
const std::string k_profile = std::string(IBSETUP_TEST_DATA) + "/check/cluster.yaml";

// Samples by "name{labels}" as printed, and the families that have HELP and TYPE lines.
struct Parsed {
  std::map<std::string, std::string> samples;
  std::set<std::string> help;
  std::map<std::string, std::string> type;
  std::vector<std::string> order;  // sample keys in output order
};

Parsed parse(const std::string& text)
{
  Parsed p;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# HELP ", 0) == 0) {
      p.help.insert(line.substr(7, line.find(' ', 7) - 7));
    } else if (line.rfind("# TYPE ", 0) == 0) {
      const auto sp = line.find(' ', 7);
      p.type[line.substr(7, sp - 7)] = line.substr(sp + 1);
    } else {
      const auto sp = line.rfind(' ');
      EXPECT_EQ(p.samples.count(line.substr(0, sp)), 0u) << "duplicate series: " << line;
      p.samples[line.substr(0, sp)] = line.substr(sp + 1);
      p.order.push_back(line.substr(0, sp));
    }
  }
  return p;
}

std::string family_of(const std::string& key)
{
  return key.substr(0, key.find('{'));
}

check::CheckOutcome outcome_of(const fs::path& root)
{
  const auto p = profile::load_profile(k_profile);
  const auto node = profile::resolve_node(p, "hdr01");
  inventory::Options o;
  o.sysfs_root = root.string();
  o.counters = true;
  o.netdev_names = {"ib0", "ib1"};
  check::CheckOutcome out;
  out.host = inventory::inspect(o);
  out.report.host = "hdr01";
  out.report.checks = check::check_local(node, *out.host, root.string(), {false});
  out.finished_s = 1764800000.5;
  out.duration_s = 0.25;
  return out;
}

// A writable copy of a fixture tree.
struct Tree {
  test::TempDir dir;
  fs::path root = dir.path() / "sys";
  explicit Tree(const fs::path& fixture)
  {
    fs::copy(fixture, root, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  }
  void write(const std::string& path, const std::string& text) const
  {
    std::ofstream(root / path) << text;
  }
};

std::string key(const std::string& family, const std::string& id, const std::string& subject)
{
  return family + "{id=\"" + escape_label_value(id) + "\",subject=\"" +
         escape_label_value(subject) + "\"}";
}

TEST(MetricsWriter, EscapesLabelValues)
{
  EXPECT_EQ(escape_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(escape_label_value("mlx5_0/1"), "mlx5_0/1");
  EXPECT_EQ(escape_label_value("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
}

TEST(MetricsWriter, ReplacesInvalidUtf8)
{
  const std::string bad[] = {"\xff",    "\xc3", "\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80",
                             "\xe2\x82"};
  for (const auto& b : bad) {
    const std::string out = escape_label_value("x" + b + "y");
    EXPECT_EQ(out.front(), 'x');
    EXPECT_EQ(out.back(), 'y');
    EXPECT_NE(out.find("\xef\xbf\xbd"), std::string::npos) << out;
  }
  EXPECT_EQ(escape_label_value("\xff\""), "\xef\xbf\xbd\\\"");
}

TEST(MetricsWriter, ReplacesControlBytes)
{
  const std::string in = std::string(
                             "a\x1b[2Jb\x07"
                             "c") +
                         '\0' + "d\x7f" + "e\tf";
  const std::string fffd = "\xef\xbf\xbd";
  EXPECT_EQ(escape_label_value(in),
            "a" + fffd + "[2Jb" + fffd + "c" + fffd + "d" + fffd + "e" + fffd + "f");
  EXPECT_EQ(escape_label_value("x\ny"), "x\\ny");
  // C1 controls (U+0085 NEL, U+009B CSI) too: the stdout guard would write them as \u0085, an
  // escape promtool refuses. U+00A0, the first character after them, stays.
  EXPECT_EQ(escape_label_value("MT\xc2\x85X\xc2\x9bY\xc2\xa0"),
            "MT" + fffd + "X" + fffd + "Y\xc2\xa0");
}

TEST(MetricsWriter, FormatsValues)
{
  EXPECT_EQ(format_value(1), "1");
  EXPECT_EQ(format_value(0), "0");
  EXPECT_EQ(format_value(25000000000.0), "25000000000");
  EXPECT_EQ(format_value(0.1), "0.1");
  EXPECT_EQ(format_value(3.1e-6), "3.1e-06");
  EXPECT_EQ(format_value(1764800000.5), "1764800000.5");
  EXPECT_EQ(format_value(1.0 / 0.0), "+Inf");
  EXPECT_EQ(format_value(-1.0 / 0.0), "-Inf");
  EXPECT_EQ(format_value(0.0 / 0.0), "NaN");
}

TEST(MetricsWriter, DuplicateSeriesKeepTheLargerValue)
{
  check::metrics::Exposition m;
  m.gauge("x_failed", "help");
  m.set("x_failed", {{"id", "a"}}, 0);
  m.set("x_failed", {{"id", "a"}}, 1);
  m.set("x_failed", {{"id", "a"}}, 0);
  EXPECT_EQ(m.str(), "# HELP x_failed help\n# TYPE x_failed gauge\nx_failed{id=\"a\"} 1\n");
}

// Two label values that print alike are one series: two devices named with different
// control bytes were two identical series, and node_exporter refused the file.
TEST(MetricsWriter, ValuesThatPrintAlikeAreOneSeries)
{
  check::metrics::Exposition m;
  m.gauge("x_state", "help");
  m.set("x_state", {{"device", "mx\x01"}}, 1);
  m.set("x_state", {{"device", "mx\x02"}}, 4);
  EXPECT_EQ(m.str(),
            "# HELP x_state help\n# TYPE x_state gauge\nx_state{device=\"mx\xef\xbf\xbd\"} 4\n");
}

TEST(CheckMetrics, EveryFamilyHasHelpAndTypeAndOutputIsSorted)
{
  const auto out = outcome_of(k_fixtures / "hdr-2hca");
  const auto text = check::outcome_to_metrics(out);
  const auto p = parse(text);
  for (const auto& s : p.samples) {
    const auto f = family_of(s.first);
    EXPECT_EQ(p.help.count(f), 1u) << f;
    EXPECT_EQ(p.type.at(f), "gauge") << f;
  }
  EXPECT_TRUE(std::is_sorted(
      p.order.begin(), p.order.end(),
      [](const std::string& a, const std::string& b) { return family_of(a) < family_of(b); }));
  EXPECT_EQ(p.samples.at("ibsetup_check_ok"), "1");
  EXPECT_EQ(p.samples.at("ibsetup_check_timestamp_seconds"), "1764800000.5");
  EXPECT_EQ(p.samples.at("ibsetup_check_duration_seconds"), "0.25");
  EXPECT_EQ(p.samples.at("ibsetup_check_host_info{host=\"hdr01\"}"), "1");
  EXPECT_EQ(p.samples.at("ibsetup_port_state{device=\"mlx5_0\",port=\"1\"}"), "4");
  EXPECT_EQ(p.samples.at("ibsetup_port_physical_state{device=\"mlx5_0\",port=\"1\"}"), "5");
  EXPECT_EQ(p.samples.at("ibsetup_port_rate_bytes_per_second{device=\"mlx5_0\",port=\"1\"}"),
            "25000000000");
  EXPECT_EQ(p.samples.at("ibsetup_pcie_link_width{device=\"mlx5_0\"}"), "16");
  EXPECT_EQ(p.samples.at("ibsetup_pcie_link_transfers_per_second{device=\"mlx5_0\"}"),
            "16000000000");
  EXPECT_EQ(
      p.samples.count("ibsetup_hca_info{device=\"mlx5_0\",fw=\"20.31.1014\",type=\"MT4123\"}"), 1u)
      << text;
  EXPECT_EQ(p.samples.at("ibsetup_port_counters{device=\"mlx5_0\",port=\"1\",counter=\"symbol_"
                         "error\"}"),
            "0")
      << text;
  // Byte-stable: the same outcome, results in another order, prints the same text.
  auto shuffled = out;
  std::reverse(shuffled.report.checks.begin(), shuffled.report.checks.end());
  std::reverse(shuffled.host->devices.begin(), shuffled.host->devices.end());
  EXPECT_EQ(check::outcome_to_metrics(shuffled), text);
}

TEST(CheckMetrics, AgreesWithJsonResultByResult)
{
  const Tree tree(k_fixtures / "hdr-2hca");
  tree.write("class/infiniband/mlx5_0/ports/1/rate", "100 Gb/sec (4X EDR)\n");
  auto out = outcome_of(tree.root);
  out.report.checks.push_back(
      {"hca.firmware", "mlx5_1", check::Status::warn, "", "", "old", {}, {}});
  out.report.checks.push_back({"rdma.bandwidth", "mlx5_0/1 -> cn002", check::Status::pass,
                               "at least 180 Gb/s (90% of 200)", "196 Gb/s", "", 196.5, "Gb/s"});
  out.report.checks.push_back({"rdma.latency", "mlx5_0/1 -> cn002", check::Status::pass, "",
                               "median 3.1 us, p99 4.2 us", "", 3.1, "us"});
  const auto p = parse(check::outcome_to_metrics(out));
  const auto json = check::report_to_json(out.report);
  bool ok = true;
  const auto back = check::parse_check_json(json, &ok);
  ASSERT_EQ(back.checks.size(), out.report.checks.size());
  EXPECT_FALSE(ok);
  EXPECT_EQ(p.samples.at("ibsetup_check_ok"), "0");
  // One series per id and subject: results that share both (the duplicate added above) make
  // a sample that is 1 when any of them failed (warned).
  std::map<std::string, std::string> want;
  size_t failed = 0;
  for (const auto& r : back.checks) {
    auto& f = want[key("ibsetup_check_failed", r.id, r.subject)];
    auto& w = want[key("ibsetup_check_warning", r.id, r.subject)];
    f = f == "1" || r.status == check::Status::fail ? "1" : "0";
    w = w == "1" || r.status == check::Status::warn ? "1" : "0";
    failed += r.status == check::Status::fail;
  }
  for (const auto& k : want) {
    EXPECT_EQ(p.samples.at(k.first), k.second) << k.first;
  }
  EXPECT_EQ(p.samples.at(key("ibsetup_check_warning", "hca.firmware", "mlx5_1")), "1");
  EXPECT_EQ(p.samples.at(key("ibsetup_check_failed", "hca.firmware", "mlx5_1")), "0");
  size_t series = 0;
  for (const auto& sample : p.samples) {
    series += sample.first.rfind("ibsetup_check_failed{", 0) == 0;
  }
  EXPECT_EQ(series, back.checks.size() - 1);
  EXPECT_GE(failed, 1u);
  EXPECT_EQ(p.samples.at(key("ibsetup_check_failed", "port.rate", "mlx5_0/1")), "1");
  EXPECT_EQ(p.samples.at("ibsetup_rdma_bandwidth_bytes_per_second{subject=\"mlx5_0/1 -> "
                         "cn002\"}"),
            "24562500000");
  EXPECT_EQ(p.samples.at("ibsetup_rdma_latency_seconds{subject=\"mlx5_0/1 -> cn002\"}"), "3.1e-06");
  EXPECT_EQ(p.samples.at("ibsetup_check_value{id=\"rdma.latency\",subject=\"mlx5_0/1 -> "
                         "cn002\",unit=\"us\"}"),
            "3.1");
}

TEST(CheckMetrics, AMeasurementThatDidNotHappenIsNaNNotZero)
{
  check::CheckOutcome out;
  out.report.checks.push_back(
      {"rdma.bandwidth", "mlx5_0/1 -> cn002", check::Status::fail, "", "no answer", "", {}, {}});
  out.report.checks.push_back(
      {"rdma.latency", "mlx5_0/1 -> cn002", check::Status::skip, "", "", "", {}, {}});
  out.report.checks.push_back(
      {"rdma.bandwidth", "mlx5_0/1 -> cn003", check::Status::pass, "", "", "", 190.0, "Gb/s"});
  out.report.checks.push_back(
      {"rdma.bandwidth", "mlx5_0/1 -> cn003", check::Status::fail, "", "", "", {}, {}});
  const auto p = parse(check::outcome_to_metrics(out));
  EXPECT_EQ(p.samples.at("ibsetup_rdma_bandwidth_bytes_per_second{subject=\"mlx5_0/1 -> cn002\"}"),
            "NaN");
  EXPECT_EQ(p.samples.at("ibsetup_rdma_latency_seconds{subject=\"mlx5_0/1 -> cn002\"}"), "NaN");
  EXPECT_EQ(p.samples.at("ibsetup_rdma_bandwidth_bytes_per_second{subject=\"mlx5_0/1 -> cn003\"}"),
            "23750000000");
  EXPECT_EQ(p.samples.count("ibsetup_check_value{id=\"rdma.bandwidth\",subject=\"mlx5_0/1 -> "
                            "cn002\",unit=\"\"}"),
            0u);
}

TEST(CheckMetrics, PortThatGoesDownKeepsItsSeries)
{
  const auto up = parse(check::outcome_to_metrics(outcome_of(k_fixtures / "hdr-2hca")));
  const Tree tree(k_fixtures / "hdr-2hca");
  const std::string port = "class/infiniband/mlx5_0/ports/1/";
  tree.write(port + "state", "1: DOWN\n");
  tree.write(port + "phys_state", "2: Polling\n");
  tree.write(port + "rate", "10 Gb/sec (4X SDR)\n");
  tree.write(port + "lid", "0x0\n");
  const auto down = parse(check::outcome_to_metrics(outcome_of(tree.root)));
  std::set<std::string> up_port;
  std::set<std::string> down_port;
  for (const auto& s : up.samples) {
    if (s.first.rfind("ibsetup_port", 0) == 0 || s.first.rfind("ibsetup_check_failed", 0) == 0) {
      up_port.insert(s.first);
    }
  }
  for (const auto& s : down.samples) {
    if (s.first.rfind("ibsetup_port", 0) == 0 || s.first.rfind("ibsetup_check_failed", 0) == 0) {
      down_port.insert(s.first);
    }
  }
  for (const auto& k : up_port) {
    EXPECT_EQ(down_port.count(k), 1u) << "vanished: " << k;
  }
  const std::string l = "{device=\"mlx5_0\",port=\"1\"}";
  EXPECT_EQ(down.samples.at("ibsetup_port_rate_bytes_per_second" + l), "0");
  EXPECT_EQ(down.samples.at("ibsetup_port_state" + l), "1");
  EXPECT_EQ(down.samples.at("ibsetup_port_physical_state" + l), "2");
  EXPECT_EQ(down.samples.at("ibsetup_port_lid" + l), "0");
  EXPECT_EQ(down.samples.at("ibsetup_check_ok"), "0");
}

TEST(CheckMetrics, PortThatVanishesKeepsItsSeries)
{
  const Tree tree(k_fixtures / "hdr-2hca");
  // mlx5_0's port 1 is gone from sysfs, and mlx5_1 (declared too) with all of it.
  fs::remove_all(tree.root / "class/infiniband/mlx5_0/ports/1");
  fs::remove_all(tree.root / "class/infiniband/mlx5_1");
  check::CheckOptions o;
  o.profile_file = k_profile;
  o.node = "hdr01";
  o.sysfs_root = tree.root.string();
  const auto outcome = check::run_check(o, {});
  const auto m = parse(check::outcome_to_metrics(outcome));
  for (const std::string device : {"mlx5_0", "mlx5_1"}) {
    const std::string l = "{device=\"" + device + "\",port=\"1\"}";
    for (const char* family :
         {"ibsetup_port_state", "ibsetup_port_physical_state", "ibsetup_port_rate_bytes_per_second",
          "ibsetup_port_lid", "ibsetup_port_sm_lid"}) {
      const auto it = m.samples.find(family + l);
      ASSERT_NE(it, m.samples.end()) << "vanished: " << family << l;
      EXPECT_EQ(it->second, "0") << family << l;
    }
  }
  EXPECT_EQ(m.samples.at("ibsetup_check_ok"), "0");
  // A run cut short knows no ports: no made-up series.
  check::CheckOutcome timed_out;
  timed_out.report = check::timeout_report("hdr01", 1, true);
  timed_out.timed_out = true;
  const auto t = parse(check::outcome_to_metrics(timed_out));
  EXPECT_EQ(t.samples.count("ibsetup_port_state{device=\"mlx5_0\",port=\"1\"}"), 0u);
}

TEST(CheckMetrics, HostileStringsStayInTheirLabel)
{
  check::CheckOutcome out;
  out.report.host = "cn\"01\\\n\xff";
  out.report.checks.push_back(
      {"port.state", "mlx5_0/1\"} 1\nevil 1", check::Status::fail, "", "", "", {}, {}});
  out.host.emplace();
  out.host->devices.emplace_back();
  out.host->devices[0].name = "mlx5_\xc0\x80";
  out.host->devices[0].fw_ver = std::string("20.\n31\"\\");
  const auto text = check::outcome_to_metrics(out);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    EXPECT_TRUE(line.rfind("# ", 0) == 0 || line.rfind("ibsetup_", 0) == 0) << line;
  }
  EXPECT_NE(text.find("ibsetup_check_host_info{host=\"cn\\\"01\\\\\\n\xef\xbf\xbd\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("subject=\"mlx5_0/1\\\"} 1\\nevil 1\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("fw=\"20.\\n31\\\"\\\\\""), std::string::npos) << text;
}

TEST(CheckMetrics, FormatReportOpenmetricsIsTheReportAlone)
{
  const auto out = outcome_of(k_fixtures / "hdr-2hca");
  const auto p = parse(check::format_report(out.report, "openmetrics"));
  EXPECT_EQ(p.samples.at("ibsetup_check_ok"), "1");
  EXPECT_EQ(p.samples.count("ibsetup_port_state{device=\"mlx5_0\",port=\"1\"}"), 0u);
  EXPECT_GT(std::stod(p.samples.at("ibsetup_check_timestamp_seconds")), 1.7e9);
}

TEST(FleetMetrics, CountsHostsByOutcomeIdFirmwareAndRate)
{
  check::FleetInput in;
  const std::string pass =
      R"J({"host":"cn001","ok":true,"checks":[)J"
      R"J({"id":"hca.firmware","subject":"mlx5_0","status":"pass","observed":"20.31.1014"},)J"
      R"J({"id":"port.rate","subject":"mlx5_0/1","status":"pass","observed":"200 Gb/s (4X HDR)"}]})J";
  const std::string fail =
      R"J({"host":"cn002","ok":false,"checks":[)J"
      R"J({"id":"hca.firmware","subject":"mlx5_0","status":"pass","observed":"20.31.1014"},)J"
      R"J({"id":"port.rate","subject":"mlx5_0/1","status":"fail","observed":"100 Gb/s (4X EDR)","message":"slow"},)J"
      R"J({"id":"port.rate","subject":"mlx5_1/1","status":"fail","observed":"100 Gb/s (4X EDR)","message":"slower"}]})J";
  check::add_fleet_line(in, "cn001: " + pass);
  check::add_fleet_line(in, "cn002: " + fail);
  check::add_fleet_line(in, "cn003: garbage");
  // clush -N (the result's own host names it), with a hostile firmware version.
  std::string odd = pass;
  odd.replace(odd.find("cn001"), 5, "cn004");
  odd.replace(odd.find("20.31.1014"), 10, "20\\\"4\\\\\\u00e9\\n");
  check::add_fleet_line(in, odd);
  const auto s = check::summarize_fleet(in, {"cn001", "cn002", "cn003", "cn005"});
  const auto text = check::fleet_to_metrics(s, 1764800000);
  const auto p = parse(text);
  for (const auto& sample : p.samples) {
    EXPECT_EQ(p.help.count(family_of(sample.first)), 1u);
  }
  EXPECT_EQ(p.samples.at("ibsetup_fleet_ok"), "0");
  EXPECT_EQ(p.samples.at("ibsetup_fleet_hosts{outcome=\"passed\"}"), "2");
  EXPECT_EQ(p.samples.at("ibsetup_fleet_hosts{outcome=\"failed\"}"), "1");
  EXPECT_EQ(p.samples.at("ibsetup_fleet_hosts{outcome=\"invalid\"}"), "1");
  EXPECT_EQ(p.samples.at("ibsetup_fleet_hosts{outcome=\"no_answer\"}"), "1");
  EXPECT_EQ(p.samples.at("ibsetup_fleet_unexpected_hosts"), "1");
  // Two failing ports of one host: one host for port.rate.
  EXPECT_EQ(p.samples.at("ibsetup_fleet_check_failed_hosts{id=\"port.rate\"}"), "1");
  EXPECT_EQ(p.samples.at("ibsetup_fleet_firmware_hosts{version=\"20.31.1014\"}"), "2");
  EXPECT_EQ(p.samples.at("ibsetup_fleet_port_rate_hosts{rate=\"200 Gb/s (4X HDR)\"}"), "2");
  EXPECT_EQ(p.samples.at("ibsetup_fleet_port_rate_hosts{rate=\"100 Gb/s (4X EDR)\"}"), "1");
  EXPECT_EQ(p.samples.at("ibsetup_fleet_host_ok{host=\"cn001\"}"), "1");
  EXPECT_EQ(p.samples.at("ibsetup_fleet_host_ok{host=\"cn005\"}"), "0");
  EXPECT_EQ(p.samples.at("ibsetup_fleet_host_ok{host=\"cn004\"}"), "1");
  EXPECT_EQ(p.samples.at("ibsetup_fleet_firmware_hosts{version=\"20\\\"4\\\\\xc3\xa9\\n\"}"), "1")
      << text;
  EXPECT_EQ(p.samples.at("ibsetup_fleet_timestamp_seconds"), "1764800000");
  EXPECT_EQ(check::fleet_to_metrics(s, 1764800000), text);
}

}  // namespace
