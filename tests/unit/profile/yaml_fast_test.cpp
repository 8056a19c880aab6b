// The fast path for plain profiles against yaml-cpp's own parser: whenever the fast path takes
// a text, its events must be exactly yaml-cpp's (kind, mark, tag, anchor, value, style), and
// yaml-cpp must accept the text. Run over every profile the project has, documents generated
// from the subset's grammar and thousands of random mutations of both. These run against both
// yaml-cpp builds: Debian's 0.7 and Rocky 8's 0.6.2 (scripts/test-el8).
#include "profile/yaml_fast.hpp"

#include "gtest_compat.hpp"

#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using ibsetup::profile::detail::fast_parse;

namespace {

class Recorder : public YAML::EventHandler {
public:
  std::vector<std::string> events;

  void OnDocumentStart(const YAML::Mark& mark) override { add("doc", mark); }
  void OnDocumentEnd() override { events.emplace_back("/doc"); }
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override
  {
    add("null", mark, "", anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override
  {
    add("alias", mark, "", anchor);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override
  {
    add("scalar", mark, tag, anchor, "[" + value + "]");
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value style) override
  {
    add("seq", mark, tag, anchor, std::to_string(static_cast<int>(style)));
  }
  void OnSequenceEnd() override { events.emplace_back("/seq"); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value style) override
  {
    add("map", mark, tag, anchor, std::to_string(static_cast<int>(style)));
  }
  void OnMapEnd() override { events.emplace_back("/map"); }

private:
  void add(const std::string& kind, const YAML::Mark& mark, const std::string& tag = "",
           YAML::anchor_t anchor = 0, const std::string& value = "")
  {
    events.push_back(kind + " " + std::to_string(mark.pos) + ":" + std::to_string(mark.line) + ":" +
                     std::to_string(mark.column) + " tag[" + tag + "] &" + std::to_string(anchor) +
                     " " + value);
  }
};

std::string join(const std::vector<std::string>& lines)
{
  std::string out;
  for (const auto& l : lines) {
    out += l + "\n";
  }
  return out;
}

// True when the fast path took the text; fails the test when it did and yaml-cpp disagrees.
// yaml-cpp only sees texts the fast path took: those never hold the shapes yaml-cpp 0.6.2
// loops on (the guard's FlowScanner keeps those from it in production).
bool check(const std::string& text)
{
  Recorder fast;
  if (!fast_parse(text, fast)) {
    EXPECT_TRUE(fast.events.empty()) << text;
    return false;
  }
  Recorder slow;
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(slow)) {
    }
  } catch (const YAML::Exception& e) {
    ADD_FAILURE() << "fast path took a text yaml-cpp refuses (" << e.what() << "):\n" << text;
    return true;
  }
  EXPECT_EQ(join(slow.events), join(fast.events)) << "text:\n" << text;
  return true;
}

std::string read(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The profile bench/apply_vs_ip.sh writes: 64 interfaces as flow maps.
std::string bench_profile()
{
  std::string text = "version: 1\nnodes:\n  - hosts: b1\n    interfaces:\n";
  for (int i = 0; i < 64; ++i) {
    const std::string n = std::to_string(i);
    text += "      - {name: ib" + n + ", mtu: 2044, ipv4: 10.100." + n + ".0/24, ipv6: 'fd00:" + n +
            "::/64'}\n";
  }
  return text;
}

// Every profile the project carries: tests' data, the fuzz corpus, the shipped examples and
// the README's yaml blocks.
std::vector<std::string> corpus()
{
  std::vector<std::string> texts;
  const fs::path data(IBSETUP_TEST_DATA);
  for (const fs::path& root :
       {data, data.parent_path() / "fuzz" / "profile" / "corpus", fs::path(IBSETUP_PROFILES)}) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      const auto ext = entry.path().extension();
      if (entry.is_regular_file() && (ext == ".yaml" || root != data)) {
        files.push_back(entry.path());
      }
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      texts.push_back(read(f));
    }
  }
  std::istringstream readme(read(data.parent_path().parent_path() / "README.md"));
  std::string line;
  std::string block;
  bool in_block = false;
  while (std::getline(readme, line)) {
    if (in_block && line == "```") {
      texts.push_back(block);
      in_block = false;
    } else if (in_block) {
      block += line + "\n";
    } else if (line == "```yaml") {
      in_block = true;
      block.clear();
    }
  }
  return texts;
}

// Random documents from the subset's grammar, with the shapes profiles have.
class Generator {
public:
  explicit Generator(unsigned seed) : m_rng(seed) {}

  std::string document()
  {
    std::string out = maybe_comments(0);
    if (pick(8) == 0) {
      out += flow(0) + "\n";
    } else if (pick(4) == 0) {
      block_sequence(out, pick(2) * 2, 0);
    } else {
      block_map(out, 0, 0);
    }
    out += maybe_comments(0);
    // yaml-cpp marks the end of a file without a final newline as if it had one.
    if (pick(5) == 0) {
      out.pop_back();
    }
    return out;
  }

private:
  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(m_rng); }

  std::string word()
  {
    static const char* const words[] = {
        // The subset's words first,
        "version", "nodes", "hosts", "ib0", "mtu", "2044", "10.0.0.0/24", "fd00::1", "a b", "x_y",
        "null", "~", "true", "mlx5_0", "0x8001", "-5", "name-dash", "a:b", "1.5", "Null", "x  y",
        "/etc/ib.cfg", "c+d=e", "a@b", "a - b", "fd00:1::2", "cn[01-04]", "a,b", "k:[v]",
        // then words it leaves to yaml-cpp.
        "fd00:1::", "$v", "(p)", "%x", "a, b", "a #b", "key:", ": x", "-", "a?", "[x]", "{y}",
        "it's", "q\"q", "back\\s", "...", "---", "tab\tx", "&a", "*a", "!t", "|", ">", "", " lead",
        "trail ", "é"};
    // Mostly the words profiles have; now and then one outside the subset.
    const size_t plain = 29;
    const size_t n = sizeof words / sizeof words[0];
    return words[pick(25) == 0 ? plain + pick(n - plain) : pick(plain)];
  }

  std::string scalar()
  {
    const std::string w = word();
    switch (pick(5)) {
    case 0: {
      std::string q = "'";
      for (char c : w) {
        q += c == '\'' ? std::string("''") : std::string(1, c);
      }
      return q + "'";
    }
    case 1:
      return "\"" + w + "\"";
    default:
      return w;
    }
  }

  std::string flow(int depth)
  {
    const bool map = pick(2) == 0;
    std::string out = map ? "{" : "[";
    const size_t n = pick(4);
    for (size_t i = 0; i < n; ++i) {
      out += i > 0 ? (pick(4) == 0 ? " ," : ",") + std::string(pick(3), ' ') : "";
      if (map) {
        out += scalar() + (pick(10) == 0 ? ":" : ": ");
      }
      out += depth < 3 && pick(5) == 0 ? flow(depth + 1) : scalar();
    }
    return out + (map ? "}" : "]");
  }

  std::string maybe_comments(int indent)
  {
    std::string out;
    while (pick(4) == 0) {
      switch (pick(4)) {
      case 0:
        out += "\n";
        break;
      case 1:
        out += std::string(pick(6), ' ') + "\n";
        break;
      default:
        out += std::string(static_cast<size_t>(indent) + pick(3), ' ') + "# note: x\n";
      }
    }
    return out;
  }

  std::string tail()
  {
    switch (pick(7)) {
    case 0:
      return " # comment";
    case 1:
      return "  ";
    case 2:
      return "     # aligned";
    default:
      return "";
    }
  }

  // The value after "key:" or "- " (already written) of a collection in column `indent`.
  void value(std::string& out, int indent, int depth, bool in_map)
  {
    const size_t k = depth < 4 ? pick(7) : 5 + pick(2);
    const auto deeper = static_cast<int>(indent + 1 + pick(3));
    if (k == 0) {
      out += tail() + "\n" + maybe_comments(deeper);
      block_map(out, deeper, depth + 1);
    } else if (k == 1) {
      out += tail() + "\n" + maybe_comments(deeper);
      block_sequence(out, in_map && pick(2) == 0 ? indent : deeper, depth + 1);
    } else if (k == 2 && !in_map) {
      block_map(out, indent + 2, depth + 1, true);
    } else if (k == 3) {
      out += tail() + "\n";
    } else if (k == 4) {
      out += " " + flow(0) + tail() + "\n";
    } else {
      out += " " + scalar() + tail() + "\n";
    }
  }

  void block_map(std::string& out, int indent, int depth, bool compact = false)
  {
    const size_t n = 1 + pick(4);
    for (size_t i = 0; i < n; ++i) {
      if (i > 0 || !compact) {
        out += std::string(static_cast<size_t>(indent), ' ');
      }
      out += scalar() + ":";
      value(out, indent, depth, true);
      out += maybe_comments(indent);
    }
  }

  void block_sequence(std::string& out, int indent, int depth)
  {
    const size_t n = 1 + pick(4);
    for (size_t i = 0; i < n; ++i) {
      out += std::string(static_cast<size_t>(indent), ' ') + "-";
      value(out, indent, depth, false);
      out += maybe_comments(indent);
    }
  }

  std::mt19937 m_rng;
};

std::string mutate(const std::string& text, std::mt19937& rng)
{
  static const std::string alphabet = " \n\t'\"#:-[]{},?&*!|>%@`\\.~ab09";
  auto pick = [&rng](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  std::string out = text;
  const size_t edits = 1 + pick(3);
  for (size_t e = 0; e < edits; ++e) {
    const size_t at = pick(out.size() + 1);
    const char c = alphabet[pick(alphabet.size())];
    const size_t line = at < out.size() ? out.rfind('\n', at) + 1 : 0;
    switch (pick(5)) {
    case 3:
      // Indent or outdent a whole line.
      if (pick(2) == 0) {
        out.insert(line, pick(2) == 0 ? " " : "  ");
      } else if (out.compare(line, 1, " ") == 0) {
        out.erase(line, 1);
      }
      break;
    case 4:
      // Repeat a line.
      out.insert(line, out.substr(line, out.find('\n', line) - line + 1));
      break;
    case 0:
      out.insert(at, 1, c);
      break;
    case 1:
      if (at < out.size()) {
        out.erase(at, 1);
      }
      break;
    default:
      if (at < out.size()) {
        out[at] = c;
      }
    }
  }
  return out;
}

}  // namespace

TEST(YamlFast, TakesTheBenchProfileWithYamlCppsEvents)
{
  EXPECT_TRUE(check(bench_profile()));
  // The block style of the same profile too.
  std::string block = "version: 1\nnodes:\n- hosts: b1\n  interfaces:\n";
  for (int i = 0; i < 4; ++i) {
    block += "  - name: ib" + std::to_string(i) + "\n    mtu: 2044\n    ipv6: 'fd00::/64'\n";
  }
  EXPECT_TRUE(check(block));
}

TEST(YamlFast, AgreesWithYamlCppOnEveryProjectProfile)
{
  const auto texts = corpus();
  size_t taken = 0;
  for (const auto& text : texts) {
    taken += check(text) ? 1 : 0;
  }
  std::cout << "fast path took " << taken << " of " << texts.size() << " profiles\n";
  // Most profiles are plain; those with anchors, block scalars or deliberate errors go to
  // yaml-cpp.
  EXPECT_GT(texts.size(), 100U);
  EXPECT_GE(taken * 4, texts.size() * 3);
}

TEST(YamlFast, AgreesWithYamlCppOnGeneratedDocumentsAndMutations)
{
  Generator gen(20261204);
  std::mt19937 rng(15);
  size_t taken = 0;
  size_t mutants = 0;
  size_t mutants_taken = 0;
  const int documents = 3000;
  for (int i = 0; i < documents; ++i) {
    const std::string text = gen.document();
    taken += check(text) ? 1 : 0;
    for (int m = 0; m < 6; ++m) {
      ++mutants;
      mutants_taken += check(mutate(text, rng)) ? 1 : 0;
    }
  }
  std::cout << "fast path took " << taken << " of " << documents << " generated documents, "
            << mutants_taken << " of " << mutants << " mutations\n";
  // The generator also writes shapes outside the subset; most documents must still be taken,
  // and enough mutations for the comparison to mean something.
  EXPECT_GE(taken * 10, static_cast<size_t>(documents) * 4);
  EXPECT_GE(mutants_taken * 7, mutants);
}

TEST(YamlFast, MutatesTheProjectProfiles)
{
  std::mt19937 rng(8);
  const auto texts = corpus();
  size_t mutants_taken = 0;
  for (const auto& text : texts) {
    for (int m = 0; m < 12; ++m) {
      mutants_taken += check(mutate(text, rng)) ? 1 : 0;
    }
  }
  std::cout << "fast path took " << mutants_taken << " of " << texts.size() * 12 << " mutations\n";
  EXPECT_GT(mutants_taken, texts.size());
}

TEST(YamlFast, LeavesTextsBiggerThanAnyProfileToYamlCpp)
{
  // yaml-cpp streams the events to the guard, which stops at its node limit; the fast path
  // would hold them all first.
  std::string text = "nodes:\n";
  for (int i = 0; i < 250000; ++i) {
    text += "- a\n";
  }
  Recorder events;
  EXPECT_FALSE(fast_parse(text, events));
  EXPECT_TRUE(events.events.empty());
  EXPECT_TRUE(check(text.substr(0, 40000)));
}
