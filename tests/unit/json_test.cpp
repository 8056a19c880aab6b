#include <ibsetup/json.hpp>

#include <gtest/gtest.h>

using namespace ibsetup;

namespace {

TEST(Json, NestedContainersAndEscaping)
{
  JsonWriter j;
  j.begin_object();
  j.key("name").value("ib0 \"x\"\n");
  j.key("n").value(4092);
  j.key("speed").value(16.0);
  j.key("rate").value(2.5);
  j.key("none").null();
  j.key("list").begin_array().value(true).value(false).begin_object().end_object().end_array();
  j.end_object();
  EXPECT_EQ(R"({"name":"ib0 \"x\"\n","n":4092,"speed":16.0,"rate":2.5,"none":null,)"
            R"("list":[true,false,{}]})",
            j.str());
}

TEST(Json, ControlCharactersAreEscaped)
{
  EXPECT_EQ("\"a\\u0001b\"", json_quote(std::string("a\x01"
                                                    "b")));
  // DEL and C1 are legal raw in JSON, but a terminal acts on them.
  EXPECT_EQ("\"\\u001b[2J\\u007f\\u0085\\u009b\"", json_quote("\x1b[2J\x7f\xC2\x85\xC2\x9B"));
  EXPECT_EQ("\"\\u0000\"", json_quote(std::string(1, '\0')));
  // U+00A0 is the first code point after C1: unchanged.
  EXPECT_EQ("\"\xC2\xA0\"", json_quote("\xC2\xA0"));
}

TEST(Json, InvalidUtf8BecomesReplacementCharacters)
{
  const std::string fffd = "\xEF\xBF\xBD";
  // Valid sequences pass unchanged: 2, 3 and 4 bytes.
  EXPECT_EQ("\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"",
            json_quote("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  // Latin-1, a stray continuation byte, a cut sequence at the end, an overlong '/', a UTF-16
  // surrogate, a code point past U+10FFFF: each bad byte is one U+FFFD.
  EXPECT_EQ("\"caf" + fffd + " {\"", json_quote("caf\xE9 {"));
  EXPECT_EQ("\"" + fffd + "x\"", json_quote("\x80x"));
  EXPECT_EQ("\"a" + fffd + fffd + "\"", json_quote("a\xE2\x82"));
  EXPECT_EQ("\"" + fffd + fffd + "\"", json_quote("\xC0\xAF"));
  EXPECT_EQ("\"" + fffd + fffd + fffd + "\"", json_quote("\xED\xA0\x80"));
  EXPECT_EQ("\"" + fffd + fffd + fffd + fffd + "\"", json_quote("\xF4\x90\x80\x80"));
  EXPECT_EQ("\"" + fffd + "\"", json_quote("\xFF"));
}

}  // namespace
