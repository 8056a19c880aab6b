// The pre-parse guard: nesting is counted for every YAML form by yaml-cpp's
// own event parser, and the inputs yaml-cpp loops or crashes on are refused with a position.
// These run against both yaml-cpp builds: Debian's 0.7 and Rocky 8's 0.6.2 (scripts/test-el8).
#include "profile/yaml_guard.hpp"

#include <ibsetup/profile.hpp>

#include "gtest_compat.hpp"

#include <string>

using namespace ibsetup;
using namespace ibsetup::profile;

namespace {

// The guard's verdict: "accepted" or its diagnostics.
std::string guard(const std::string& text, const Limits& limits = {})
{
  Diagnostics diags("t.yaml");
  if (detail::guard_text(text, limits, diags)) {
    return diags.has_errors() ? "accepted with errors" : "accepted";
  }
  return diags.format();
}

std::string repeat(const std::string& s, int n)
{
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += s;
  }
  return out;
}

std::string too_deep(const std::string& where)
{
  return "t.yaml:" + where +
         ": document nested more than 64 levels deep; a profile needs far fewer";
}

TEST(YamlGuard, FlowNestingUpToTheLimitIsAccepted)
{
  EXPECT_EQ("accepted", guard(repeat("[", 64) + repeat("]", 64) + "\n"));
  EXPECT_EQ(too_deep("1:65"), guard(repeat("[", 65) + repeat("]", 65) + "\n"));
}

TEST(YamlGuard, BlockSequenceNestingIsCountedPerEntry)
{
  // The root map is level 1, nodes' sequence level 2: the 64th "- " opens level 65.
  EXPECT_EQ(too_deep("3:127"), guard("version: 1\nnodes:\n" + repeat("- ", 5000) + "x\n"));
  EXPECT_EQ("accepted", guard("version: 1\nnodes:\n" + repeat("- ", 63) + "x\n"));
}

TEST(YamlGuard, BlockMapNestingIsCountedPerIndentation)
{
  std::string text = "version: 1\n";
  for (int i = 0; i < 200; ++i) {
    text += std::string(static_cast<size_t>(i), ' ') + "k" + std::to_string(i) + ":\n";
  }
  EXPECT_EQ(too_deep("66:65"), guard(text));
}

TEST(YamlGuard, TagFollowedByBracketsIsCounted)
{
  // The old guard skipped everything after a tag up to the next blank; yaml-cpp ends the tag
  // at the '[' (0.6.2 then overflowed its stack: a segfault on Rocky 8).
  EXPECT_EQ(too_deep("1:70"), guard("a: !t" + repeat("[", 100000) + "\n"));
  EXPECT_EQ(too_deep("1:68"), guard("!t " + repeat("[", 100000) + "\n"));
  EXPECT_EQ(too_deep("1:73"), guard("a: !!seq" + repeat("[", 100000) + "\n"));
  EXPECT_EQ(too_deep("1:74"), guard("a: !<x[]>" + repeat("[", 100000) + "\n"));
  EXPECT_EQ(too_deep("1:196"), guard("a: [!t[!t[!t[" + repeat("!t[", 100000) + "\n"));
}

TEST(YamlGuard, TagsAndAnchorsOnEveryLevelAreCounted)
{
  // Each level "!t [" (a local tag), "!!seq [" (a secondary one) or "!<x> [" (verbatim), with
  // an anchor: yaml-cpp's node position is the tag's.
  std::string text = "a:\n";
  for (int i = 0; i < 70; ++i) {
    text += std::string(static_cast<size_t>(2 * i + 2), ' ') + "- " +
            (i % 3 == 0   ? "!t"
             : i % 3 == 1 ? "!!seq"
                          : "!<tag:x,2002:s>") +
            " &a" + std::to_string(i) + "\n";
  }
  EXPECT_EQ(too_deep("64:129"), guard(text));
}

TEST(YamlGuard, BlockAndFlowLevelsAddUp)
{
  // 40 block sequences, then flow maps: the 25th map is level 65. Each style alone is far
  // below the limit.
  EXPECT_EQ(too_deep("1:177"),
            guard(repeat("- ", 40) + repeat("{a: ", 30) + "x" + repeat("}", 30) + "\n"));
  EXPECT_EQ("accepted",
            guard(repeat("- ", 40) + repeat("{a: ", 24) + "x" + repeat("}", 24) + "\n"));
}

TEST(YamlGuard, ComplexKeysAndCompactMapsAreCounted)
{
  // "? " keys and single-pair maps inside flow sequences each open a level.
  EXPECT_EQ(too_deep("129:129"), guard([] {
              std::string t;
              for (int i = 0; i < 70; ++i) {
                t += std::string(static_cast<size_t>(2 * i), ' ') + "? k" + std::to_string(i) +
                     "\n" + std::string(static_cast<size_t>(2 * i), ' ') + ":\n";
              }
              return t;
            }()));
  EXPECT_EQ(too_deep("1:129"), guard(repeat("[a: ", 40) + "x" + repeat("]", 40) + "\n"));
}

TEST(YamlGuard, QuotedBracketsAndCommentsAreNotNesting)
{
  const std::string text = "a: \"" + repeat("[", 100) + "\"\nb: '" + repeat("{", 100) + "'  # " +
                           repeat("[", 100) + "\nc: x" + repeat("[", 100) + "\n";
  EXPECT_EQ("accepted", guard(text));
}

TEST(YamlGuard, StrayCommaIsRefusedBeforeYamlCppLoops)
{
  // yaml-cpp issue 1040: LoadAll adds empty documents without end (both 0.6.2 and 0.7).
  const std::string why =
      ": unexpected ',' where a YAML value should start (',' separates entries only inside "
      "[ ] or { })";
  EXPECT_EQ("t.yaml:1:1" + why, guard(","));
  EXPECT_EQ("t.yaml:1:1" + why, guard(", a"));
  EXPECT_EQ("t.yaml:1:4" + why, guard("\"a\","));
  EXPECT_EQ("t.yaml:1:4" + why, guard("[a], b\n"));
  EXPECT_EQ("t.yaml:1:5" + why, guard("--- ,\n"));
}

TEST(YamlGuard, ColonBeforeFlowEndIsRefused)
{
  // yaml-cpp 0.6.2 loops (allocating) on these; 0.7 reports them.
  const std::string why =
      ": ':' directly before ']' inside a flow collection; yaml-cpp 0.6.2 (Rocky 8) loops on it "
      "without end: put a space after ':' or quote the value";
  EXPECT_EQ("t.yaml:1:2" + why, guard("[:]\n"));
  EXPECT_EQ("t.yaml:2:10" + why, guard("version: 1\nnodes: [a:]\n"));
  EXPECT_EQ("accepted", guard("a: [\"x:]\", 'y:]', b: c]  # :]\nz: x:]\n"));
}

TEST(YamlGuard, DocumentsAreCounted)
{
  EXPECT_EQ("t.yaml:1:1: the file holds 2 YAML documents; a profile is exactly one",
            guard("a: 1\n---\nb: 2\n"));
  EXPECT_EQ("t.yaml:1:1: the file holds 0 YAML documents; a profile is exactly one",
            guard("%YAML 1.2\n"));
  EXPECT_EQ("accepted", guard("--- \na: 1\n...\n"));
}

TEST(YamlGuard, SyntaxErrorsAreReportedWithTheirPosition)
{
  EXPECT_EQ("t.yaml:1:5: YAML syntax error: illegal map value", guard("a: b: c\n"));
}

TEST(ProfileText, EndOfFileAfterColonInFlowIsAnUnclosedFlow)
{
  // Without a final newline, "[:" made yaml-cpp 0.6.2 loop (upstream issues 499, 938).
  try {
    load_profile_text("nodes: [:", "t.yaml");
    FAIL();
  } catch (const DiagnosticError& e) {
    EXPECT_EQ("t.yaml:2:1: YAML syntax error: end of sequence flow not found",
              e.diagnostics().format());
  }
}

TEST(ProfileText, ParseMemoryIsBounded)
{
  std::string text = "version: 1\nnodes:\n";
  for (int i = 0; i < 20000; ++i) {
    text += "  - {hosts: \"n" + std::to_string(i) + "\", interfaces: [{name: ib0}]}\n";
  }
  Limits limits;
  limits.max_parse_memory = 1U << 20U;
  try {
    load_profile_text(text, "t.yaml", limits);
    FAIL();
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(
        "t.yaml: yaml-cpp used more than 1 MiB parsing the profile; stopped (a profile "
        "needs far less: this input may hit a yaml-cpp bug)",
        e.diagnostics().format());
  }
  // The budget is disarmed afterwards, and the default one is far above a real profile.
  EXPECT_NO_THROW(load_profile_text("version: 1\nnodes:\n  - {hosts: \"n[1-2]\"}\n", "t.yaml"));
}

}  // namespace

namespace {

TEST(YamlGuard, SheerSizeIsNotBlamedOnAliases)
{
  // 200 entries and no alias over a limit of 100 nodes: the message says what is there.
  Limits limits;
  limits.max_alias_expansion = 100;
  const std::string out = guard("nodes: [" + repeat("a, ", 200) + "a]\n", limits);
  EXPECT_NE(std::string::npos,
            out.find("the document holds more than 100 nodes; a cluster profile needs far fewer"))
      << out;
  EXPECT_EQ(std::string::npos, out.find("alias")) << out;
}

}  // namespace
