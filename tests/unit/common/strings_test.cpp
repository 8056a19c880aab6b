#include "common/strings.hpp"

#include <cctype>

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

TEST(Strings, TrimTakesOffWhatIsspaceCallsSpaceInTheCLocale)
{
  EXPECT_EQ("a b", trim(" \t\n\v\f\ra b\r\n"));
  EXPECT_EQ("", trim(" \t "));
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    const bool space = std::isspace(b) != 0;  // the program never sets a locale: "C"
    EXPECT_EQ(space ? std::string("x") : std::string(1, c) + "x" + std::string(1, c),
              trim(std::string(1, c) + "x" + std::string(1, c)))
        << "byte " << b;
  }
}

TEST(Strings, ExcerptSaysTheWholeLengthOfATextReadInPart)
{
  EXPECT_EQ("abc", excerpt("abc", 5));
  EXPECT_EQ("ab ... (3 bytes)", excerpt("abc", 2));
  // The start of a longer text: marked even when it fits, with the text's length.
  EXPECT_EQ("abc ... (5000 bytes)", excerpt("abc", 5, 5000));
  EXPECT_EQ("ab ... (5000 bytes)", excerpt("abc", 2, 5000));
  EXPECT_EQ("abc", excerpt("abc", 5, 3));
  // A euro sign (3 bytes) read in part at the end is left out; a whole one is kept.
  const std::string euro = "\xE2\x82\xAC";
  EXPECT_EQ("ab ... (9 bytes)", excerpt("ab" + euro.substr(0, 2), 10, 9));
  EXPECT_EQ("ab ... (9 bytes)", excerpt("ab" + euro.substr(0, 1), 10, 9));
  EXPECT_EQ("ab" + euro + " ... (9 bytes)", excerpt("ab" + euro, 10, 9));
  EXPECT_EQ(" ... (9 bytes)", excerpt(euro.substr(0, 2), 10, 9));
  EXPECT_EQ("a\x80\x80\x80\x80 ... (9 bytes)", excerpt("a\x80\x80\x80\x80", 10, 9));
}

TEST(Strings, ParseDecimal)
{
  EXPECT_DOUBLE_EQ(2.5, parse_decimal("2.5").value());
  EXPECT_DOUBLE_EQ(16.0, parse_decimal("16.0").value());
  EXPECT_DOUBLE_EQ(200.0, parse_decimal("200").value());
  EXPECT_FALSE(parse_decimal("1e3"));
  EXPECT_FALSE(parse_decimal("."));
  EXPECT_FALSE(parse_decimal("5."));
  // 400 digits (a hostile sysfs rate file) overflow to inf, which passed every minimum.
  EXPECT_FALSE(parse_decimal("1" + std::string(400, '0')));
  EXPECT_TRUE(parse_decimal("1" + std::string(300, '0')));
}

TEST(Strings, SuggestionsForTypos)
{
  const std::vector<std::string> keys = {"mode", "mtu", "backend", "interfaces"};
  EXPECT_EQ("interfaces", closest_match("interfacse", keys));
  EXPECT_EQ("mtu", closest_match("MTU", keys));
  EXPECT_EQ("", closest_match("completely_unrelated", keys));
}

TEST(Strings, JoinPutsTheSeparatorBetweenEachTwoItems)
{
  EXPECT_EQ(join({}, ", "), "");
  EXPECT_EQ(join({"a"}, ", "), "a");
  EXPECT_EQ(join({"mstconfig", "-d", "0000:3b:00.0", "q"}, " "), "mstconfig -d 0000:3b:00.0 q");
  // An empty item keeps its place: an argv with an empty argument shows it.
  EXPECT_EQ(join({"", "b", ""}, ","), ",b,");
}

TEST(Strings, FormatNumber)
{
  EXPECT_EQ("2.5", format_number(2.5));
  EXPECT_EQ("200", format_number(200));
  EXPECT_EQ("0x8001", hex16(0x8001));
}

TEST(Strings, EscapeTextLeavesPrintableTextAlone)
{
  EXPECT_EQ("ib0 mlx5_0 20.31.1014", escape_text("ib0 mlx5_0 20.31.1014"));
  EXPECT_EQ("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 a\\x1b",
            escape_text("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 a\\x1b"));
  EXPECT_EQ("", escape_text(""));
}

TEST(Strings, EscapeTextShowsEveryControlCharacter)
{
  // C0 (NUL, BEL, ESC, newline, carriage return, tab), DEL, C1 (U+0085, U+009B: CSI).
  EXPECT_EQ("a\\x00b", escape_text(std::string("a\0b", 3)));
  EXPECT_EQ("\\x07\\x1b[31mred", escape_text("\a\x1b[31mred"));
  EXPECT_EQ("x\\nfleet: ok\\r\\t", escape_text("x\nfleet: ok\r\t"));
  EXPECT_EQ("\\x7f", escape_text("\x7f"));
  EXPECT_EQ("\\u0085\\u009b2J", escape_text("\xC2\x85\xC2\x9B"
                                            "2J"));
  // Kept for whole formatted output: newlines and tabs only.
  EXPECT_EQ("a\n\tb\\x1b", escape_text("a\n\tb\x1b", true));
}

// Shown as nothing, but they change how the line around them reads: the line and paragraph
// separators, and the bidirectional controls ("Trojan Source": U+202E makes "fail" display as
// "liaf"). Their visible neighbours (U+2027, U+202F, U+2070) are left alone.
TEST(Strings, EscapeTextShowsLineSeparatorsAndBidiControls)
{
  EXPECT_EQ("pass\\u2028fail", escape_text("pass\xE2\x80\xA8"
                                           "fail"));
  EXPECT_EQ("\\u2029", escape_text("\xE2\x80\xA9"));
  EXPECT_EQ("ok \\u202eliaf\\u202c", escape_text("ok \xE2\x80\xAE"
                                                 "liaf\xE2\x80\xAC"));
  for (const char* c : {"\xD8\x9C", "\xE2\x80\x8E", "\xE2\x80\x8F", "\xE2\x80\xAA", "\xE2\x81\xA6",
                        "\xE2\x81\xA9"}) {
    EXPECT_EQ('\\', escape_text(c).front()) << escape_text(c);
  }
  for (const char* c : {"\xE2\x80\xA7", "\xE2\x80\xAF", "\xE2\x81\xB0"}) {
    EXPECT_EQ(c, escape_text(c));
  }
  // Whole formatted output (the stdout guard) keeps them: its fields were escaped on their own,
  // and an OpenMetrics label value carries them as data (promtool refuses a "\u" escape).
  EXPECT_EQ("fw=\"1.2\xE2\x80\xA8\"\n", escape_text("fw=\"1.2\xE2\x80\xA8\"\n", true));
}

// Invisible characters (Unicode's default ignorables) make two names look alike: "cn01" and
// "cn<U+200B>01", or "cn01<U+FE0F>".
TEST(Strings, EscapeTextShowsInvisibleCharacters)
{
  EXPECT_EQ("cn\\u200b01", escape_text("cn\xE2\x80\x8B"
                                       "01"));
  EXPECT_EQ("cn01\\ufe0f", escape_text("cn01\xEF\xB8\x8F"));
  EXPECT_EQ("\\ue0041", escape_text("\xF3\xA0\x81\x81"));  // a tag character
  for (const char* c :
       {"\xC2\xAD", "\xCD\x8F", "\xE1\x85\x9F", "\xE1\xA0\x8E", "\xE2\x80\x8C", "\xE2\x80\x8D",
        "\xE2\x81\xA0", "\xE2\x81\xA4", "\xE2\x81\xAA", "\xE3\x85\xA4", "\xEF\xBB\xBF",
        "\xEF\xBE\xA0", "\xEF\xBF\xB0", "\xF0\x9B\xB2\xA0", "\xF0\x9D\x85\xB3"}) {
    EXPECT_EQ('\\', escape_text(c).front()) << escape_text(c);
    EXPECT_EQ(c, escape_text(c, true));  // kept in whole formatted output
  }
  // Visible neighbours stay: U+00AC, U+200A (hair space), U+FE10, U+FFFC.
  for (const char* c : {"\xC2\xAC", "\xE2\x80\x8A", "\xEF\xB8\x90", "\xEF\xBF\xBC"}) {
    EXPECT_EQ(c, escape_text(c));
  }
}

TEST(Strings, EscapeTextShowsBytesThatAreNotUtf8)
{
  // Latin-1, a stray continuation byte, a cut sequence, an overlong '/', a lone surrogate.
  EXPECT_EQ("caf\\xe9", escape_text("caf\xE9"));
  EXPECT_EQ("\\x80x", escape_text("\x80x"));
  EXPECT_EQ("a\\xe2\\x82", escape_text("a\xE2\x82"));
  EXPECT_EQ("\\xc0\\xaf", escape_text("\xC0\xAF"));
  EXPECT_EQ("\\xed\\xa0\\x80", escape_text("\xED\xA0\x80"));
}

TEST(Strings, DescribeCharNamesTheCodePoint)
{
  EXPECT_EQ("U+0060 '`'", describe_char("a`b", 1));
  EXPECT_EQ("U+00E9 '\xC3\xA9'", describe_char("\xC3\xA9", 0));
  EXPECT_EQ("U+001B", describe_char("\x1b", 0));
  EXPECT_EQ("U+0085", describe_char("\xC2\x85", 0));
  EXPECT_EQ("byte 0xff", describe_char("\xFF", 0));
}

}  // namespace
