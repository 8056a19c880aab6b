#include "common/strings.hpp"

#include <gtest/gtest.h>

using namespace ibsetup::util;

namespace {

TEST(Strings, ParseUnsignedDecimalAndHex)
{
  EXPECT_EQ(32769U, parse_unsigned("32769").value());
  EXPECT_EQ(0x8001U, parse_unsigned("0x8001").value());
  EXPECT_EQ(0x8001U, parse_unsigned("0X8001").value());
  EXPECT_FALSE(parse_unsigned("-1"));
  EXPECT_FALSE(parse_unsigned("12a"));
  EXPECT_FALSE(parse_unsigned(""));
  EXPECT_FALSE(parse_unsigned("0x"));
}

TEST(Strings, ParseDecimal)
{
  EXPECT_DOUBLE_EQ(2.5, parse_decimal("2.5").value());
  EXPECT_DOUBLE_EQ(16.0, parse_decimal("16.0").value());
  EXPECT_DOUBLE_EQ(200.0, parse_decimal("200").value());
  EXPECT_FALSE(parse_decimal("1e3"));
  EXPECT_FALSE(parse_decimal("."));
  EXPECT_FALSE(parse_decimal("5."));
}

TEST(Strings, SuggestionsForTypos)
{
  const std::vector<std::string> keys = {"mode", "mtu", "backend", "interfaces"};
  EXPECT_EQ("interfaces", closest_match("interfacse", keys));
  EXPECT_EQ("mtu", closest_match("MTU", keys));
  EXPECT_EQ("", closest_match("completely_unrelated", keys));
}

TEST(Strings, FormatNumber)
{
  EXPECT_EQ("2.5", format_number(2.5));
  EXPECT_EQ("200", format_number(200));
  EXPECT_EQ("0x8001", hex16(0x8001));
}

}  // namespace
