// The tree the guard builds from yaml-cpp's events against YAML::Load's tree of the same text:
// kind, scalar, tag, position, order and sharing must agree node for node, so that the reader
// (and every diagnostic it prints) sees what it saw when the profile was parsed twice.
// These run against both yaml-cpp builds: Debian's 0.7 and Rocky 8's 0.6.2 (scripts/test-el8).
#include "profile/yaml_guard.hpp"
#include "profile/yaml_tree.hpp"

#include <ibsetup/profile.hpp>

#include "gtest_compat.hpp"
#include "test_util.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

using namespace ibsetup;
using namespace ibsetup::profile;
using detail::YamlKind;
using detail::YamlNode;

namespace fs = std::filesystem;

namespace {

YamlKind kind_of(const YAML::Node& n)
{
  switch (n.Type()) {
  case YAML::NodeType::Scalar:
    return YamlKind::scalar;
  case YAML::NodeType::Sequence:
    return YamlKind::sequence;
  case YAML::NodeType::Map:
    return YamlKind::map;
  case YAML::NodeType::Null:
  case YAML::NodeType::Undefined:
  default:
    return YamlKind::null;
  }
}

std::string where(const std::string& path, const YamlNode& n)
{
  return path + " (" + std::to_string(n.Mark().line) + ":" + std::to_string(n.Mark().column) + ")";
}

// Compares two trees; returns the first difference, or "". Each shared node is walked once
// (an alias bomb stays cheap), and must be shared in both trees.
class Differ {
public:
  std::string compare(const YAML::Node& want, const YamlNode& got, const std::string& path)
  {
    if (const auto it = m_seen.find(got.id()); got.id() != nullptr && it != m_seen.end()) {
      return it->second.is(want) ? "" : where(path, got) + ": shared here, not in YAML::Load";
    }
    if (got.id() != nullptr) {
      m_seen.emplace(got.id(), want);
    }
    ++m_nodes;
    if (kind_of(want) != got.kind()) {
      return where(path, got) + ": kind " + std::to_string(static_cast<int>(got.kind())) +
             ", YAML::Load " + std::to_string(static_cast<int>(kind_of(want)));
    }
    const YAML::Mark m = want.Mark();
    const Mark expected = m.line < 0 ? Mark{} : Mark{m.line + 1, m.column + 1};
    if (expected.line != got.Mark().line || expected.column != got.Mark().column) {
      return where(path, got) + ": YAML::Load's mark is " + std::to_string(expected.line) + ":" +
             std::to_string(expected.column);
    }
    if (want.Tag() != got.Tag()) {
      return where(path, got) + ": tag '" + got.Tag() + "', YAML::Load '" + want.Tag() + "'";
    }
    if (got.IsScalar() && want.Scalar() != got.Scalar()) {
      return where(path, got) + ": scalar '" + got.Scalar() + "', YAML::Load '" + want.Scalar() +
             "'";
    }
    if (want.size() != got.size()) {
      return where(path, got) + ": " + std::to_string(got.size()) + " children, YAML::Load " +
             std::to_string(want.size());
    }
    size_t i = 0;
    for (auto it = want.begin(); it != want.end(); ++it, ++i) {
      std::string diff;
      if (got.IsMap()) {
        diff = compare(it->first, got.key(i), path + "{key " + std::to_string(i) + "}");
        if (diff.empty()) {
          diff = compare(it->second, got.value(i), path + "{" + std::to_string(i) + "}");
        }
      } else {
        diff = compare(*it, got.item(i), path + "[" + std::to_string(i) + "]");
      }
      if (!diff.empty()) {
        return diff;
      }
    }
    return "";
  }

  size_t nodes() const { return m_nodes; }

private:
  std::map<const void*, YAML::Node> m_seen;
  size_t m_nodes = 0;
};

enum class Verdict { same, refused };

// The guard's tree against YAML::Load for text prepared as load_profile_text prepares it.
// YAML::Load runs only on text the guard accepted: yaml-cpp 0.6.2 hangs on some of the rest.
Verdict expect_same(std::string text, const std::string& name, size_t* nodes = nullptr)
{
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) {
    text.erase(0, 3);
  }
  if (!text.empty() && text.back() != '\n') {
    text += '\n';
  }
  Diagnostics diags(name);
  detail::YamlDocument tree;
  if (!detail::guard_text(text, Limits{}, diags, &tree)) {
    return Verdict::refused;
  }
  YAML::Node want;
  try {
    want = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    ADD_FAILURE() << name << ": the guard accepted what YAML::Load refuses: " << e.what();
    return Verdict::same;
  }
  Differ differ;
  const auto diff = differ.compare(want, tree.root(), "root");
  EXPECT_EQ(diff, "") << name;
  if (nodes != nullptr) {
    *nodes += differ.nodes();
  }
  return Verdict::same;
}

std::vector<fs::path> yaml_files_under(const fs::path& dir)
{
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const auto ext = e.path().extension();
    if (e.is_regular_file() && (ext == ".yaml" || ext == ".yml")) {
      out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The ```yaml blocks of a Markdown file.
std::vector<std::string> yaml_blocks(const std::string& markdown)
{
  std::vector<std::string> out;
  size_t at = 0;
  while ((at = markdown.find("```yaml\n", at)) != std::string::npos) {
    at += 8;
    const size_t end = markdown.find("```", at);
    if (end == std::string::npos) {
      break;
    }
    out.push_back(markdown.substr(at, end - at));
    at = end + 3;
  }
  return out;
}

}  // namespace

TEST(YamlTree, EveryProfileAndSampleOfTheRepositoryBuildsYamlLoadsTree)
{
  std::vector<fs::path> files = yaml_files_under(IBSETUP_TEST_DATA);
  for (const auto& f : yaml_files_under(IBSETUP_PROFILES)) {
    files.push_back(f);
  }
  size_t compared = 0;
  size_t nodes = 0;
  for (const auto& f : files) {
    compared += expect_same(test::read_text(f), f.string(), &nodes) == Verdict::same ? 1 : 0;
  }
  const auto blocks = yaml_blocks(test::read_text(fs::path(IBSETUP_PROFILES) / "../README.md"));
  EXPECT_GE(blocks.size(), 2U);
  for (size_t i = 0; i < blocks.size(); ++i) {
    compared +=
        expect_same(blocks[i], "README.md block " + std::to_string(i), &nodes) == Verdict::same ? 1
                                                                                                : 0;
  }
  // The invalid profiles under tests/data/profile are mostly valid YAML; a handful are not.
  EXPECT_GE(compared, files.size() * 3 / 4);
  EXPECT_GT(compared, 60U);
  EXPECT_GT(nodes, 2000U);
}

TEST(YamlTree, TheComparisonSeesEachKindOfDifference)
{
  const auto diff = [](const std::string& load, const std::string& build) {
    Diagnostics diags("t.yaml");
    detail::YamlDocument tree;
    EXPECT_TRUE(detail::guard_text(build, Limits{}, diags, &tree));
    return Differ().compare(YAML::Load(load), tree.root(), "root");
  };
  EXPECT_EQ(diff("a: [1, 2]\n", "a: [1, 2]\n"), "");
  EXPECT_EQ(diff("a: 1\n", "a: '1'\n"), "root{0} (1:4): tag '!', YAML::Load '?'");
  EXPECT_EQ(diff("a: 1\n", "a:  1\n"), "root{0} (1:5): YAML::Load's mark is 1:4");
  EXPECT_EQ(diff("a: 1\n", "a: 2\n"), "root{0} (1:4): scalar '2', YAML::Load '1'");
  EXPECT_EQ(diff("a: [1]\n", "a: [1, 2]\n"), "root{0} (1:4): 2 children, YAML::Load 1");
  EXPECT_EQ(diff("a: [1]\n", "a: {1: 2}\n"), "root{0} (1:4): kind 3, YAML::Load 2");
  EXPECT_EQ(diff("a: &x [1]\nb: [1]\n", "a: &x [1]\nb: *x\n"),
            "root{1} (1:4): shared here, not in YAML::Load");
}

TEST(YamlTree, TheProfileFuzzCorpusBuildsYamlLoadsTree)
{
  const fs::path corpus = fs::path(IBSETUP_TEST_DATA) / "../fuzz/profile/corpus";
  size_t inputs = 0;
  size_t compared = 0;
  for (const auto& e : fs::directory_iterator(corpus)) {
    ++inputs;
    compared += expect_same(test::read_text(e.path()), e.path().string()) == Verdict::same;
  }
  EXPECT_GT(inputs, 50U);
  EXPECT_GT(compared, inputs / 2);
}

TEST(YamlTree, AnchorsAndAliasesShareTheAnchoredNode)
{
  const char* cases[] = {
      "a: &m {x: 1, y: [2, 3]}\nb: *m\nc: *m\n",            // an alias to a map
      "a: &s text\nb: *s\nlist: [*s, *s, &t other, *t]\n",  // to a scalar, in a flow list
      "k: &k key\n*k : value\n? *k\n: again\n",             // an alias used as a key
      "a: &n\nb: *n\n",                                     // to a null
      "a: &x 1\nb: *x\nc: &x 2\nd: *x\n",                   // an anchor defined again
      "base: &b\n  mtu: 2044\n  mode: datagram\nother:\n  <<: *b\n  mtu: 4092\n",  // merge key
      "top: &t [a, [b, *t]]\n",  // an alias inside its anchor
      "&root\nself: *root\n",
  };
  for (const char* text : cases) {
    EXPECT_EQ(expect_same(text, text), Verdict::same) << text;
  }
  Diagnostics diags("t.yaml");
  detail::YamlDocument tree;
  ASSERT_TRUE(detail::guard_text("a: &m {x: 1}\nb: *m\n", Limits{}, diags, &tree));
  EXPECT_EQ(tree.root().value(0).id(), tree.root().value(1).id());
  EXPECT_EQ(tree.root().value(1).Mark().line, 1);
}

TEST(YamlTree, AnAliasBombStaysOneNodePerDefinition)
{
  // Nine levels of ten aliases each expand to 10^9 nodes; the tree holds about a hundred.
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 9; ++i) {
    const std::string p = "*a" + std::to_string(i - 1);
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + p;
    for (int j = 1; j < 10; ++j) {
      text += ", " + p;
    }
    text += "]\n";
  }
  Limits limits;
  limits.max_alias_expansion = static_cast<size_t>(1) << 40U;
  Diagnostics diags("t.yaml");
  detail::YamlDocument tree;
  ASSERT_TRUE(detail::guard_text(text, limits, diags, &tree)) << diags.format();
  const YamlNode last = tree.root().value(9);
  ASSERT_EQ(last.size(), 10U);
  EXPECT_EQ(last.item(0).id(), last.item(9).id());
  EXPECT_EQ(last.item(0).id(), tree.root().value(8).id());
  // The default budget still refuses it, at the alias that crosses the limit.
  Diagnostics refused("t.yaml");
  EXPECT_FALSE(detail::guard_text(text, Limits{}, refused));
  EXPECT_NE(refused.format().find("aliases expand the document to more than"), std::string::npos)
      << refused.format();
}

TEST(YamlTree, StylesNullsTagsAndScalarsAsYamlLoadSeesThem)
{
  const char* cases[] = {
      // duplicate keys, kept in order
      "a: 1\nb: 2\na: 3\n",
      "{a: 1, a: 1, b: [1, 2]}\n",
      // flow and block styles mixed
      "nodes:\n  - hosts: n[1-4]\n    interfaces: [{name: ib0, mtu: 2044}, {name: ib1}]\n",
      "- [a, b]\n- {c: d}\n-\n  - e\n  -   f: g\n      h: i\n",
      "? [complex, key]\n: value\n? {m: 1}\n",
      // empty values and every spelling of null
      "a:\nb: ~\nc: null\nd: Null\ne: NULL\nf: ''\ng: \"\"\nh: 'null'\ni: !!null x\n",
      "[a, , b]\n",
      "{a, b: , : c}\n",
      "---\n",
      "--- ~\n...\n",
      "- \n- ~\n-\n",
      // tags
      "a: !!str 1\nb: !custom x\nc: !<tag:yaml.org,2002:int> 2\nd: !!map {x: 1}\ne: !s [1]\n",
      "a: ! x\nb: !!binary aGVsbG8=\nc: !e\n",
      "%TAG !e! tag:example.com,2000:\n---\na: !e!thing x\n",
      // quoting and multi-line scalars
      "a: 'it''s'\nb: \"tab\\there \\u00e9\"\nc: plain text here\n",
      "a: |\n  one\n  two\nb: >\n  folded\n  text\n\n  para\nc: |-\n  keep\nd: >+\n  x\n\n",
      "a: multi\n  line\n  plain\nb: \"double\n  quoted\"\nc: 'single\n\n  quoted'\n",
      "a:   spaced   \nb:\t\"x\"\n",
      // comments everywhere
      "# head\na: 1 # tail\n# between\nb: # before value\n  - x # item\n  # inside\n  - y\n",
      // unicode, document markers, directives
      "\xc3\xa9t\xc3\xa9: \"\xe2\x82\xac\"\n",
      "%YAML 1.2\n---\nversion: 1\n...\n",
      "--- !!map\na: 1\n",
      "plain scalar document\n",
      "--- |\n  literal document\n",
  };
  for (const char* text : cases) {
    EXPECT_EQ(expect_same(text, text), Verdict::same) << text;
  }
}
