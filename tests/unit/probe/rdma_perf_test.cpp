// rdma.bandwidth and rdma.latency without a device: thresholds, the ports' rates as sysfs
// writes them, the responder's request validation, latency statistics, NUMA CPU lists and the
// profile's checks.bandwidth/latency.
#include "inventory/parse.hpp"
#include "probe/rdma_perf_logic.hpp"
#include "test_util.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/profile.hpp>

#include <cmath>
#include <cstdio>

#include "gtest_compat.hpp"

using namespace ibsetup;
using namespace ibsetup::check::rdma;

namespace {

profile::CheckSpec spec_with(std::optional<double> fraction, std::optional<double> gbps)
{
  profile::CheckSpec s;
  s.bandwidth_min_fraction = fraction;
  s.bandwidth_min_gbps = gbps;
  return s;
}

}  // namespace

TEST(RdmaPerfThreshold, DefaultIsNinetyPercentOfTheSlowerPort)
{
  const auto t = bandwidth_threshold({}, 200.0, 400.0);
  ASSERT_TRUE(t.min_gbps);
  EXPECT_DOUBLE_EQ(180, *t.min_gbps);
  EXPECT_EQ("at least 180 Gb/s (90% of 200)", t.expected);
  EXPECT_EQ("at least 180 (90% of 200)", t.brief);
  // Either side may be the slower one, or unknown.
  EXPECT_DOUBLE_EQ(90, *bandwidth_threshold({}, 400.0, 100.0).min_gbps);
  EXPECT_DOUBLE_EQ(360, *bandwidth_threshold({}, 400.0, std::nullopt).min_gbps);
  EXPECT_DOUBLE_EQ(360, *bandwidth_threshold({}, std::nullopt, 400.0).min_gbps);
  EXPECT_DOUBLE_EQ(360, *bandwidth_threshold({}, 0.0, 400.0).min_gbps);
  // A threshold the peer's (responder-reported) rate set says so.
  EXPECT_EQ("at least 90 Gb/s (90% of 100, the peer's port rate)",
            bandwidth_threshold({}, 400.0, 100.0).expected);
  EXPECT_EQ("at least 360 Gb/s (90% of 400, the peer's port rate)",
            bandwidth_threshold({}, std::nullopt, 400.0).expected);
  EXPECT_EQ("at least 360 Gb/s (90% of 400)", bandwidth_threshold({}, 400.0, 400.0).expected);
  // Soft-RoCE's 2.5 Gb/s (1X SDR).
  EXPECT_EQ("at least 2.25 Gb/s (90% of 2.5)", bandwidth_threshold({}, 2.5, 2.5).expected);
}

TEST(RdmaPerfThreshold, ProfileFractionAndAbsoluteRate)
{
  auto t = bandwidth_threshold(spec_with(0.95, std::nullopt), 200.0, 200.0);
  EXPECT_DOUBLE_EQ(190, *t.min_gbps);  // azurehpc's HDR bar
  EXPECT_EQ("at least 190 Gb/s (95% of 200)", t.expected);
  // An absolute rate wins and needs no port rate.
  t = bandwidth_threshold(spec_with(0.5, 180.0), std::nullopt, std::nullopt);
  EXPECT_DOUBLE_EQ(180, *t.min_gbps);
  EXPECT_EQ("at least 180 Gb/s", t.expected);
  t = bandwidth_threshold(spec_with(std::nullopt, 0.001), 2.5, std::nullopt);
  EXPECT_DOUBLE_EQ(0.001, *t.min_gbps);
  EXPECT_EQ("at least 0.001 Gb/s", t.expected);
  // Nothing known: no bar but a measurement.
  t = bandwidth_threshold({}, std::nullopt, std::nullopt);
  EXPECT_FALSE(t.min_gbps);
  EXPECT_NE(std::string::npos, t.expected.find("min_gbps"));
}

TEST(RdmaPerfThreshold, GbpsAndNumbers)
{
  EXPECT_DOUBLE_EQ(8, gbps(1000000000, 1));
  EXPECT_DOUBLE_EQ(0, gbps(100, 0));
  EXPECT_EQ("187.2", format_number(187.23));
  EXPECT_EQ("180", format_number(180.0));
  EXPECT_EQ("2.25", format_number(2.25));
  EXPECT_EQ("3.1", format_number(3.1));
  EXPECT_EQ("0.0123", format_number(0.0123));
  EXPECT_EQ("90", format_number(0.9 * 100));
}

// Every IB speed at every width, written as the kernel's rate_show() writes sysfs `rate`
// ("%d%s Gb/sec (%dX%s)", the lane rate in tenths times the width), read back by the
// inventory's parser: the rate the default threshold is 90% of.
TEST(RdmaPerfRate, EverySpeedAndWidth)
{
  struct Speed {
    const char* name;
    int tenths;  // Gb/s per lane x 10 (drivers/infiniband/core/sysfs.c)
  };
  const Speed speeds[] = {{"SDR", 25},  {"DDR", 50},  {"QDR", 100},  {"FDR10", 100}, {"FDR", 140},
                          {"EDR", 250}, {"HDR", 500}, {"NDR", 1000}, {"XDR", 2000}};
  const int widths[] = {1, 2, 4, 8, 12};
  int checked = 0;
  for (const auto& s : speeds) {
    for (const int w : widths) {
      const int rate = s.tenths * w;
      char text[64];
      std::snprintf(text, sizeof text, "%d%s Gb/sec (%dX %s)", rate / 10,
                    rate % 10 != 0 ? ".5" : "", w, s.name);
      const auto r = inventory::parse_rate(text);
      ASSERT_TRUE(r) << text;
      EXPECT_DOUBLE_EQ(rate / 10.0, r->gbps) << text;
      EXPECT_EQ(std::to_string(w) + "X", r->width) << text;
      ASSERT_TRUE(r->speed) << text;
      EXPECT_EQ(s.name, *r->speed) << text;
      ++checked;
    }
  }
  EXPECT_EQ(45, checked);
  // Spot values people know.
  EXPECT_DOUBLE_EQ(800, inventory::parse_rate("800 Gb/sec (4X XDR)")->gbps);
  EXPECT_DOUBLE_EQ(56, inventory::parse_rate("56 Gb/sec (4X FDR)")->gbps);
  EXPECT_DOUBLE_EQ(40, inventory::parse_rate("40 Gb/sec (4X FDR10)")->gbps);
  EXPECT_DOUBLE_EQ(2.5, inventory::parse_rate("2.5 Gb/sec (1X SDR)")->gbps);
  EXPECT_DOUBLE_EQ(5, inventory::parse_rate("5 Gb/sec (2X SDR)")->gbps);
  EXPECT_DOUBLE_EQ(360, *bandwidth_threshold({}, inventory::parse_rate("400 Gb/sec (4X NDR)")->gbps,
                                             std::nullopt)
                             .min_gbps);
}

TEST(RdmaPerfProtocol, RequestRoundTripsAndIsValidated)
{
  SessionRequest r;
  r.kind = SessionKind::bandwidth;
  r.size = 65536;
  r.duration_s = 2;
  unsigned char wire[56] = {};  // a connect request's private data, zero-padded
  encode_request(r, wire);
  const auto back = decode_request(wire, sizeof wire);
  ASSERT_TRUE(back);
  EXPECT_EQ(SessionKind::bandwidth, back->kind);
  EXPECT_EQ(65536u, back->size);
  EXPECT_EQ(2u, back->duration_s);
  EXPECT_EQ("", request_problem(*back));
  // An older client's ping-pong sends nothing (or zeros).
  const unsigned char zeros[56] = {};
  EXPECT_FALSE(decode_request(zeros, sizeof zeros));
  EXPECT_FALSE(decode_request(nullptr, 0));
  EXPECT_FALSE(decode_request(wire, 8));
  // Sizes and durations beyond what the responder allocates or serves.
  r.size = k_max_bw_size + 1;
  EXPECT_NE("", request_problem(r));
  r.size = 0;
  EXPECT_NE("", request_problem(r));
  r.size = 1024;
  r.duration_s = k_max_bw_duration_s + 1;
  EXPECT_NE("", request_problem(r));
  r.duration_s = 0;
  EXPECT_NE("", request_problem(r));
  SessionRequest lat;
  lat.kind = SessionKind::latency;
  lat.size = 2;
  EXPECT_EQ("", request_problem(lat));
  lat.size = k_max_lat_size + 1;
  EXPECT_NE("", request_problem(lat));
  SessionRequest odd;
  odd.kind = static_cast<SessionKind>(9);
  EXPECT_EQ("unknown session kind 9", request_problem(odd));
}

TEST(RdmaPerfProtocol, ReplyCarriesRateAndWindow)
{
  SessionReply r;
  r.rate_gbps = 2.5;
  r.address = 0x7f00deadbeef0000ULL;
  r.rkey = 0x1234;
  unsigned char wire[k_reply_bytes];
  encode_reply(r, wire);
  const auto back = decode_reply(wire, sizeof wire);
  ASSERT_TRUE(back);
  EXPECT_DOUBLE_EQ(2.5, back->rate_gbps);
  EXPECT_EQ(r.address, back->address);
  EXPECT_EQ(r.rkey, back->rkey);
  const unsigned char old[k_reply_bytes] = {};
  EXPECT_FALSE(decode_reply(old, sizeof old));
}

TEST(RdmaPerfStats, NearestRankPercentiles)
{
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) {
    v.push_back(i);
  }
  auto copy = v;
  EXPECT_DOUBLE_EQ(50, percentile(copy, 0.5));
  EXPECT_DOUBLE_EQ(99, percentile(v, 0.99));
  std::vector<double> one{3.1};
  EXPECT_DOUBLE_EQ(3.1, percentile(one, 0.99));
  std::vector<double> none;
  EXPECT_DOUBLE_EQ(0, percentile(none, 0.5));
}

TEST(RdmaPerfNuma, CpuLists)
{
  EXPECT_EQ((std::vector<int>{0, 1, 2, 3, 8, 9}), parse_cpulist("0-3,8-9\n"));
  EXPECT_EQ((std::vector<int>{5}), parse_cpulist("5"));
  EXPECT_TRUE(parse_cpulist("").empty());
  EXPECT_TRUE(parse_cpulist("3-1").empty());
  EXPECT_TRUE(parse_cpulist("a-b").empty());
  EXPECT_TRUE(parse_cpulist("1,,2").empty());
}

// A captured tree's file is anyone's: numbers past an int (sscanf's undefined behaviour),
// signs, spaces, and ranges that are not ascending and apart, which the kernel never prints
// and which would repeat CPUs (the list grew by 65536 entries per "0-65535").
TEST(RdmaPerfNuma, CpuListsFromAHostileTree)
{
  for (const char* bad : {"4294967296", "99999999999999999999",
                          "65536",      "0-65536",
                          "-1",         "+1",
                          " 1",         "1-",
                          "-",          "1--2",
                          "1-2-3",      "0x1",
                          "1,0",        "0-3,2-5",
                          "0-3,3",      "0-65535,0-65535",
                          "2,2",        "1,",
                          ",1",         "1\n2"}) {
    EXPECT_TRUE(parse_cpulist(bad).empty()) << bad;
  }
  const auto all = parse_cpulist("0-65535\n");
  ASSERT_EQ(65536u, all.size());
  EXPECT_EQ(65535, all.back());
  EXPECT_EQ((std::vector<int>{0, 2, 4, 5, 6, 65535}), parse_cpulist("0,2,4-6,65535"));
}

TEST(RdmaPerfProfile, ThresholdsReachTheNode)
{
  const char* yaml = R"(version: 1
nodes:
  - hosts: "cn[1-2]"
    checks:
      bandwidth: {min_fraction: 0.95}
      latency: {max_us: 4.5}
  - hosts: "gpu1"
    checks:
      bandwidth: {min_gbps: 180}
)";
  const auto p = profile::load_profile_text(yaml, "c.yaml");
  const auto cn = profile::resolve_node(p, "cn1");
  EXPECT_DOUBLE_EQ(0.95, *cn.checks.bandwidth_min_fraction);
  EXPECT_FALSE(cn.checks.bandwidth_min_gbps);
  EXPECT_DOUBLE_EQ(4.5, *cn.checks.latency_max_us);
  const auto gpu = profile::resolve_node(p, "gpu1");
  EXPECT_DOUBLE_EQ(180, *gpu.checks.bandwidth_min_gbps);
  EXPECT_FALSE(gpu.checks.latency_max_us);
}

TEST(RdmaPerfProfile, BadThresholdsAreLocated)
{
  const char* yaml = R"(version: 1
nodes:
  - hosts: cn1
    checks:
      bandwidth: {min_fraction: 1.5, min_gbs: 3}
      latency: {max_us: -1}
)";
  try {
    profile::load_profile_text(yaml, "c.yaml");
    FAIL() << "accepted";
  } catch (const DiagnosticError& e) {
    const std::string text = e.diagnostics().format();
    EXPECT_NE(std::string::npos, text.find("c.yaml:5:33: nodes[0].checks.bandwidth.min_fraction: "
                                           "must be above 0 and at most 1"))
        << text;
    EXPECT_NE(std::string::npos, text.find("min_gbs")) << text;
    EXPECT_NE(std::string::npos, text.find("c.yaml:6:25: nodes[0].checks.latency.max_us")) << text;
  }
}
