#include "probe/rdma_logic.hpp"
#include "test_util.hpp"

#include <ibsetup/profile.hpp>
#include <ibsetup/rdma_check.hpp>

#include "gtest_compat.hpp"

using namespace ibsetup;
using namespace ibsetup::check;
using namespace ibsetup::check::rdma;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;

namespace {

const char* const k_cluster = R"(version: 1
nodes:
  - hosts: "cn[1-3]"
    hcas:
      - device: mlx5_0
        ports: [{port: 1}, {port: 2}]
      - pci: "0000:5e:00.0"
    interfaces:
      - name: ib0
        device: mlx5_0
        port: 1
        ipv4: 10.10.0.0/16
      - name: ib1
        device: mlx5_1
        port: 1
        ipv4: 10.11.0.0/16
        ipv6: fd00:11::/64
      - name: ib2
        device: mlx5_0
        port: 2
    checks:
      peers: [cn2, cn3, login]
  - hosts: login
    interfaces:
      - name: eth9
        ipv4: 192.168.0.0/24
)";

profile::ResolvedNode node(const std::string& host)
{
  return profile::resolve_node(profile::load_profile_text(k_cluster, "c.yaml"), host);
}

Target target(const std::string& address)
{
  Target t;
  t.host = "cn064";
  t.interface = "ib0";
  t.address = *IpAddress::parse(address, Family::ipv4);
  return t;
}

TEST(Rdma, DeclaredPortsComeFromHcasAndInterfacesOnce)
{
  const auto ports = declared_ports(node("cn1"));
  ASSERT_EQ(4U, ports.size());
  EXPECT_EQ((DevicePort{"mlx5_0", "", 1}), ports[0]);
  EXPECT_EQ((DevicePort{"mlx5_0", "", 2}), ports[1]);
  // Declared by PCI address only, without ports: every port of whatever device is there.
  EXPECT_EQ((DevicePort{"", "0000:5e:00.0", 0}), ports[2]);
  // Only an interface names this one; ib0 and ib2 repeat ports hcas[] already has.
  EXPECT_EQ((DevicePort{"mlx5_1", "", 1}), ports[3]);
}

TEST(Rdma, TargetsAreEveryPeerAddressWithThisNodesSource)
{
  std::vector<std::string> unaddressed;
  const auto targets = peer_targets(node("cn1"), &unaddressed);
  ASSERT_EQ(6U, targets.size());
  EXPECT_EQ("cn2", targets[0].host);
  EXPECT_EQ("ib0", targets[0].interface);
  EXPECT_EQ("10.10.0.2", targets[0].address.str());
  ASSERT_TRUE(targets[0].source.has_value());
  EXPECT_EQ("10.10.0.1", targets[0].source->str());
  EXPECT_EQ("10.11.0.2", targets[1].address.str());
  EXPECT_EQ("10.11.0.1", targets[1].source->str());
  EXPECT_EQ("fd00:11::2", targets[2].address.str());
  EXPECT_EQ("fd00:11::1", targets[2].source->str());
  EXPECT_EQ("cn3", targets[3].host);
  // login shares no interface with cn1: nothing to resolve, reported as such.
  EXPECT_EQ(std::vector<std::string>{"login"}, unaddressed);
}

TEST(Rdma, DeadlineRemainingRoundsUpAndStopsAtZero)
{
  const auto t0 = Clock::time_point{} + std::chrono::hours(1);
  const Deadline d(t0, 1000);
  EXPECT_EQ(1000, d.remaining_ms(t0));
  EXPECT_EQ(1, d.remaining_ms(t0 + microseconds(999001)));
  // poll() must not wake a fraction of a millisecond early and spin.
  EXPECT_EQ(500, d.remaining_ms(t0 + microseconds(500500)));
  EXPECT_FALSE(d.expired(t0 + milliseconds(999)));
  EXPECT_TRUE(d.expired(t0 + milliseconds(1000)));
  EXPECT_EQ(0, d.remaining_ms(t0 + milliseconds(5000)));
}

TEST(Rdma, PollTimeoutIsTheEarliestDeadline)
{
  const auto t0 = Clock::time_point{} + std::chrono::hours(1);
  EXPECT_EQ(-1, poll_timeout_ms({}, t0));
  const std::vector<Deadline> ds{Deadline(t0, 1000), Deadline(t0 + milliseconds(200), 300),
                                 Deadline(t0, 2000)};
  EXPECT_EQ(500, poll_timeout_ms(ds, t0));
  EXPECT_EQ(100, poll_timeout_ms(ds, t0 + milliseconds(400)));
  EXPECT_EQ(0, poll_timeout_ms(ds, t0 + milliseconds(700)));
}

TEST(Rdma, ElapsedNeverNegative)
{
  const auto t0 = Clock::time_point{} + std::chrono::hours(1);
  EXPECT_EQ(0, elapsed_ms(t0, t0 - milliseconds(5)));
  EXPECT_EQ(1234, elapsed_ms(t0, t0 + microseconds(1234999)));
}

TEST(Rdma, DurationsForPeople)
{
  EXPECT_EQ("85 us", format_duration(nanoseconds(85400)));
  EXPECT_EQ("1.25 ms", format_duration(microseconds(1250)));
  EXPECT_EQ("12.5 ms", format_duration(microseconds(12500)));
  EXPECT_EQ("250 ms", format_duration(milliseconds(250)));
}

TEST(Rdma, RouteMessages)
{
  const Target t = target("10.10.0.64");
  EXPECT_EQ(
      "cn064: RDMA route to 10.10.0.64 not resolved within 1000 ms "
      "(RDMA_CM_EVENT_ADDR_ERROR: Connection timed out)",
      route_failure_message(t, true, 1000, 1003,
                            event_detail("RDMA_CM_EVENT_ADDR_ERROR", -ETIMEDOUT, false)));
  EXPECT_EQ(
      "cn064: RDMA route to 10.10.0.64 failed after 3 ms "
      "(rdma_resolve_addr: Network is unreachable)",
      route_failure_message(t, false, 1000, 3, "rdma_resolve_addr: Network is unreachable"));
}

TEST(Rdma, PingPongMessages)
{
  const Target t = target("10.10.0.64");
  EXPECT_EQ(
      "cn064: RDMA ping-pong with 10.10.0.64 port 18515 failed after 2 ms "
      "(RDMA_CM_EVENT_REJECTED: invalid service ID: nothing listens on that port)",
      pingpong_failure_message(t, k_responder_port, false, 1000, 2,
                               event_detail("RDMA_CM_EVENT_REJECTED", 8, true)));
  EXPECT_EQ("cn064: RDMA ping-pong with 10.10.0.64 port 7 not finished within 500 ms (x)",
            pingpong_failure_message(t, 7, true, 500, 500, "x"));
  EXPECT_EQ("RDMA_CM_EVENT_REJECTED: reject reason 99",
            event_detail("RDMA_CM_EVENT_REJECTED", 99, true));
  EXPECT_EQ("RDMA_CM_EVENT_DISCONNECTED", event_detail("RDMA_CM_EVENT_DISCONNECTED", 0, false));
}

TEST(Rdma, SubjectNamesTheInterfaceOnlyWhenThePeerHasSeveral)
{
  const Target t = target("10.10.0.64");
  EXPECT_EQ("cn064", target_subject(t, false));
  EXPECT_EQ("cn064/ib0", target_subject(t, true));
}

TEST(Rdma, NoDeviceDirectorySkipsEveryCheckWithAReason)
{
  test::TempDir dir;
  RdmaOptions o;
  o.dev_dir = (dir.path() / "infiniband").string();
  o.pingpong = true;
  const auto results = check_rdma(node("cn1"), o);
  size_t device = 0;
  size_t route = 0;
  size_t ping = 0;
  for (const auto& r : results) {
    if (r.id == "rdma.device") {
      ++device;
    } else if (r.id == "rdma.route") {
      ++route;
    } else if (r.id == "rdma.pingpong") {
      ++ping;
    }
    EXPECT_EQ(Status::skip, r.status) << r.message;
    if (r.subject != "login") {
      EXPECT_NE(std::string::npos, r.message.find("no " + o.dev_dir)) << r.message;
    }
  }
  EXPECT_EQ(4U, device);
  EXPECT_EQ(7U, route);  // six addresses and login, which has none
  EXPECT_EQ(6U, ping);
}

TEST(Rdma, NodeWithoutHcasOrPeersGetsOneSkip)
{
  const auto results = check_rdma(node("login"), RdmaOptions{});
  ASSERT_EQ(1U, results.size());
  EXPECT_EQ("rdma.device", results[0].id);
  EXPECT_EQ(Status::skip, results[0].status);
  EXPECT_EQ("login: no HCA port declared for this node", results[0].message);
}

}  // namespace
