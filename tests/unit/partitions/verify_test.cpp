#include "os/smp_port.hpp"
#include "partitions/verify.hpp"

#include <map>

#include "gtest_compat.hpp"

using namespace ibsetup;
using namespace ibsetup::partitions;

namespace {

// A fabric as the SA and the ports would answer: GUID -> LID, LID -> P_Key table.
class FakeSmp final : public os::SmpPort {
public:
  std::map<uint64_t, uint16_t> lids;
  std::map<uint16_t, std::vector<uint16_t>> tables;
  std::vector<uint16_t> asked;  // LIDs whose table was read

  os::SmpLid resolve_guid(uint64_t guid) override
  {
    os::SmpLid out;
    auto it = lids.find(guid);
    if (it == lids.end()) {
      out.error = "no path";
    } else {
      out.lid = it->second;
    }
    return out;
  }
  uint16_t sm = 0;
  uint16_t sm_lid() const override { return sm; }
  os::SmpPkeys pkey_table(uint16_t lid) override
  {
    asked.push_back(lid);
    os::SmpPkeys out;
    auto it = tables.find(lid);
    if (it == tables.end()) {
      out.error = "no answer";
    } else {
      out.entries = it->second;
    }
    return out;
  }
};

Member member(const std::string& host, const std::string& guid, bool full)
{
  Member m;
  m.host = host;
  m.device = "mlx5_0";
  m.port = 1;
  m.guid = guid;
  m.full = full;
  return m;
}

// Default (ALL=full), 0x8001 with cn01 full and cn02 limited, 0x0002 with cn02 full.
Layout two_hosts()
{
  Layout l;
  Partition def;
  def.name = "Default";
  def.pkey = 0x7fff;
  def.all_full = true;
  Partition p1;
  p1.name = "compute";
  p1.pkey = 0x0001;
  p1.members = {member("cn01", "0x0000000000000102", true),
                member("cn02", "0x0000000000000202", false)};
  Partition p2;
  p2.name = "storage";
  p2.pkey = 0x0002;
  p2.members = {member("cn02", "0x0000000000000202", true)};
  l.partitions = {def, p1, p2};
  return l;
}

}  // namespace

TEST(Verify, ExpectedTablesCombineAllMembershipAndFullWins)
{
  Layout l = two_hosts();
  // cn01 is also a limited member of 0x0002 and a full one of 0x0001 twice over.
  l.partitions[2].members.push_back(member("cn01", "0x0000000000000102", false));
  const auto e = expected_ports(l);
  ASSERT_EQ(2u, e.size());
  EXPECT_EQ("cn01", e[0].port.host);
  EXPECT_EQ((std::vector<uint16_t>{0x8001, 0x0002, 0xffff}), e[0].pkeys);
  EXPECT_EQ("cn02", e[1].port.host);
  EXPECT_EQ((std::vector<uint16_t>{0x0001, 0x8002, 0xffff}), e[1].pkeys);
}

TEST(Verify, LimitedAllPartitionGivesLimitedEntries)
{
  Layout l = two_hosts();
  l.partitions[0].all_full = false;
  l.partitions[0].all_limited = true;
  const auto e = expected_ports(l);
  ASSERT_EQ(2u, e.size());
  EXPECT_EQ((std::vector<uint16_t>{0x8001, 0x7fff}), e[0].pkeys);
}

TEST(Verify, HostsInDefaultAloneAreCheckedToo)
{
  Layout l = two_hosts();
  // cn03 is in no partition but Default; cn01's port is both a host port and a member.
  l.ports = {member("cn01", "0x0000000000000102", true),
             member("cn03", "0x0000000000000302", true)};
  auto e = expected_ports(l);
  ASSERT_EQ(3u, e.size());
  EXPECT_EQ((std::vector<uint16_t>{0x8001, 0xffff}), e[0].pkeys);
  EXPECT_EQ("cn03", e[2].port.host);
  EXPECT_EQ((std::vector<uint16_t>{0xffff}), e[2].pkeys);
  l.partitions[0].all_full = false;
  l.partitions[0].all_limited = true;
  e = expected_ports(l);
  ASSERT_EQ(3u, e.size());
  EXPECT_EQ((std::vector<uint16_t>{0x7fff}), e[2].pkeys);

  FakeSmp smp;
  smp.lids = {{0x102, 3}, {0x202, 4}, {0x302, 5}};
  smp.tables = {{3, {0x7fff, 0x8001}}, {4, {0x8002, 0x7fff, 0x0001}}, {5, {0x7fff, 0x8001}}};
  const VerifyReport r = verify_fabric(l, smp);
  ASSERT_EQ(3u, r.ports.size());
  EXPECT_EQ((std::vector<uint16_t>{3, 4, 5}), smp.asked);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ("cn03", r.ports[2].host);
  EXPECT_EQ((std::vector<uint16_t>{0x8001}), r.ports[2].extra);
}

TEST(Verify, TheSubnetManagersOwnPortIsAFullMemberOfAllLimited)
{
  Layout l = two_hosts();
  l.partitions[0].all_full = false;
  l.partitions[0].all_limited = true;
  FakeSmp smp;
  smp.lids = {{0x102, 3}, {0x202, 4}};
  // OpenSM runs on cn01 (LID 3): "ALL=limited, SELF=full" gives its port 0xffff.
  smp.tables = {{3, {0xffff, 0x8001}}, {4, {0x8002, 0x7fff, 0x0001}}};
  smp.sm = 3;
  VerifyReport r = verify_fabric(l, smp);
  ASSERT_EQ(2u, r.ports.size());
  EXPECT_TRUE(r.ok()) << format_verify_text(r);
  EXPECT_EQ((std::vector<uint16_t>{0x8001, 0xffff}), r.ports[0].expected);
  // Any other port of Default is limited, and so is the SM's when the table says limited.
  smp.tables = {{3, {0x7fff, 0x8001}}, {4, {0x8002, 0xffff, 0x0001}}};
  r = verify_fabric(l, smp);
  ASSERT_EQ(2u, r.ports.size());
  ASSERT_EQ(1u, r.ports[0].membership.size());
  EXPECT_EQ(0xffff, r.ports[0].membership[0].expected);
  ASSERT_EQ(1u, r.ports[1].membership.size());
  EXPECT_EQ(0x7fff, r.ports[1].membership[0].expected);
  // A partition of ALL=full is full everywhere, the SM's port included.
  l.partitions[0].all_full = true;
  l.partitions[0].all_limited = false;
  smp.tables = {{3, {0xffff, 0x8001}}, {4, {0x8002, 0xffff, 0x0001}}};
  EXPECT_TRUE(verify_fabric(l, smp).ok());
}

TEST(Verify, MatchingFabricPasses)
{
  FakeSmp smp;
  smp.lids = {{0x102, 3}, {0x202, 4}};
  // Table order and empty slots do not matter.
  smp.tables = {{3, {0xffff, 0x8001}}, {4, {0x8002, 0xffff, 0x0001}}};
  const VerifyReport r = verify_fabric(two_hosts(), smp);
  ASSERT_EQ(2u, r.ports.size());
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(3, r.ports[0].lid);
  EXPECT_EQ((std::vector<uint16_t>{0x8001, 0xffff}), r.ports[0].observed);
  const std::string text = format_verify_text(r);
  EXPECT_NE(std::string::npos, text.find("pass    cn01  mlx5_0/1  LID 3: 0x8001 0xffff\n")) << text;
  EXPECT_NE(std::string::npos,
            text.find("fabric: ok (2 ports match, 0 differ, 0 unreachable, 0 not checked)"))
      << text;
}

TEST(Verify, NamesMissingExtraAndMembership)
{
  FakeSmp smp;
  smp.lids = {{0x102, 3}, {0x202, 4}};
  // cn01 lacks 0x8001 and holds 0x8005; cn02 is a full member of 0x0001 (expected limited)
  // and a limited one of 0x0002 (expected full).
  smp.tables = {{3, {0xffff, 0x8005}}, {4, {0xffff, 0x8001, 0x0002}}};
  const VerifyReport r = verify_fabric(two_hosts(), smp);
  ASSERT_EQ(2u, r.ports.size());
  EXPECT_FALSE(r.ok());
  EXPECT_EQ((std::vector<uint16_t>{0x8001}), r.ports[0].missing);
  EXPECT_EQ((std::vector<uint16_t>{0x8005}), r.ports[0].extra);
  EXPECT_TRUE(r.ports[0].membership.empty());
  ASSERT_EQ(2u, r.ports[1].membership.size());
  EXPECT_EQ(0x0001, r.ports[1].membership[0].expected);
  EXPECT_EQ(0x8001, r.ports[1].membership[0].observed);
  EXPECT_EQ(0x8002, r.ports[1].membership[1].expected);
  EXPECT_EQ(0x0002, r.ports[1].membership[1].observed);
  const std::string text = format_verify_text(r);
  EXPECT_NE(std::string::npos,
            text.find("fail    cn01  mlx5_0/1  LID 3: missing 0x8001; extra 0x8005; expected "
                      "0x8001 0xffff, observed 0x8005 0xffff\n"))
      << text;
  EXPECT_NE(std::string::npos,
            text.find("cn02  mlx5_0/1  LID 4: 0x0001 full member, expected limited; 0x0002 "
                      "limited member, expected full;"))
      << text;
  EXPECT_NE(std::string::npos, text.find("fabric: FAILED (0 ports match, 2 differ")) << text;
}

TEST(Verify, UnreachablePortsAreReportedNotCompared)
{
  FakeSmp smp;
  smp.lids = {{0x202, 4}};  // the SA does not know cn01's GUID
  smp.tables = {};          // and cn02's port does not answer
  const VerifyReport r = verify_fabric(two_hosts(), smp);
  ASSERT_EQ(2u, r.ports.size());
  EXPECT_EQ("no path", r.ports[0].unreachable);
  EXPECT_EQ(0, r.ports[0].lid);
  EXPECT_EQ("no answer", r.ports[1].unreachable);
  EXPECT_TRUE(r.ports[1].missing.empty());
  EXPECT_EQ((std::vector<uint16_t>{4}), smp.asked);  // no table read without a LID
  EXPECT_FALSE(r.ok());
  const std::string text = format_verify_text(r);
  EXPECT_NE(std::string::npos,
            text.find("fail    cn01  mlx5_0/1  0x0000000000000102 unreachable: no path\n"))
      << text;
  EXPECT_NE(std::string::npos, text.find("0 differ, 2 unreachable")) << text;
}

TEST(Verify, UnresolvedMembersAreListedAsNotChecked)
{
  Layout l = two_hosts();
  l.missing.push_back({"cn03", "no inventory", {0x0001, 0x0003}});
  FakeSmp smp;
  smp.lids = {{0x102, 3}, {0x202, 4}};
  smp.tables = {{3, {0xffff, 0x8001}}, {4, {0x8002, 0xffff, 0x0001}}};
  const VerifyReport r = verify_fabric(l, smp);
  EXPECT_TRUE(r.ok());
  const std::string text = format_verify_text(r);
  EXPECT_NE(std::string::npos,
            text.find("skip    cn03  -         not checked: no inventory (0x0001 0x0003)\n"))
      << text;
  EXPECT_NE(std::string::npos, text.find("1 not checked)")) << text;
}

TEST(Verify, Json)
{
  FakeSmp smp;
  smp.lids = {{0x102, 3}};
  smp.tables = {{3, {0xffff, 0x0001}}};
  Layout l = two_hosts();
  l.missing.push_back({"cn03", "no inventory", {}});
  const VerifyReport r = verify_fabric(l, smp);
  EXPECT_EQ(R"({"ok":false,"ports":[)"
            R"({"host":"cn01","device":"mlx5_0","port":1,"guid":"0x0000000000000102","lid":3,)"
            R"("status":"fail","expected":["0x8001","0xffff"],"observed":["0x0001","0xffff"],)"
            R"("missing":[],"extra":[],"membership":[{"pkey":"0x0001","expected":"full",)"
            R"("observed":"limited"}],"error":null},)"
            R"({"host":"cn02","device":"mlx5_0","port":1,"guid":"0x0000000000000202","lid":null,)"
            R"("status":"unreachable","expected":["0x0001","0x8002","0xffff"],"observed":null,)"
            R"("missing":[],"extra":[],"membership":[],"error":"no path"}],)"
            R"("not_checked":[{"host":"cn03","what":"no inventory","pkeys":[]}]})"
            "\n",
            format_verify_json(r));
}

TEST(Verify, TextEscapesOutsideNames)
{
  Layout l = two_hosts();
  l.partitions[1].members[0].host = "cn\x1b[31m01";
  FakeSmp smp;
  const std::string text = format_verify_text(verify_fabric(l, smp));
  EXPECT_EQ(std::string::npos, text.find('\x1b'));
  EXPECT_NE(std::string::npos, text.find("cn\\x1b[31m01")) << text;
}

TEST(Verify, BadGuidIsUnreachableWithoutAQuery)
{
  Layout l = two_hosts();
  l.partitions[1].members[0].guid = "0102";
  l.partitions[2].members.clear();
  l.partitions[1].members.pop_back();
  FakeSmp smp;
  smp.lids = {{0x102, 3}};
  const VerifyReport r = verify_fabric(l, smp);
  ASSERT_EQ(1u, r.ports.size());
  EXPECT_EQ("not a port GUID", r.ports[0].unreachable);
  EXPECT_TRUE(smp.asked.empty());
}
