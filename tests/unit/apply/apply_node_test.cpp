// Backend choice of apply_node: --backend wins, then the profile's backend, then what
// NetworkManager says (not reached here: every case decides before asking it).
#include <ibsetup/apply.hpp>
#include <ibsetup/error.hpp>
#include <ibsetup/profile.hpp>

#include <gtest/gtest.h>

namespace ibsetup {
namespace {

profile::ResolvedNode node_with(std::initializer_list<profile::Backend> backends)
{
  profile::ResolvedNode node;
  node.host = "cn01";
  int i = 0;
  for (const auto b : backends) {
    profile::ResolvedInterface iface;
    iface.name = "ib" + std::to_string(i++);
    iface.backend = b;
    node.interfaces.push_back(iface);
  }
  return node;
}

TEST(PickBackend, TheFlagWinsOverTheProfile)
{
  const auto node = node_with({profile::Backend::networkmanager});
  const auto pick = apply::pick_backend(apply::BackendRequest::netlink, node);
  EXPECT_EQ(apply::Backend::netlink, pick.backend);
  EXPECT_EQ("netlink: asked for with --backend", pick.why);
  const auto nm = apply::pick_backend(apply::BackendRequest::networkmanager, node_with({}));
  EXPECT_EQ(apply::Backend::networkmanager, nm.backend);
  EXPECT_EQ("networkmanager: asked for with --backend", nm.why);
}

TEST(PickBackend, TheProfileDecidesWhenTheFlagIsAuto)
{
  const auto node = node_with({profile::Backend::automatic, profile::Backend::networkmanager});
  const auto pick = apply::pick_backend(apply::BackendRequest::automatic, node);
  EXPECT_EQ(apply::Backend::networkmanager, pick.backend);
  EXPECT_EQ("networkmanager: the profile sets backend networkmanager", pick.why);
  const auto nl =
      apply::pick_backend(apply::BackendRequest::automatic, node_with({profile::Backend::netlink}));
  EXPECT_EQ(apply::Backend::netlink, nl.backend);
}

TEST(PickBackend, TwoBackendsOnOneNodeAreAnInputError)
{
  const auto node = node_with({profile::Backend::netlink, profile::Backend::networkmanager});
  try {
    apply::pick_backend(apply::BackendRequest::automatic, node);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(ErrorKind::bad_input, e.kind());
    EXPECT_EQ(
        "cn01: ib0 asks for the netlink backend and ib1 for networkmanager; one node is "
        "applied through one backend",
        std::string(e.what()));
  }
}

}  // namespace
}  // namespace ibsetup
