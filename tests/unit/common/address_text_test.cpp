// The address formatter against the C library's inet_ntop, whose text it must reproduce
// exactly: inventories, plans and JSON compare and print these strings.
#include "common/address_text.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <array>
#include <random>

using namespace ibsetup;

namespace {

std::string ntop(int af, const uint8_t* bytes)
{
  char buf[INET6_ADDRSTRLEN] = {};
  EXPECT_NE(nullptr, inet_ntop(af, bytes, buf, sizeof buf));
  return buf;
}

// Every pattern of zero and non-zero groups (which decides the "::" run and the embedded
// IPv4 forms), each with group values drawn from a few classes: one hex digit, leading zeros
// to drop, four digits, 0xffff.
TEST(AddressText, Ipv6MatchesInetNtopForEveryZeroGroupPattern)
{
  std::mt19937 random(15);
  const uint16_t classes[] = {0x1, 0xa, 0x10, 0xab, 0x100, 0xfff, 0x1000, 0xabcd, 0xffff};
  int compared = 0;
  for (unsigned pattern = 0; pattern < 256; ++pattern) {
    for (int round = 0; round < 40; ++round) {
      std::array<uint8_t, 16> bytes{};
      for (int g = 0; g < 8; ++g) {
        if ((pattern >> g & 1U) == 0) {
          continue;
        }
        uint16_t word = round < 9 ? classes[round] : static_cast<uint16_t>(1 + random() % 0xffffU);
        bytes[2 * g] = static_cast<uint8_t>(word >> 8U);
        bytes[2 * g + 1] = static_cast<uint8_t>(word & 0xffU);
      }
      ASSERT_EQ(ntop(AF_INET6, bytes.data()), util::ipv6_text(bytes.data()));
      ++compared;
    }
  }
  EXPECT_EQ(256 * 40, compared);
}

TEST(AddressText, Ipv6EmbeddedIpv4FormsMatchInetNtop)
{
  const std::array<uint8_t, 16> cases[] = {
      {},                                                       // ::
      {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},         // ::1
      {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2},         // ::2
      {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0},         // IPv4-compatible 0.1.0.0
      {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 1},        // ::10.0.0.1
      {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1},  // ::ffff:10.0.0.1
      {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0},   // ::ffff:0.0.0.0
      {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe, 10, 0, 0, 1},  // not mapped
      {0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 10, 0, 0, 1},  // ::ffff:0:a00:1
      {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1},  // 1::ffff:a00:1
      {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x02, 0xc9, 0xff, 0xfe, 0x03, 0x04, 0x05},
  };
  for (const auto& bytes : cases) {
    EXPECT_EQ(ntop(AF_INET6, bytes.data()), util::ipv6_text(bytes.data()));
  }
  EXPECT_EQ("::ffff:10.0.0.1", util::ipv6_text(cases[5].data()));
  EXPECT_EQ("fe80::202:c9ff:fe03:405", util::ipv6_text(cases[10].data()));
}

TEST(AddressText, Ipv4MatchesInetNtop)
{
  std::mt19937 random(4);
  for (int round = 0; round < 5000; ++round) {
    const uint32_t value = round < 256 ? static_cast<uint32_t>(round) * 0x01010101U : random();
    const uint8_t bytes[4] = {static_cast<uint8_t>(value >> 24U),
                              static_cast<uint8_t>(value >> 16U), static_cast<uint8_t>(value >> 8U),
                              static_cast<uint8_t>(value)};
    ASSERT_EQ(ntop(AF_INET, bytes), util::ipv4_text(bytes));
  }
  const uint8_t edge[4] = {0, 9, 10, 255};
  EXPECT_EQ("0.9.10.255", util::ipv4_text(edge));
}

TEST(AddressText, HexBytesAreTwoDigitsJoinedByColons)
{
  const unsigned char gid[20] = {0x80, 0x00, 0x00, 0x48, 0xfe, 0x80, 0, 0, 0,    0,
                                 0,    0,    0x00, 0x02, 0xc9, 0x03, 0, 0, 0x0a, 0xbf};
  EXPECT_EQ("80:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:00:0a:bf",
            util::hex_bytes(gid, sizeof gid));
  const unsigned char one[1] = {0x0f};
  EXPECT_EQ("0f", util::hex_bytes(one, 1));
  EXPECT_EQ("", util::hex_bytes(gid, 0));
}

}  // namespace
