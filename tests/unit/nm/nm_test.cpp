// The connection objects shared by the keyfile renderer and the live backend, and the
// comparison that decides whether NetworkManager's stored profile needs an update.
#include "nm/compare.hpp"
#include "nm/connection.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/render.hpp>

#include <gtest/gtest.h>

using namespace ibsetup;

namespace {

profile::ResolvedInterface child()
{
  profile::ResolvedInterface i;
  i.name = "ib0.8001";
  i.parent = std::string("ib0");
  i.pkey = 0x8001;
  i.mtu = 2044;
  i.mode = profile::Mode::datagram;
  i.ipv4 = IpPrefix::parse("10.30.0.1/16", Family::ipv4, nullptr);
  return i;
}

TEST(NmConnection, SameInputSameProfile)
{
  const auto uuid = render::connection_uuid("c", "h", "ib0.8001");
  const auto a = nm::build_connection(child(), uuid);
  const auto b = nm::build_connection(child(), uuid);
  EXPECT_TRUE(nm::differences(a.get(), b.get()).empty());
  EXPECT_STREQ(nm_connection_get_id(a.get()), "ibsetup-ib0.8001");
  EXPECT_STREQ(nm_connection_get_uuid(a.get()), uuid.c_str());
}

TEST(NmConnection, DifferencesNameTheProperties)
{
  const auto uuid = render::connection_uuid("c", "h", "ib0.8001");
  auto changed = child();
  changed.mtu = 1500;
  changed.ipv6 = IpPrefix::parse("fd00::1/64", Family::ipv6, nullptr);
  const auto a = nm::build_connection(child(), uuid);
  const auto b = nm::build_connection(changed, uuid);
  EXPECT_EQ(nm::differences(b.get(), a.get()),
            (std::vector<std::string>{"infiniband.mtu", "ipv6.addresses", "ipv6.method"}));
}

TEST(NmConnection, NetworkManagersOwnRulesRejectBadSettings)
{
  auto bad = child();
  bad.pkey = 0x8000;  // the full-membership bit alone: NM rejects p-key 0x8000
  try {
    nm::build_connection(bad, render::connection_uuid("c", "h", "x"));
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("ib0.8001: NetworkManager rejects the connection"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
