// The profile's `partitions:` section (profile/reader_partitions.cpp, validate_partitions.cpp).
// Rejections with their exact messages are golden cases in tests/data/profile/invalid/
// (partitions-*.yaml).
#include <ibsetup/profile.hpp>

#include "gtest_compat.hpp"

using namespace ibsetup;

namespace {

const std::string k_nodes = R"(version: 1
nodes:
  - hosts: cn[01-04]
    interfaces:
      - name: ib0
      - parent: ib0
        pkey: 0x8001
)";

std::string errors_of(const std::string& text)
{
  try {
    profile::load_profile_text(text, "c.yaml");
  } catch (const DiagnosticError& e) {
    return e.diagnostics().format();
  }
  return "accepted";
}

}  // namespace

TEST(ProfilePartitions, ReadsEveryKey)
{
  const auto p = profile::load_profile_text(k_nodes + R"(partitions:
  default:
    membership: limited
    mtu: 4096
    rate: 200
    sl: 0
  pkeys:
    - pkey: 0x8001
      name: compute
      mtu: 2048
      rate: 2.5
      sl: 15
      limited: cn[03-04]
)",
                                            "c.yaml");
  EXPECT_TRUE(p.warnings.empty());
  ASSERT_TRUE(p.partitions.declared);
  const auto& d = p.partitions.default_partition;
  EXPECT_EQ(*d.membership, profile::Membership::limited);
  EXPECT_EQ(*d.pkey, 0x7fff);
  EXPECT_EQ(*d.mtu, 4096);
  EXPECT_EQ(*d.rate, 200);
  EXPECT_EQ(*d.sl, 0);
  ASSERT_EQ(p.partitions.pkeys.size(), 1U);
  const auto& c = p.partitions.pkeys[0];
  EXPECT_EQ(*c.pkey, 0x0001);  // the partition number: the membership bit is per port
  EXPECT_EQ(c.path, "partitions.pkeys[0]");
  EXPECT_EQ(*c.name, "compute");
  EXPECT_EQ(*c.mtu, 2048);
  EXPECT_EQ(*c.rate, 2.5);
  EXPECT_EQ(*c.sl, 15);
  EXPECT_EQ(c.limited_hosts, (std::vector<std::string>{"cn03", "cn04"}));
  EXPECT_EQ(c.pkey.mark.line, 15);
}

TEST(ProfilePartitions, AbsentSectionIsNotDeclared)
{
  const auto p = profile::load_profile_text(k_nodes, "c.yaml");
  EXPECT_FALSE(p.partitions.declared);
  EXPECT_TRUE(p.partitions.pkeys.empty());
}

TEST(ProfilePartitions, AnUnusedPkeyIsAWarning)
{
  const auto p = profile::load_profile_text(k_nodes + R"(partitions:
  pkeys:
    - pkey: 0x0005
)",
                                            "c.yaml");
  ASSERT_EQ(p.warnings.size(), 1U);
  EXPECT_EQ(p.warnings[0].format(),
            "c.yaml:10:13: warning: partitions.pkeys[0].pkey: no "
            "interface uses partition 0x0005; its partition has no "
            "members");
}

TEST(ProfilePartitions, BroadcastGroupSettingsOfAPartitionWithoutIpoibAreWarned)
{
  const auto p = profile::load_profile_text(k_nodes + R"(partitions:
  pkeys:
    - pkey: 0x0005
      limited: cn01
      mtu: 4096
      rate: 100
      sl: 1
)",
                                            "c.yaml");
  ASSERT_EQ(p.warnings.size(), 3U);
  EXPECT_EQ(p.warnings[1].format(),
            "c.yaml:12:12: warning: partitions.pkeys[0].mtu: no IPoIB interface uses partition "
            "0x0005, so it has no IPoIB broadcast group, which mtu and rate set: not written");
  EXPECT_EQ(p.warnings[2].format(),
            "c.yaml:13:13: warning: partitions.pkeys[0].rate: no IPoIB interface uses partition "
            "0x0005, so it has no IPoIB broadcast group, which mtu and rate set: not written");
}

TEST(ProfilePartitions, UnknownKeysGetASuggestion)
{
  EXPECT_EQ(errors_of(k_nodes + R"(partitions:
  pkeys:
    - pkey: 0x8001
      limitd: cn01
  defualt:
    membership: full
)"),
            "c.yaml:11:7: partitions.pkeys[0].limitd: unknown key 'limitd'; did you mean "
            "'limited'?\n"
            "c.yaml:12:3: partitions.defualt: unknown key 'defualt'; did you mean 'default'?");
}

TEST(ProfilePartitions, LimitedHostsMustBeInTheProfile)
{
  EXPECT_EQ(errors_of(k_nodes + R"(partitions:
  pkeys:
    - pkey: 0x8001
      limited: cn05
)"),
            "c.yaml:11:16: partitions.pkeys[0].limited: host cn05 is in no node group; a "
            "limited member's port GUID comes from its inventory, so it must be a host of this "
            "file; did you mean 'cn01'?");
}
