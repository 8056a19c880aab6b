#include "common/sockaddr.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/un.h>

#include <cstring>

#include "gtest_compat.hpp"

using namespace ibsetup;

namespace {

IpAddress parse(const std::string& text, Family family)
{
  const auto a = IpAddress::parse(text, family);
  EXPECT_TRUE(a.has_value()) << text;
  return a.value_or(IpAddress{});
}

TEST(Sockaddr, Ipv4WithPort)
{
  const sockaddr_storage ss = to_sockaddr(parse("10.10.0.64", Family::ipv4), 18515);
  ASSERT_EQ(AF_INET, ss.ss_family);
  const auto* sin = reinterpret_cast<const sockaddr_in*>(&ss);
  EXPECT_EQ(18515, ntohs(sin->sin_port));
  in_addr expected{};
  ASSERT_EQ(1, inet_pton(AF_INET, "10.10.0.64", &expected));
  EXPECT_EQ(expected.s_addr, sin->sin_addr.s_addr);
  EXPECT_EQ(sizeof(sockaddr_in), sockaddr_length(ss));
  EXPECT_EQ("10.10.0.64", sockaddr_text(reinterpret_cast<const sockaddr*>(&ss)));
}

TEST(Sockaddr, Ipv6WithPort)
{
  const sockaddr_storage ss = to_sockaddr(parse("fd00:11::40", Family::ipv6), 4791);
  ASSERT_EQ(AF_INET6, ss.ss_family);
  const auto* sin6 = reinterpret_cast<const sockaddr_in6*>(&ss);
  EXPECT_EQ(4791, ntohs(sin6->sin6_port));
  in6_addr expected{};
  ASSERT_EQ(1, inet_pton(AF_INET6, "fd00:11::40", &expected));
  EXPECT_EQ(0, std::memcmp(&expected, &sin6->sin6_addr, sizeof expected));
  EXPECT_EQ(0U, sin6->sin6_scope_id);
  EXPECT_EQ(0U, sin6->sin6_flowinfo);
  EXPECT_EQ(sizeof(sockaddr_in6), sockaddr_length(ss));
  EXPECT_EQ("fd00:11::40", sockaddr_text(reinterpret_cast<const sockaddr*>(&ss)));
}

TEST(Sockaddr, PortDefaultsToZero)
{
  const sockaddr_storage v4 = to_sockaddr(parse("192.168.0.1", Family::ipv4));
  EXPECT_EQ(0, reinterpret_cast<const sockaddr_in*>(&v4)->sin_port);
  const sockaddr_storage v6 = to_sockaddr(parse("::1", Family::ipv6));
  EXPECT_EQ(0, reinterpret_cast<const sockaddr_in6*>(&v6)->sin6_port);
}

// The ICMP prober compares a reply's source, as text, with the address it sent to.
TEST(Sockaddr, TextRoundTripsTheAddress)
{
  for (const auto& [text, family] :
       {std::make_pair("10.255.0.1", Family::ipv4), std::make_pair("0.0.0.0", Family::ipv4),
        std::make_pair("fe80::c42:a103:16:e7e0", Family::ipv6),
        std::make_pair("::", Family::ipv6)}) {
    const IpAddress a = parse(text, family);
    const sockaddr_storage ss = to_sockaddr(a, 1);
    EXPECT_EQ(a.str(), sockaddr_text(reinterpret_cast<const sockaddr*>(&ss)));
  }
}

TEST(Sockaddr, TextOfOtherFamiliesIsAQuestionMark)
{
  EXPECT_EQ("?", sockaddr_text(nullptr));
  sockaddr_un un{};
  un.sun_family = AF_UNIX;
  EXPECT_EQ("?", sockaddr_text(reinterpret_cast<const sockaddr*>(&un)));
}

}  // namespace
