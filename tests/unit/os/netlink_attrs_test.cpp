// inspect's own rtnetlink attribute parser against libnl's nla_parse, which it replaced on the
// read path (src/os/netlink_attrs.hpp): the same table for the same bytes, hostile ones included.
#include "os/netlink_attrs.hpp"

#include <gtest/gtest.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <linux/rtnetlink.h>

#include <cstdint>
#include <random>
#include <vector>

using namespace ibsetup;

namespace {

constexpr int k_max = 6;

// Both parsers over the same bytes; the tables must hold the same attribute for every type.
void expect_same(const std::vector<uint32_t>& words, size_t length)
{
  const nlattr* mine[k_max + 1] = {};
  os::nl::parse(words.data(), length, mine, k_max);
  nlattr* theirs[k_max + 1] = {};
  const auto* head = reinterpret_cast<const nlattr*>(words.data());
  ASSERT_EQ(0,
            nla_parse(theirs, k_max, const_cast<nlattr*>(head), static_cast<int>(length), nullptr));
  for (int type = 0; type <= k_max; ++type) {
    EXPECT_EQ(theirs[type], mine[type]) << "type " << type << ", " << length << " bytes";
  }
}

// One attribute: header and payload, padded to 4 bytes.
void put(std::vector<uint8_t>& out, uint16_t type, const std::vector<uint8_t>& payload)
{
  const auto length = static_cast<uint16_t>(NLA_HDRLEN + payload.size());
  out.push_back(static_cast<uint8_t>(length & 0xffU));
  out.push_back(static_cast<uint8_t>(length >> 8U));
  out.push_back(static_cast<uint8_t>(type & 0xffU));
  out.push_back(static_cast<uint8_t>(type >> 8U));
  out.insert(out.end(), payload.begin(), payload.end());
  out.resize(NLA_ALIGN(out.size()));
}

std::vector<uint32_t> words_of(const std::vector<uint8_t>& bytes)
{
  std::vector<uint32_t> words((bytes.size() + 3) / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  return words;
}

}  // namespace

TEST(NetlinkAttrs, LaterAttributeWinsAndFlagsAreMasked)
{
  std::vector<uint8_t> bytes;
  put(bytes, 1, {1, 0, 0, 0});
  put(bytes, 1, {2, 0, 0, 0});
  put(bytes, 2 | NLA_F_NESTED, {});
  put(bytes, 40, {9});  // above the table: skipped
  put(bytes, 3, {7, 0});
  const auto words = words_of(bytes);
  const nlattr* table[k_max + 1] = {};
  os::nl::parse(words.data(), bytes.size(), table, k_max);
  ASSERT_NE(nullptr, table[1]);
  EXPECT_EQ(2U, os::nl::get<uint32_t>(table[1]));
  ASSERT_NE(nullptr, table[2]);
  EXPECT_EQ(0U, os::nl::length(table[2]));
  ASSERT_NE(nullptr, table[3]);
  EXPECT_EQ(7U, os::nl::get<uint16_t>(table[3]));
  EXPECT_EQ(2U, os::nl::length(table[3]));
  expect_same(words, bytes.size());
}

TEST(NetlinkAttrs, ATruncatedOrShortTailIsSkipped)
{
  std::vector<uint8_t> bytes;
  put(bytes, 1, {1, 2, 3, 4});
  put(bytes, 2, {5, 6, 7, 8});
  const auto words = words_of(bytes);
  for (size_t length = 0; length <= bytes.size(); ++length) {
    const nlattr* table[k_max + 1] = {};
    os::nl::parse(words.data(), length, table, k_max);
    EXPECT_EQ(length >= 8, table[1] != nullptr) << length;
    EXPECT_EQ(length >= 16, table[2] != nullptr) << length;
    expect_same(words, length);
  }
}

TEST(NetlinkAttrs, AMessageTooShortForItsHeaderIsRefused)
{
  nl_msg* msg = nlmsg_alloc_simple(RTM_NEWLINK, 0);
  ifinfomsg ifi{};
  ASSERT_EQ(0, nlmsg_append(msg, &ifi, sizeof ifi, NLMSG_ALIGNTO));
  ASSERT_EQ(0, nla_put_u32(msg, IFLA_MTU, 2044));
  nlmsghdr* header = nlmsg_hdr(msg);
  const nlattr* table[IFLA_MAX + 1] = {};
  ASSERT_TRUE(os::nl::parse_message(header, sizeof(ifinfomsg), table, IFLA_MAX));
  ASSERT_NE(nullptr, table[IFLA_MTU]);
  EXPECT_EQ(2044U, os::nl::get<uint32_t>(table[IFLA_MTU]));
  header->nlmsg_len = NLMSG_LENGTH(sizeof(ifinfomsg)) - 1;
  EXPECT_FALSE(os::nl::parse_message(header, sizeof(ifinfomsg), table, IFLA_MAX));
  nlattr* theirs[IFLA_MAX + 1] = {};
  EXPECT_LT(nlmsg_parse(header, sizeof(ifinfomsg), theirs, IFLA_MAX, nullptr), 0);
  nlmsg_free(msg);
}

// Random attribute chains, lengths biased towards the edges (0-3, exact, one past the end).
TEST(NetlinkAttrs, MatchesLibnlOnRandomBytes)
{
  std::mt19937 rng(15);
  for (int round = 0; round < 20000; ++round) {
    std::vector<uint8_t> bytes(rng() % 64);
    for (auto& b : bytes) {
      b = static_cast<uint8_t>(rng());
    }
    for (size_t at = 0; at + 4 <= bytes.size(); at += 4 * (1 + rng() % 3)) {
      const uint16_t length = static_cast<uint16_t>(rng() % (bytes.size() - at + 6));
      bytes[at] = static_cast<uint8_t>(length);
      bytes[at + 1] = static_cast<uint8_t>(length >> 8U);
      bytes[at + 2] = static_cast<uint8_t>(rng() % (k_max + 3));
      bytes[at + 3] = static_cast<uint8_t>(rng() % 4 == 0 ? 0x80 : 0);
    }
    expect_same(words_of(bytes), bytes.size());
    if (HasFailure()) {
      return;
    }
  }
}
