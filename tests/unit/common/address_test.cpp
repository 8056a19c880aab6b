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

// The reason is optional: a null why is not written through (it was: a crash on bad input).
TEST(Address, ParseWithoutAReason)
{
  EXPECT_FALSE(IpPrefix::parse("10.0.0.1", Family::ipv4, nullptr));
  EXPECT_FALSE(IpPrefix::parse("nonsense/24", Family::ipv4, nullptr));
  EXPECT_FALSE(IpPrefix::parse("10.0.0.1/99", Family::ipv4, nullptr));
  EXPECT_TRUE(IpPrefix::parse("10.0.0.1/24", Family::ipv4, nullptr));
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

TEST(Address, OverlapAgreesWithContainmentOfTheShorterPrefix)
{
  // overlaps() compares bits in place; the definition is that the shorter prefix contains the
  // other's address. Checked on pseudo-random pairs of both families, lengths 0 to full, that
  // share a random number of leading bits, so that both outcomes are common.
  uint32_t seed = 12345;
  const auto next = [&seed] {
    seed = seed * 1103515245U + 12345U;
    return seed >> 8U;
  };
  int agreed = 0;
  int overlapping = 0;
  for (int i = 0; i < 20000; ++i) {
    const Family family = (i % 2 == 0) ? Family::ipv4 : Family::ipv6;
    const int bits = family == Family::ipv4 ? 32 : 128;
    IpPrefix a;
    IpPrefix b;
    a.address.family = b.address.family = family;
    for (size_t k = 0; k < static_cast<size_t>(bits / 8); ++k) {
      a.address.bytes[k] = static_cast<uint8_t>(next());
      b.address.bytes[k] = a.address.bytes[k];
    }
    const int flip = static_cast<int>(next() % static_cast<uint32_t>(bits));  // first bit to differ
    const auto byte = static_cast<size_t>(flip / 8);
    b.address.bytes[byte] = static_cast<uint8_t>(b.address.bytes[byte] ^ (0x80U >> (flip % 8)));
    a.length = static_cast<int>(next() % static_cast<uint32_t>(bits + 1));
    b.length = static_cast<int>(next() % static_cast<uint32_t>(bits + 1));
    const IpPrefix& shorter = a.length <= b.length ? a : b;
    const IpPrefix& longer = a.length <= b.length ? b : a;
    const bool expected = shorter.contains(longer.address);
    EXPECT_EQ(expected, a.overlaps(b)) << a.str() << " " << b.str();
    EXPECT_EQ(expected, b.overlaps(a)) << b.str() << " " << a.str();
    agreed += expected == a.overlaps(b) ? 1 : 0;
    overlapping += expected ? 1 : 0;
  }
  EXPECT_EQ(20000, agreed);
  EXPECT_GT(overlapping, 2000);  // both outcomes were exercised
  EXPECT_LT(overlapping, 18000);
  IpPrefix v6;
  v6.address.family = Family::ipv6;
  EXPECT_FALSE(v4("10.0.0.0/8").overlaps(v6));  // families never overlap
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
