#include <ibsetup/address.hpp>

#include <gtest/gtest.h>

using namespace ibsetup;

namespace {

IpPrefix v4(const char* text)
{
  std::string why;
  auto p = IpPrefix::parse(text, Family::ipv4, &why);
  EXPECT_TRUE(p) << text << ": " << why;
  return p.value_or(IpPrefix{});
}

TEST(Address, ParsesAndFormatsCidr)
{
  EXPECT_EQ("10.10.0.0/16", v4("10.10.0.0/16").str());
  std::string why;
  auto p6 = IpPrefix::parse("fd00:10::/64", Family::ipv6, &why);
  ASSERT_TRUE(p6);
  EXPECT_EQ("fd00:10::/64", p6->str());
}

TEST(Address, RejectsMalformedCidr)
{
  std::string why;
  EXPECT_FALSE(IpPrefix::parse("10.10.0.0", Family::ipv4, &why));
  EXPECT_NE(why.find("missing /prefix-length"), std::string::npos);
  EXPECT_FALSE(IpPrefix::parse("10.10.0.0/33", Family::ipv4, &why));
  EXPECT_NE(why.find("0 to 32"), std::string::npos);
  EXPECT_FALSE(IpPrefix::parse("10.10.0/16", Family::ipv4, &why));
  EXPECT_FALSE(IpPrefix::parse("10.10.0.0/", Family::ipv4, &why));
  EXPECT_FALSE(IpPrefix::parse("fd00::/64", Family::ipv4, &why));
  EXPECT_FALSE(IpPrefix::parse("10.0.0.0/8", Family::ipv6, &why));
}

TEST(Address, PoolPositions)
{
  const auto pool = v4("10.10.0.0/16");
  EXPECT_EQ(65534U, pool.capacity());
  EXPECT_EQ("10.10.0.1/16", pool.nth(1)->str());
  EXPECT_EQ("10.10.1.0/16", pool.nth(256)->str());
  EXPECT_EQ("10.10.255.254/16", pool.nth(65534)->str());
  EXPECT_FALSE(pool.nth(65535));
  EXPECT_FALSE(pool.nth(0));
  EXPECT_EQ(1U, v4("10.0.0.0/31").capacity());
  EXPECT_EQ(0U, v4("10.0.0.0/32").capacity());
}

TEST(Address, Ipv6PoolCarriesAcrossBytes)
{
  std::string why;
  auto p = IpPrefix::parse("fd00::/120", Family::ipv6, &why);
  ASSERT_TRUE(p);
  EXPECT_EQ(255U, p->capacity());
  EXPECT_EQ("fd00::ff/120", p->nth(255)->str());
  EXPECT_FALSE(p->nth(256));
  auto wide = IpPrefix::parse("fd00::/48", Family::ipv6, &why);
  EXPECT_EQ(UINT64_MAX, wide->capacity());
  EXPECT_EQ("fd00::1:0/48", wide->nth(65536)->str());
}

TEST(Address, OverlapAndContainment)
{
  EXPECT_TRUE(v4("10.10.0.0/16").overlaps(v4("10.10.5.0/24")));
  EXPECT_TRUE(v4("10.10.5.0/24").overlaps(v4("10.10.0.0/16")));
  EXPECT_FALSE(v4("10.10.0.0/16").overlaps(v4("10.11.0.0/16")));
  EXPECT_TRUE(v4("10.10.0.0/16").contains(v4("10.10.9.17/32").address));
  EXPECT_TRUE(v4("10.10.0.0/16").is_network_or_broadcast());
  EXPECT_TRUE(v4("10.10.255.255/16").is_network_or_broadcast());
  EXPECT_FALSE(v4("10.10.9.0/16").is_network_or_broadcast());
  EXPECT_FALSE(v4("10.0.0.0/31").is_network_or_broadcast());
}

}  // namespace
