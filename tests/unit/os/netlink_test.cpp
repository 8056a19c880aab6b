// The requests the netlink backend sends, and what this kernel (no IPoIB) answers to them.
#include "os/netlink_messages.hpp"
#include "test_util.hpp"

#include <ibsetup/apply.hpp>
#include <ibsetup/inventory.hpp>

#include "gtest_compat.hpp"

#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

using namespace ibsetup;

namespace {

TEST(NetlinkMessages, PkeyChildLayout)
{
  nl_msg* msg = apply::detail::ipoib_child_request("ib0.8001", 7, 0x8001, profile::Mode::datagram);
  nlmsghdr* hdr = nlmsg_hdr(msg);
  EXPECT_EQ(RTM_NEWLINK, hdr->nlmsg_type);
  EXPECT_EQ(NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, hdr->nlmsg_flags);
  nlattr* tb[IFLA_MAX + 1] = {};
  ASSERT_EQ(0, nlmsg_parse(hdr, sizeof(ifinfomsg), tb, IFLA_MAX, nullptr));
  EXPECT_STREQ("ib0.8001", nla_get_string(tb[IFLA_IFNAME]));
  EXPECT_EQ(7U, nla_get_u32(tb[IFLA_LINK]));
  nlattr* info[IFLA_INFO_MAX + 1] = {};
  ASSERT_EQ(0, nla_parse_nested(info, IFLA_INFO_MAX, tb[IFLA_LINKINFO], nullptr));
  EXPECT_STREQ("ipoib", nla_get_string(info[IFLA_INFO_KIND]));
  nlattr* data[IFLA_IPOIB_MAX + 1] = {};
  ASSERT_EQ(0, nla_parse_nested(data, IFLA_IPOIB_MAX, info[IFLA_INFO_DATA], nullptr));
  EXPECT_EQ(0x8001, nla_get_u16(data[IFLA_IPOIB_PKEY]));
  EXPECT_EQ(0, nla_get_u16(data[IFLA_IPOIB_MODE]));  // datagram
  EXPECT_EQ(nullptr, data[IFLA_IPOIB_UMCAST]);
  nlmsg_free(msg);
}

TEST(NetlinkMessages, ModeLayout)
{
  nl_msg* msg = apply::detail::ipoib_mode_request(3, profile::Mode::connected);
  nlmsghdr* hdr = nlmsg_hdr(msg);
  EXPECT_EQ(3, static_cast<ifinfomsg*>(nlmsg_data(hdr))->ifi_index);
  EXPECT_EQ(0, hdr->nlmsg_flags & NLM_F_CREATE);
  nlattr* tb[IFLA_MAX + 1] = {};
  ASSERT_EQ(0, nlmsg_parse(hdr, sizeof(ifinfomsg), tb, IFLA_MAX, nullptr));
  nlattr* info[IFLA_INFO_MAX + 1] = {};
  ASSERT_EQ(0, nla_parse_nested(info, IFLA_INFO_MAX, tb[IFLA_LINKINFO], nullptr));
  nlattr* data[IFLA_IPOIB_MAX + 1] = {};
  ASSERT_EQ(0, nla_parse_nested(data, IFLA_IPOIB_MAX, info[IFLA_INFO_DATA], nullptr));
  EXPECT_EQ(nullptr, data[IFLA_IPOIB_PKEY]);
  EXPECT_EQ(1, nla_get_u16(data[IFLA_IPOIB_MODE]));  // connected
  nlmsg_free(msg);
}

// Runs fn in a child process inside a fresh network namespace holding a veth pair ib0/ib1,
// with its own /sys (so a sysfs fallback can only touch the namespace's links); returns what
// fn wrote.
std::string in_fresh_netns(void (*fn)(FILE* out))
{
  test::TempDir dir;
  const auto path = dir.path() / "out";
  const pid_t pid = fork();
  if (pid == 0) {
    FILE* out = std::fopen(path.c_str(), "w");
    if (out == nullptr || unshare(CLONE_NEWNET | CLONE_NEWNS) != 0 ||
        mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        umount2("/sys", MNT_DETACH) != 0 || mount("sysfs", "/sys", "sysfs", 0, nullptr) != 0 ||
        std::system("ip link add ib0 type veth peer name ib1") != 0) {
      _exit(2);
    }
    fn(out);
    std::fclose(out);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return test::read_text(path);
}

TEST(NetlinkKernel, PkeyChildIsRefusedClearlyWithoutIpoib)
{
  if (geteuid() != 0) {
    GTEST_SKIP() << "needs root (a private network namespace)";
  }
  const std::string text = in_fresh_netns([](FILE* out) {
    try {
      apply::make_netlink_backend()->create_child("ib0", "ib0.8001", 0x8001,
                                                  profile::Mode::datagram);
      std::fputs("accepted", out);
    } catch (const apply::BackendError& e) {
      std::fputs(e.what(), out);
    }
  });
  EXPECT_EQ(
      "create ib0.8001 (pkey 0x8001 on ib0): the kernel refused: Operation not supported "
      "(is ib_ipoib loaded, and is the parent an IPoIB interface?)",
      text);
}

TEST(NetlinkKernel, ModeIsRefusedClearlyOnANonIpoibLink)
{
  if (geteuid() != 0) {
    GTEST_SKIP() << "needs root (a private network namespace)";
  }
  const std::string text = in_fresh_netns([](FILE* out) {
    try {
      apply::make_netlink_backend()->set_mode("ib0", profile::Mode::datagram);
      std::fputs("accepted", out);
    } catch (const apply::BackendError& e) {
      std::fputs(e.what(), out);
    }
  });
  EXPECT_EQ(
      "ib0: set mode datagram: the kernel refused: Operation not supported; writing "
      "/sys/class/net/ib0/mode failed too",
      text);
}

// The backend's address requests, and the dump reading them back, on the real kernel: what
// libnl-route's cache reported for the same state (checked against it when it was replaced),
// including a peer address and IPv6's IFA_ADDRESS-only messages.
TEST(NetlinkKernel, AddressesRoundTrip)
{
  if (geteuid() != 0) {
    GTEST_SKIP() << "needs root (a private network namespace)";
  }
  const std::string text = in_fresh_netns([](FILE* out) {
    try {
      auto backend = apply::make_netlink_backend();
      backend->add_address("ib0", IpPrefix::parse("10.0.0.5/24", Family::ipv4, nullptr).value());
      backend->add_address("ib0", IpPrefix::parse("10.0.0.6/24", Family::ipv4, nullptr).value());
      backend->add_address("ib0", IpPrefix::parse("10.0.1.7/16", Family::ipv4, nullptr).value());
      backend->add_address("ib0", IpPrefix::parse("fd00:1::1/64", Family::ipv6, nullptr).value());
      backend->add_address("ib0", IpPrefix::parse("10.0.2.1/24", Family::ipv4, nullptr).value());
      backend->remove_address("ib0", IpPrefix::parse("10.0.2.1/24", Family::ipv4, nullptr).value());
      try {
        backend->add_address("ib0", IpPrefix::parse("10.0.0.5/24", Family::ipv4, nullptr).value());
      } catch (const apply::BackendError& e) {
        std::fprintf(out, "%s\n", e.what());
      }
      if (std::system("ip addr add 10.9.0.1 peer 10.9.0.2/32 dev ib1 && "
                      "ip addr add fd00:3::1 peer fd00:3::2/128 dev ib1") != 0) {
        std::fputs("ip failed\n", out);
      }
      const auto addresses = inventory::make_netlink_address_source()->addresses();
      for (const char* name : {"ib0", "ib1"}) {
        const auto it = addresses.find(static_cast<int>(if_nametoindex(name)));
        std::fprintf(out, "%s:", name);
        for (const auto& a : it == addresses.end() ? std::vector<std::string>{} : it->second) {
          std::fprintf(out, " %s", a.c_str());
        }
        std::fputs("\n", out);
      }
    } catch (const std::exception& e) {
      std::fprintf(out, "error: %s\n", e.what());
    }
  });
  EXPECT_EQ(
      "ib0: add 10.0.0.5/24: the kernel refused: File exists\n"
      "ib0: 10.0.0.5/24 10.0.1.7/16 10.0.0.6/24 fd00:1::1/64\n"
      "ib1: 10.9.0.1/32 fd00:3::1/128\n",
      text);
}

}  // namespace
