// Which NetworkManager profiles compete for a declared interface (nm/claims.hpp), on profiles
// built as nmcli would build them, with hardware addresses captured from real IPoIB netdevs.
#include "nm/claims.hpp"
#include "nm/client.hpp"

#include <gtest/gtest.h>

#include <vector>

using namespace ibsetup;

namespace {

// ib0 of a real ConnectX-3 (realdata hwloc-32em64t-2n8c+1mic) and the same port after the
// subnet manager changed the prefix and the queue pair; and another port.
const char* const k_ib0 = "80:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:f9:bf:a1";
const char* const k_ib0_later = "80:00:02:08:fe:80:00:00:00:00:00:01:00:02:c9:03:00:f9:bf:a1";
const char* const k_other = "80:00:00:03:fe:80:00:00:00:00:00:00:00:11:75:00:00:77:cf:c8";

struct Spec {
  const char* type = NM_SETTING_INFINIBAND_SETTING_NAME;
  const char* id = "site";
  const char* ifname = nullptr;
  const char* mac = nullptr;
  const char* parent = nullptr;
  int pkey = -1;
  std::vector<const char*> match;
};

NMConnection* make(const Spec& spec)
{
  NMConnection* c = nm_simple_connection_new();
  NMSetting* s = nm_setting_connection_new();
  g_object_set(s, NM_SETTING_CONNECTION_ID, spec.id, NM_SETTING_CONNECTION_UUID,
               "5b3c2a10-1111-4e6f-9d4c-0a1b2c3d4e5f", NM_SETTING_CONNECTION_TYPE, spec.type,
               NM_SETTING_CONNECTION_INTERFACE_NAME, spec.ifname, nullptr);
  nm_connection_add_setting(c, s);
  if (std::string(spec.type) == NM_SETTING_INFINIBAND_SETTING_NAME) {
    NMSetting* ib = nm_setting_infiniband_new();
    g_object_set(ib, NM_SETTING_INFINIBAND_MAC_ADDRESS, spec.mac, NM_SETTING_INFINIBAND_P_KEY,
                 spec.pkey, NM_SETTING_INFINIBAND_PARENT, spec.parent, nullptr);
    nm_connection_add_setting(c, ib);
  } else {
    nm_connection_add_setting(c, nm_setting_wired_new());
  }
  if (!spec.match.empty()) {
    NMSettingMatch* m = NM_SETTING_MATCH(nm_setting_match_new());
    for (const char* p : spec.match) {
      nm_setting_match_add_interface_name(m, p);
    }
    nm_connection_add_setting(c, NM_SETTING(m));
  }
  return c;
}

nm::Claim claims(const Spec& spec, const nm::ClaimTarget& target)
{
  NMConnection* c = make(spec);
  const nm::Claim r = nm::claims(c, target);
  g_object_unref(c);
  return r;
}

#define EXPECT_OWN(x) EXPECT_EQ(nm::Claim::own, x)
#define EXPECT_NONE(x) EXPECT_EQ(nm::Claim::none, x)

nm::ClaimTarget ib0()
{
  return {"ib0", "ibsetup-ib0", "u-ib0", {}, {}, k_ib0_later};
}

nm::ClaimTarget child()
{
  return {"ib0.8001", "ibsetup-ib0.8001", "u-child", std::string("ib0"), 0x8001, k_ib0_later};
}

TEST(NmClaims, ByInterfaceNameOrIbsetupsId)
{
  Spec by_name;
  by_name.ifname = "ib0";
  EXPECT_OWN(claims(by_name, ib0()));
  Spec stale;  // ibsetup's own id from an earlier cluster key, bound to another port
  stale.id = "ibsetup-ib0";
  stale.ifname = "ib1";
  EXPECT_OWN(claims(stale, ib0()));
  Spec other;
  other.ifname = "ib1";
  EXPECT_NONE(claims(other, ib0()));
}

TEST(NmClaims, OnlyInfiniBandProfilesCompete)
{
  // An Ethernet profile NetworkManager would never activate on an IPoIB device, even one with
  // ibsetup's id or the same interface name: --adopt must not delete it.
  Spec eth;
  eth.type = NM_SETTING_WIRED_SETTING_NAME;
  eth.id = "ibsetup-ib0";
  eth.ifname = "eth0";
  EXPECT_NONE(claims(eth, ib0()));
  eth.ifname = "ib0";
  EXPECT_NONE(claims(eth, ib0()));
}

TEST(NmClaims, ByPortGuidOnly)
{
  Spec by_mac;  // as ifcfg-rh reads HWADDR= without DEVICE=
  by_mac.mac = k_ib0;
  EXPECT_OWN(claims(by_mac, ib0()));
  by_mac.mac = k_other;
  EXPECT_NONE(claims(by_mac, ib0()));
  auto absent = ib0();  // no such device in NetworkManager: its address is unknown
  absent.hw_address.clear();
  by_mac.mac = k_ib0;
  EXPECT_NONE(claims(by_mac, absent));
}

TEST(NmClaims, UnboundOrByMatchPattern)
{
  // Candidates for other IPoIB devices too: reported, never adopted.
  Spec unbound;
  EXPECT_EQ(nm::Claim::shared, claims(unbound, ib0()));
  Spec pattern;
  pattern.match = {"ib*"};
  EXPECT_EQ(nm::Claim::shared, claims(pattern, ib0()));
  pattern.match = {"ib*", "!ib0"};
  EXPECT_NONE(claims(pattern, ib0()));
  pattern.match = {"eth*"};
  EXPECT_NONE(claims(pattern, ib0()));
}

TEST(NmClaims, ChildrenByParentAndPkey)
{
  Spec by_parent;
  by_parent.parent = "ib0";
  by_parent.pkey = 0x0001;  // the limited-membership number of the same partition
  EXPECT_OWN(claims(by_parent, child()));
  by_parent.pkey = 0x8002;
  EXPECT_NONE(claims(by_parent, child()));
  Spec by_parent_mac;
  by_parent_mac.mac = k_ib0;
  by_parent_mac.pkey = 0x8001;
  EXPECT_OWN(claims(by_parent_mac, child()));
  // A child profile is not a base interface's competitor, nor an unbound base a child's.
  EXPECT_NONE(claims(by_parent, ib0()));
  EXPECT_NONE(claims(Spec{}, child()));
}

// CheckpointRollback succeeds even when a device was not restored: its per-device results
// were ignored and the report said "rolled back ... ok".
TEST(NmRollback, DevicesNotRestoredAreNamed)
{
  GHashTable* results = g_hash_table_new(g_str_hash, g_str_equal);
  g_hash_table_insert(results, const_cast<char*>("/org/freedesktop/NetworkManager/Devices/3"),
                      GUINT_TO_POINTER(NM_ROLLBACK_RESULT_OK));
  g_hash_table_insert(results, const_cast<char*>("/org/freedesktop/NetworkManager/Devices/4"),
                      GUINT_TO_POINTER(NM_ROLLBACK_RESULT_ERR_DEVICE_UNMANAGED));
  g_hash_table_insert(results, const_cast<char*>("/org/freedesktop/NetworkManager/Devices/9"),
                      GUINT_TO_POINTER(NM_ROLLBACK_RESULT_ERR_NO_DEVICE));
  const std::map<std::string, std::string> devices = {
      {"/org/freedesktop/NetworkManager/Devices/3", "ib0"},
      {"/org/freedesktop/NetworkManager/Devices/4", "ib1"}};
  EXPECT_EQ(
      nm::rollback_failures(results, devices),
      (std::vector<std::string>{"/org/freedesktop/NetworkManager/Devices/9: the device is gone",
                                "ib1: no longer managed"}));
  g_hash_table_remove(results, "/org/freedesktop/NetworkManager/Devices/4");
  g_hash_table_remove(results, "/org/freedesktop/NetworkManager/Devices/9");
  EXPECT_TRUE(nm::rollback_failures(results, devices).empty());
  g_hash_table_unref(results);
}

// A profile pinned by match.path, driver or kernel command line, which ibsetup does not
// evaluate, is no one's competitor here: it was claimed (and adopted) for every port.
TEST(NmClaims, PinnedByOtherMatchesClaimsNothing)
{
  NMConnection* c = make(Spec{});
  NMSettingMatch* m = NM_SETTING_MATCH(nm_setting_match_new());
  nm_setting_match_add_path(m, "pci-0000:81:00.0");
  nm_connection_add_setting(c, NM_SETTING(m));
  EXPECT_EQ(nm::Claim::none, nm::claims(c, ib0()));
  g_object_unref(c);
}

TEST(NmClaims, MatchSemanticsAreNetworkManagers)
{
  const auto match = [](std::vector<const char*> p, const char* name) {
    p.push_back(nullptr);
    return nm::interface_names_match(p.data(), name);
  };
  EXPECT_TRUE(match({}, "ib0"));
  EXPECT_TRUE(match({"eth*", "ib?"}, "ib0"));   // optional: any one
  EXPECT_FALSE(match({"&ib*", "&*1"}, "ib0"));  // mandatory: all
  EXPECT_TRUE(match({"&ib*", "&*0"}, "ib0"));
  EXPECT_FALSE(match({"!ib0"}, "ib0"));  // "!p" is "&!p"
  EXPECT_TRUE(match({"!ib0"}, "ib1"));
  EXPECT_TRUE(match({"|!ib0", "ib0"}, "ib0"));  // optional inverted: one optional matched
  EXPECT_TRUE(match({"\\!ib0"}, "!ib0"));       // the backslash escapes the prefix
  EXPECT_FALSE(match({"\\!ib0"}, "ib1"));
}

}  // namespace
