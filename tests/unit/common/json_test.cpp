#include "common/json_read.hpp"
#include "common/json.hpp"

#include <ibsetup/error.hpp>

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

TEST(Json, TakeLineMovesTheDocumentOutWithItsNewline)
{
  JsonWriter j;
  j.begin_object().key("a").begin_array().value(1).end_array().end_object();
  EXPECT_EQ("{\"a\":[1]}\n", j.take_line());
  // The writer starts over: no separator or open container is left from the first document.
  EXPECT_EQ("", j.str());
  j.begin_array().value(2).end_array();
  EXPECT_EQ("[2]\n", j.take_line());
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

// The writer quotes keys and values by plain runs and single escapes: runs next to escapes,
// at either end, and every single byte come out as json_quote says.
TEST(Json, WriterQuotesRunsAndEscapesAsJsonQuoteDoes)
{
  JsonWriter j;
  j.begin_object()
      .key("k\"ey\\")
      .value(
          "ab\x01"
          "\tcd\"\\\xC2\x85"
          "ef\x7f")
      .end_object();
  EXPECT_EQ("{\"k\\\"ey\\\\\":\"ab\\u0001\\tcd\\\"\\\\\\u0085ef\\u007f\"}", j.str());
  for (int b = 0; b < 256; ++b) {
    const std::string one(1, static_cast<char>(b));
    for (const std::string& s : {one, "x" + one, one + "y", "ab" + one + "cd" + one}) {
      JsonWriter w;
      w.begin_array().value(s).end_array();
      EXPECT_EQ("[" + json_quote(s) + "]", w.str()) << "byte " << b;
    }
  }
  EXPECT_EQ("\"x\\u0001\"", json_quote("x\x01"));
  EXPECT_EQ("\"\\\"\"", json_quote("\""));
  EXPECT_EQ("\"\"", json_quote(""));
}

// A value taken from the document being written is copied before the document grows.
TEST(Json, WriterQuotesItsOwnTextAsAValue)
{
  JsonWriter w;
  w.begin_array().value(std::string(100, 'a'));
  const std::string before = w.str();
  w.value(w.str());
  EXPECT_EQ(before + "," + json_quote(before), w.str());
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

// Reading: nlohmann/json behind common/json_read.hpp, on 3.6.1 (Rocky 8) and 3.11 (Debian).
namespace {

using ibsetup::json::ParseError;

// The message of the ParseError that parsing text throws, or "accepted".
std::string parse_failure(const std::string& text)
{
  try {
    (void)json::parse(text);
    return "accepted";
  } catch (const ParseError& e) {
    return e.what();
  }
}

TEST(JsonRead, RefusesWhatRfc8259Refuses)
{
  const std::pair<const char*, const char*> cases[] = {
      {R"({"a":NaN})", "line 1, column 6: "},
      {R"({"a":Infinity})", "line 1, column 6: "},
      {R"({"a":01})", "line 1, column 7: "},
      {R"({"a":+1})", "line 1, column 6: "},
      {R"({"a":-01})", "line 1, column 8: "},
      {R"({"a":1e400})", "line 1, column 6: number overflow parsing '1e400'"},
      {"{\"s\":\"1e400\", \"b\":2,\n\"a\":1e400}",
       "line 2, column 5: number overflow parsing '1e400'"},
      {R"({"a":"\ud800"})", "surrogate"},
      {R"({"a":"\udc00"})", "surrogate"},
      {R"({"a":"\ud800\u0041"})", "surrogate"},
      {"{\"a\":\"caf\xe9\"}", "ill-formed UTF-8"},
      {"{\"a\":\"\x01\"}", "control character"},
      {R"({"a":1,})", "line 1, column 8: "},
      {"{\"a\":1}\n// c", "line 2, column 1: "},
      {R"({"a":1} {"b":2})", "expected end of input"},
      {"", "line 1, column 1: "},
  };
  for (const auto& [text, message] : cases) {
    const auto what = parse_failure(text);
    EXPECT_NE(std::string::npos, what.find(message)) << text << " -> " << what;
  }
  // What is valid stays valid: a surrogate pair, escapes, big integers, exponents.
  const auto doc = json::parse(R"({"s":"\ud83d\ude00\n","n":18446744073709551615,"e":1e3})");
  EXPECT_EQ("\xF0\x9F\x98\x80\n", doc["s"].get<std::string>());
  EXPECT_EQ(1000.0, doc["e"].get<double>());
}

TEST(JsonRead, PositionSplitFromTheLibraryMessage)
{
  try {
    (void)json::parse("{\n  \"a\": +1\n}");
    FAIL() << "accepted";
  } catch (const ParseError& e) {
    EXPECT_EQ(2U, e.line());
    EXPECT_EQ(8U, e.column());
    EXPECT_EQ(std::string::npos, e.detail().find("json.exception")) << e.detail();
    EXPECT_EQ(0U, std::string(e.what()).find("line 2, column 8: ")) << e.what();
  }
}

TEST(JsonRead, NestingIsCapped)
{
  const auto nested = [](size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
  };
  EXPECT_NO_THROW((void)json::parse(nested(json::k_max_depth)));
  EXPECT_EQ("line 1, column 65: arrays and objects nested deeper than 64",
            parse_failure(nested(json::k_max_depth + 1)));
  // 100,000 levels: refused at level 65, not a stack overflow in parsing or destruction.
  EXPECT_EQ("line 1, column 65: arrays and objects nested deeper than 64",
            parse_failure(std::string(100000, '[')));
  std::string objects;
  for (int i = 0; i < 100000; ++i) {
    objects += R"({"a":)";
  }
  EXPECT_EQ("line 1, column 321: arrays and objects nested deeper than 64", parse_failure(objects));
  // Brackets inside strings are not nesting.
  EXPECT_NO_THROW((void)json::parse("[\"" + std::string(1000, '[') + "\\\"{\"]"));
}

TEST(JsonRead, ANulByteIsRefusedWhereItIs)
{
  // The library would stop at the NUL and accept what came before.
  EXPECT_EQ("line 1, column 12: a NUL byte; JSON text has none",
            parse_failure(std::string(R"({"ok":true})") + '\0' + "junk"));
  EXPECT_EQ("line 2, column 3: a NUL byte; JSON text has none",
            parse_failure(std::string("{\n  ") + '\0' + "}"));
  EXPECT_EQ("line 1, column 3: a NUL byte; JSON text has none",
            parse_failure(std::string("[\"") + '\0' + "\"]"));
}

TEST(JsonRead, DuplicateKeysAreRefused)
{
  EXPECT_EQ(R"(line 1, column 13: duplicate key ok)", parse_failure(R"({"ok":false,"ok":true})"));
  EXPECT_EQ(R"(line 1, column 33: duplicate key id in checks[1])",
            parse_failure(R"({"checks":[{"id":"a"},{"id":"b","id":"c"}]})"));
  EXPECT_EQ(R"(line 1, column 27: duplicate key "a\u001b[2J" in x.y)",
            parse_failure("{\"x\":{\"y\":{\"a\\u001b[2J\":1,\"a\\u001b[2J\":2}}}"));
  // The position is that of the second name: strings that only look like names (a value with
  // an escaped quote and a colon, `"k" :` inside a value) do not count.
  EXPECT_EQ(R"(line 3, column 3: duplicate key k)",
            parse_failure("{\"s\": \"a\\\" \\\"k\\\" :\",\n  \"k\" : 1,\n  \"k\": 2}"));
  // The parser names the duplicate before it looks for the colon: a name without one is
  // still found where it is, not at the next string that has one.
  EXPECT_EQ(R"(line 1, column 12: duplicate key ok)",
            parse_failure(R"({"ok":true,"ok" "checks":[]})"));
  // Names in arrays of objects, after values that are objects or arrays.
  EXPECT_EQ(R"(line 1, column 28: duplicate key b in a[1])",
            parse_failure(R"({"a":[{"b":[1,{}]},{"b":{},"b":1}]})"));
  // The same key in different objects is fine.
  EXPECT_NO_THROW((void)json::parse(R"({"a":{"a":1},"b":[{"a":1},{"a":2}]})"));
}

TEST(JsonRead, MessagesQuoteAtMostAShortExcerpt)
{
  const std::string huge = "[\"" + std::string(1 << 20, 'x') + "\\q\"]";
  const auto what = parse_failure(huge);
  EXPECT_LT(what.size(), json::k_max_quote + 60) << what.size();
  EXPECT_NE(std::string::npos, what.find("bytes)")) << what;
}

TEST(JsonRead, ViewNamesThePathAndTheTypes)
{
  const auto doc = json::parse(R"({"a":[{"n":"4092"}],"i":2.5,"big":4294967296,"neg":-3})");
  const json::View root(doc, "");
  try {
    (void)root["a"].items().at(0)["n"].as_int();
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ("a[0].n: expected an integer, got a string", e.what());
  }
  EXPECT_THROW((void)root["i"].as_int(), InputError);
  EXPECT_THROW((void)root["big"].as_int(), InputError);
  EXPECT_EQ(-3, root["neg"].as_int());
  EXPECT_EQ(2.5, root["i"].as_number());
  EXPECT_FALSE(root["absent"].opt_string().has_value());
  EXPECT_THROW((void)root["absent"].items(), InputError);
  EXPECT_THROW((void)root["a"]["x"], InputError);
}

}  // namespace
