// rdma.bandwidth and rdma.latency as check_rdma and run_check assemble them, on a host without
// an RDMA device: which sessions run (peers, --peer, --loopback pairs), their subjects and
// thresholds from the fixture's port rates, the refusals of bad options, and NUMA pinning on a
// sysfs tree of our own.
#include "probe/rdma_numa.hpp"
#include "test_util.hpp"

#include <ibsetup/check.hpp>
#include <ibsetup/error.hpp>
#include <ibsetup/profile.hpp>
#include <ibsetup/rdma_check.hpp>

#include <sched.h>

#include <fstream>

#include "gtest_compat.hpp"

namespace fs = std::filesystem;
using namespace ibsetup;
using namespace ibsetup::check;

namespace {

const std::string k_healthy = std::string(IBSETUP_FIXTURES) + "/sysfs/hdr-2hca";
const std::string k_profile = std::string(IBSETUP_TEST_DATA) + "/check/cluster.yaml";

profile::ResolvedNode node_with(const std::string& extra)
{
  return profile::resolve_node(
      profile::load_profile_text(test::read_text(k_profile) + extra, "c.yaml"), "hdr01");
}

RdmaOptions measuring()
{
  RdmaOptions o;
  o.bandwidth = true;
  o.latency = true;
  o.sysfs_root = k_healthy;
  o.dev_dir = "/nonexistent/infiniband";  // every session fails before it connects
  return o;
}

std::vector<Result> only(const std::vector<Result>& all, const std::string& id)
{
  std::vector<Result> out;
  for (const auto& r : all) {
    if (r.id == id) {
      out.push_back(r);
    }
  }
  return out;
}

}  // namespace

TEST(RdmaPerfChecks, LoopbackPairsTheNodesPorts)
{
  auto o = measuring();
  o.loopback = true;
  const auto all = check_rdma(node_with(""), o);
  const auto bw = only(all, "rdma.bandwidth");
  ASSERT_EQ(1U, bw.size());
  // ib0 on mlx5_0/1 and ib1 on mlx5_1/1: the two HCAs against each other.
  EXPECT_EQ("mlx5_0/1 -> mlx5_1/1", bw[0].subject);
  EXPECT_EQ(Status::fail, bw[0].status);
  EXPECT_EQ("at least 180 Gb/s (90% of 200)", bw[0].expected);
  EXPECT_FALSE(bw[0].value);
  EXPECT_NE(std::string::npos, bw[0].message.find("bandwidth not measured: no /nonexistent"))
      << bw[0].message;
  const auto lat = only(all, "rdma.latency");
  ASSERT_EQ(1U, lat.size());
  EXPECT_EQ("mlx5_0/1 -> mlx5_1/1", lat[0].subject);
  EXPECT_EQ("a measured latency (no checks.latency.max_us)", lat[0].expected);
}

TEST(RdmaPerfChecks, PeersOrTheOnesAskedFor)
{
  const auto node = node_with(
      "    checks:\n      peers: [hdr02, hdr03]\n"
      "      bandwidth: {min_fraction: 0.95}\n"
      "      latency: {max_us: 5}\n");
  auto o = measuring();
  auto bw = only(check_rdma(node, o), "rdma.bandwidth");
  ASSERT_EQ(2U, bw.size());  // one session per peer, from its first address (ib0)
  EXPECT_EQ("mlx5_0/1 -> hdr02", bw[0].subject);
  EXPECT_EQ("mlx5_0/1 -> hdr03", bw[1].subject);
  EXPECT_EQ("at least 190 Gb/s (95% of 200)", bw[0].expected);
  o.perf_peers = {"hdr03"};
  const auto all = check_rdma(node, o);
  bw = only(all, "rdma.bandwidth");
  ASSERT_EQ(1U, bw.size());
  EXPECT_EQ("mlx5_0/1 -> hdr03", bw[0].subject);
  const auto lat = only(all, "rdma.latency");
  ASSERT_EQ(1U, lat.size());
  EXPECT_EQ("median at most 5 us", lat[0].expected);
  // Nothing asked for: nothing measured.
  o.bandwidth = false;
  o.latency = false;
  EXPECT_TRUE(only(check_rdma(node, o), "rdma.bandwidth").empty());
}

TEST(RdmaPerfChecks, LoopbackWithoutAnAddressedPortFails)
{
  auto node = node_with("");
  for (auto& itf : node.interfaces) {
    itf.ipv4.reset();
  }
  auto o = measuring();
  o.loopback = true;
  o.latency = false;
  const auto bw = only(check_rdma(node, o), "rdma.bandwidth");
  ASSERT_EQ(1U, bw.size());
  EXPECT_EQ(Status::fail, bw[0].status);
  EXPECT_NE(std::string::npos, bw[0].message.find("--loopback needs an interface"))
      << bw[0].message;
}

TEST(RdmaPerfChecks, TooLittleBudgetIsSaidNotWaited)
{
  auto o = measuring();
  o.dev_dir = "/";  // present: the budget is looked at next
  o.loopback = true;
  o.perf_budget_ms = 10;
  o.perf.bw_duration_s = 2;
  const auto bw = only(check_rdma(node_with(""), o), "rdma.bandwidth");
  ASSERT_EQ(1U, bw.size());
  EXPECT_NE(std::string::npos, bw[0].message.find("--timeout leaves too little time"))
      << bw[0].message;
}

TEST(RdmaPerfChecks, RunCheckRefusesBadOptions)
{
  CheckOptions o;
  o.profile_file = k_profile;
  o.node = "hdr01";
  o.sysfs_root = k_healthy;
  const auto refused = [&](const CheckOptions& bad, const std::string& says) {
    try {
      run_check(bad);
      ADD_FAILURE() << "accepted, expected: " << says;
    } catch (const InputError& e) {
      EXPECT_NE(std::string::npos, std::string(e.what()).find(says)) << e.what();
    }
  };
  auto bad = o;
  bad.loopback = true;
  refused(bad, "loopback measures bandwidth or latency");
  bad = o;
  bad.bandwidth = true;
  bad.perf.bw_qps = 9;
  refused(bad, "QP count must be 1 to 8");
  bad = o;
  bad.latency = true;
  bad.perf.lat_size = 0;
  refused(bad, "latency message size");
  bad = o;
  bad.bandwidth = true;
  bad.perf.bw_duration_s = 31;
  refused(bad, "bandwidth duration");
  bad = o;
  bad.bandwidth = true;
  bad.perf_peers = {"hdr99"};
  refused(bad, "peer 'hdr99' is not one of hdr01's checks.peers");
  bad = o;
  bad.rdma_port = 0;  // no responder listens there: every RDMA check would fail to connect
  refused(bad, "the responder port must be 1 to 65535");
  // A captured tree: asked for, but nothing is measured off this machine.
  auto fine = o;
  fine.bandwidth = true;
  fine.loopback = true;
  const auto out = run_check(fine);
  for (const auto& r : out.report.checks) {
    EXPECT_NE("rdma.bandwidth", r.id);
  }
}

TEST(RdmaPerfNuma, PinsToTheNodesCpusAndGivesThemBack)
{
  cpu_set_t before;
  ASSERT_EQ(0, sched_getaffinity(0, sizeof before, &before));
  int first = -1;
  for (int c = 0; c < CPU_SETSIZE && first < 0; ++c) {
    if (CPU_ISSET(c, &before)) {
      first = c;
    }
  }
  ASSERT_GE(first, 0);
  test::TempDir tmp;
  const fs::path root = tmp.path();
  fs::create_directories(root / "class/infiniband/mlx5_0/device");
  fs::create_directories(root / "devices/system/node/node1");
  std::ofstream(root / "class/infiniband/mlx5_0/device/numa_node") << "1\n";
  std::ofstream(root / "devices/system/node/node1/cpulist") << first << "\n";
  fs::create_directories(root / "class/infiniband/rxe0");
  {
    const rdma::NumaPin pin(root.string(), "mlx5_0");
    EXPECT_EQ("NUMA node 1 (CPUs " + std::to_string(first) + ")", pin.note());
    cpu_set_t now;
    ASSERT_EQ(0, sched_getaffinity(0, sizeof now, &now));
    EXPECT_EQ(1, CPU_COUNT(&now));
    EXPECT_TRUE(CPU_ISSET(first, &now));
  }
  cpu_set_t after;
  ASSERT_EQ(0, sched_getaffinity(0, sizeof after, &after));
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
  // Soft-RoCE has no PCI device: no node, no pinning.
  const rdma::NumaPin none(root.string(), "rxe0");
  EXPECT_EQ("not pinned: NUMA node unknown", none.note());
  // A captured tree's numa_node that is a path, not a number, names no node directory (it
  // reached node1's cpulist, and pinned, through "node1/../node1").
  fs::create_directories(root / "class/infiniband/mlx5_1/device");
  std::ofstream(root / "class/infiniband/mlx5_1/device/numa_node") << "1/../node1\n";
  {
    const rdma::NumaPin path(root.string(), "mlx5_1");
    EXPECT_EQ("not pinned: NUMA node unknown", path.note());
    cpu_set_t now;
    ASSERT_EQ(0, sched_getaffinity(0, sizeof now, &now));
    EXPECT_TRUE(CPU_EQUAL(&before, &now));
  }
}
