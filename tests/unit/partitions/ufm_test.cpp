// `partitions --format ufm`: the UFM REST bodies for a Layout, against a golden file
// (IBSETUP_UPDATE_GOLDEN=1 rewrites it), read back as JSON.
#include "partitions/ufm.hpp"

#include "common/json_read.hpp"

#include "gtest_compat.hpp"
#include "test_util.hpp"

#include <cstdlib>
#include <fstream>

namespace ibsetup::partitions {
namespace {

const std::string k_golden = std::string(IBSETUP_TEST_DATA) + "/partitions/ufm/calls.json";

Member member(const std::string& host, const std::string& guid, bool full = true)
{
  return {host, "mlx5_0", 1, guid, full};
}

Layout fabric()
{
  Layout l;
  Partition def;
  def.name = "Default";
  def.pkey = 0x7fff;
  def.all_full = true;
  l.partitions.push_back(def);

  Partition compute;  // every member full, 4K broadcast group
  compute.name = "compute";
  compute.pkey = 0x0001;
  compute.mtu_code = 5;
  compute.members = {member("cn01", "0x0c42a1030016e7e0"), member("cn02", "0x0c42a1030016e800")};
  l.partitions.push_back(compute);

  Partition storage;  // clients limited, servers full; QoS from the profile
  storage.name = "storage";
  storage.pkey = 0x0002;
  storage.mtu_code = 4;
  storage.sl = 1;
  storage.rate_code = 16;
  storage.members = {member("cn01", "0x0c42a1030016e7e0", false),
                     member("io01", "0x0c42a10300aa0101"),
                     member("cn02", "0x0c42a1030016e800", false)};
  l.partitions.push_back(storage);

  Partition backup;  // limited only, not IPoIB, no QoS
  backup.name = "backup";
  backup.pkey = 0x0003;
  backup.ipoib = false;
  backup.members = {member("io01", "0x0c42a10300aa0101", false)};
  l.partitions.push_back(backup);

  Partition empty;  // nobody resolved: nothing to send
  empty.name = "empty";
  empty.pkey = 0x0004;
  empty.mtu_code = 5;
  l.partitions.push_back(empty);

  Partition tiny;  // an MTU UFM cannot say, an unknown rate
  tiny.name = "tiny";
  tiny.pkey = 0x0005;
  tiny.mtu_code = 3;
  tiny.rate_code = 99;
  tiny.all_limited = true;
  l.partitions.push_back(tiny);

  Missing m;
  m.host = "cn03";
  m.what = "no inventory";
  l.missing.push_back(m);
  return l;
}

TEST(UfmTest, CallsMatchTheGoldenFile)
{
  const std::string out = write_ufm(fabric());
  if (std::getenv("IBSETUP_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(k_golden) << out;
  }
  EXPECT_EQ(test::read_text(k_golden), out);
  EXPECT_EQ(write_ufm(fabric()), out);  // the same bytes every time
}

TEST(UfmTest, OutputIsJsonWithOneCallPerPartitionSetting)
{
  const auto doc = json::parse(write_ufm(fabric()));
  const json::View j(doc, "");
  const auto calls = j["calls"].items();
  ASSERT_EQ(calls.size(), 5U);
  EXPECT_EQ(calls[0]["path"].as_string(), "/ufmRest/resources/pkeys");
  EXPECT_EQ(calls[0]["body"]["pkey"].as_string(), "0x0001");
  EXPECT_EQ(calls[0]["body"]["membership"].as_string(), "full");
  EXPECT_EQ(calls[1]["path"].as_string(), "/ufmRest/resources/pkeys/qos_conf");
  EXPECT_EQ(calls[1]["body"]["mtu_limit"].as_int(), 4);
  // Mixed membership: one per GUID, in the order of the GUIDs.
  const auto& storage = calls[2]["body"];
  EXPECT_TRUE(storage["membership"].is_null());
  const auto guids = storage["guids"].items();
  const auto memberships = storage["memberships"].items();
  ASSERT_EQ(guids.size(), memberships.size());
  EXPECT_EQ(guids[1].as_string(), "0c42a10300aa0101");
  EXPECT_EQ(memberships[1].as_string(), "full");
  EXPECT_EQ(memberships[0].as_string(), "limited");
  EXPECT_EQ(calls[3]["body"]["rate_limit"].as_number(), 100.0);
  EXPECT_EQ(calls[3]["body"]["service_level"].as_int(), 1);
  EXPECT_EQ(calls[3]["body"]["mtu_limit"].as_int(), 2);
  EXPECT_EQ(calls[4]["body"]["membership"].as_string(), "limited");
  EXPECT_FALSE(calls[4]["body"]["ip_over_ib"].as_bool());
  // Nothing is dropped quietly.
  const auto left = j["left_out"].items();
  ASSERT_EQ(left.size(), 5U);
  EXPECT_EQ(left[0]["pkey"].as_string(), "0x7fff");
  EXPECT_EQ(left[1]["pkey"].as_string(), "0x0004");
  EXPECT_EQ(j["missing"].items().at(0)["host"].as_string(), "cn03");
}

TEST(UfmTest, RatesAreIbtaCodes)
{
  EXPECT_EQ(ufm_rate_gbps(2), 2.5);
  EXPECT_EQ(ufm_rate_gbps(3), 10);
  EXPECT_EQ(ufm_rate_gbps(12), 56);
  EXPECT_EQ(ufm_rate_gbps(16), 100);
  EXPECT_EQ(ufm_rate_gbps(17), 200);
  // Every rate the profile takes has one: 28, 50, 400, 600 and 800 Gb/s were left out as
  // "not one UFM's rate_limit can say".
  EXPECT_EQ(ufm_rate_gbps(19), 28);
  EXPECT_EQ(ufm_rate_gbps(20), 50);
  EXPECT_EQ(ufm_rate_gbps(21), 400);
  EXPECT_EQ(ufm_rate_gbps(22), 600);
  EXPECT_EQ(ufm_rate_gbps(23), 800);
  EXPECT_EQ(ufm_rate_gbps(24), 0);
  EXPECT_EQ(ufm_rate_gbps(1), 0);
  EXPECT_EQ(ufm_rate_gbps(-1), 0);
}

// A GUID on two hosts stays in the call under the first host; the second host's listing is in
// left_out, as the OpenSM form comments it (it used to be only on standard error).
TEST(UfmTest, APortOnTwoHostsIsLeftOutWithItsReason)
{
  Layout l;
  Partition p;
  p.name = "ib_8001";
  p.pkey = 0x0001;
  p.members.push_back({"cn01", "mlx5_0", 1, "0x0c42a10300aa0001", true});
  p.duplicates.push_back("cn02 mlx5_0/1 (0x0c42a10300aa0001, as cn01 mlx5_0/1)");
  l.partitions.push_back(p);
  const std::string out = write_ufm(l);
  EXPECT_NE(out.find("\"left_out\":[\n{\"pkey\":\"0x0001\",\"why\":\"its GUID is on two hosts: "
                     "cn02 mlx5_0/1 (0x0c42a10300aa0001, as cn01 mlx5_0/1)\"}\n]"),
            std::string::npos)
      << out;
}

TEST(UfmTest, EmptyLayoutIsAnEmptyDocument)
{
  EXPECT_EQ(write_ufm(Layout()),
            "{\"generated_by\":\"ibsetup\",\"calls\":[],\n\"left_out\":[],\n\"missing\":[]}\n");
}

}  // namespace
}  // namespace ibsetup::partitions
