#include "profile/yaml_guard.hpp"

#include "profile/yaml_cpp.hpp"
#include "profile/yaml_fast.hpp"

#include "common/strings.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/mark.h>

#include <algorithm>
#include <map>
#include <vector>

namespace ibsetup::profile::detail {

namespace {

bool check_encoding(const std::string& text, Diagnostics& diags)
{
  int line = 1;
  int column = 1;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    // Printable ASCII and line breaks, nearly all of any profile, need no decoding.
    if ((c >= 0x20 && c < 0x7f) || c == '\n') {
      line = c == '\n' ? line + 1 : line;
      column = c == '\n' ? 1 : column + 1;
      ++i;
      continue;
    }
    const size_t n = util::utf8_length(text, i);
    if (n == 0) {
      char hex[8];
      snprintf(hex, sizeof hex, "0x%02x", c);
      diags.error({line, column}, "",
                  std::string("invalid UTF-8 (byte ") + hex + "); profiles must be UTF-8 text");
      return false;
    }
    const uint32_t cp = util::utf8_decode(text, i, n);
    if (util::is_control(cp) && c != '\t' && c != '\n' && c != '\r') {
      char hex[8];
      snprintf(hex, sizeof hex, cp < 0x80 ? "0x%02x" : "U+%04X", static_cast<unsigned>(cp));
      diags.error({line, column}, "",
                  std::string("control character ") + hex + " is not allowed in a profile");
      return false;
    }
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    i += n;
  }
  return true;
}

// yaml-cpp 0.6.2 loops forever, allocating, on a ':' that starts a token inside a flow
// collection and is followed by ']' ("[a:]", "[:]"): it scans an empty plain scalar there
// again and again (upstream issues 499 and 899, fixed in 0.7). A light pass finds that shape
// and runaway flow nesting before yaml-cpp sees the text: its scanner reads a whole unclosed
// nest of brackets before it hands out the first token, so a long one costs memory before
// the exact depth count in the event pass below can stop it.
class FlowScanner {
public:
  FlowScanner(int max_depth, Diagnostics& diags) : m_max(max_depth), m_diags(diags) {}

  bool scan(const std::string& text)
  {
    for (size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      if (c == '\n') {
        ++m_line;
        m_line_start = i + 1;
        m_comment = false;
        m_tag = 0;
        m_token_start = true;
        continue;
      }
      if (m_comment) {
        continue;
      }
      if (m_quote != 0) {
        if (m_quote == '"' && c == '\\') {
          ++i;  // an escaped character, possibly the quote
        } else if (c == m_quote) {
          if (m_quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
            ++i;  // '' inside a single-quoted scalar
          } else {
            m_quote = 0;
            m_token_start = false;
          }
        }
        continue;
      }
      if (!step(text, i, c)) {
        return false;
      }
    }
    return true;
  }

private:
  bool step(const std::string& text, size_t i, char c)
  {
    const bool blank = c == ' ' || c == '\t' || c == '\r';
    if (m_tag == '<') {
      // A verbatim tag, "!<...>", may hold any bracket; a token starts after it.
      m_tag = c == '>' ? 0 : m_tag;
      m_token_start = m_tag == 0;
      return true;
    }
    if (m_tag != 0) {
      // A tag ends where its characters do: "!t[" is a tag and a flow sequence.
      if (!blank && c != '[' && c != '{' && c != ']' && c != '}' && c != ',') {
        return true;
      }
      m_tag = 0;
      m_token_start = true;
    }
    if (c == '!' && m_token_start) {
      m_tag = i + 1 < text.size() && text[i + 1] == '<' ? '<' : '!';
      m_token_start = false;
      return true;
    }
    if (blank) {
      m_token_start = true;
      return true;
    }
    if (c == '#' && m_token_start) {
      m_comment = true;
      return true;
    }
    if ((c == '"' || c == '\'') && m_token_start) {
      m_quote = c;
      return true;
    }
    if (m_flow == 0) {
      // Block context: brackets start a collection only where a token starts ("a:[" is a
      // plain scalar).
      if ((c == '[' || c == '{') && m_token_start) {
        return open(i);
      }
      m_token_start = c == ',';
      return true;
    }
    if (c == '[' || c == '{') {
      return open(i);
    }
    if (c == ']' || c == '}') {
      --m_flow;
    } else if (c == ':' && i + 1 < text.size() && text[i + 1] == ']') {
      m_diags.error(mark(i), "",
                    "':' directly before ']' inside a flow collection; yaml-cpp 0.6.2 "
                    "(Rocky 8) loops on it without end: put a space after ':' or quote "
                    "the value");
      return false;
    }
    m_token_start = c == ',' || c == ':' || c == ']' || c == '}';
    return true;
  }

  bool open(size_t i)
  {
    m_token_start = true;
    if (++m_flow <= m_max) {
      return true;
    }
    m_diags.error(mark(i), "",
                  "document nested more than " + std::to_string(m_max) +
                      " levels deep; a profile needs far fewer");
    return false;
  }

  Mark mark(size_t i) const { return {m_line, static_cast<int>(i - m_line_start) + 1}; }

  int m_max;
  Diagnostics& m_diags;
  int m_flow = 0;
  int m_line = 1;
  size_t m_line_start = 0;
  char m_quote = 0;
  char m_tag = 0;
  bool m_comment = false;
  bool m_token_start = true;
};

// Thrown out of yaml-cpp's parser by the event pass to stop it at the first problem.
struct Refusal {
  YAML::Mark mark;
  std::string message;
};

// The event pass: yaml-cpp's own parser, which builds no nodes, reports every collection,
// whatever its style, tags and anchors. Its parser recurses once per open collection and
// reports each before it recurses, so refusing at depth max_depth + 1 bounds the recursion
// exactly. It also counts the documents, notices a document that consumed nothing (yaml-cpp
// issue 1040: LoadAll then adds empty documents without end), computes how many nodes the
// document has once every alias is expanded, and builds the reader's tree: each check runs
// before the node is added, so a refused input never grows the tree past the limits.
class GuardHandler : public YAML::EventHandler {
public:
  GuardHandler(const std::string& text, const Limits& limits, YamlBuilder& tree)
      : m_text(text), m_limits(limits), m_tree(tree)
  {
  }

  size_t documents() const { return m_documents; }

  void OnDocumentStart(const YAML::Mark& mark) override
  {
    if (m_documents > 0 && mark.pos == m_last_document) {
      stray_token(mark);
    }
    m_last_document = mark.pos;
    ++m_documents;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override
  {
    leaf(mark, anchor, 1);
    m_tree.null(at(mark), anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override
  {
    const auto it = m_sizes.find(anchor);
    m_aliases = true;
    leaf(mark, 0, it == m_sizes.end() ? 1 : it->second);
    if (!m_tree.alias(anchor)) {
      throw Refusal{mark, "an alias to an anchor that is not defined before it"};
    }
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override
  {
    leaf(mark, anchor, 1);
    m_tree.scalar(at(mark), anchor, tag, value);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value /*style*/) override
  {
    open(mark, anchor);
    m_tree.open(YamlKind::sequence, at(mark), anchor, tag);
  }
  void OnSequenceEnd() override
  {
    close();
    m_tree.close();
  }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value /*style*/) override
  {
    open(mark, anchor);
    m_tree.open(YamlKind::map, at(mark), anchor, tag);
  }
  void OnMapEnd() override
  {
    close();
    m_tree.close();
  }

private:
  struct Frame {
    YAML::anchor_t anchor;
    size_t size;
  };

  static Mark at(const YAML::Mark& mark) { return {mark.line + 1, mark.column + 1}; }

  void stray_token(const YAML::Mark& mark) const
  {
    const auto pos = static_cast<size_t>(mark.pos);
    const char c = pos < m_text.size() ? m_text[pos] : ' ';
    std::string what = c > ' ' && c < 0x7f ? std::string("'") + c + "'" : "this";
    throw Refusal{mark, "unexpected " + what + " where a YAML value should start" +
                            (c == ',' ? " (',' separates entries only inside [ ] or { })" : "")};
  }

  void open(const YAML::Mark& mark, YAML::anchor_t anchor)
  {
    if (m_stack.size() >= static_cast<size_t>(m_limits.max_depth)) {
      throw Refusal{mark, "document nested more than " + std::to_string(m_limits.max_depth) +
                              " levels deep; a profile needs far fewer"};
    }
    m_stack.push_back({anchor, 1});
  }

  void add(const YAML::Mark& mark, size_t n)
  {
    const size_t limit = m_limits.max_alias_expansion;
    m_total = n > limit ? limit + 1 : m_total + n;
    if (m_total > limit) {
      // Without an alias the same limit is met by sheer size (15 million list entries).
      throw Refusal{mark, m_aliases ? "aliases expand the document to more than " +
                                          std::to_string(limit) +
                                          " nodes; refusing to process it (use fewer nested "
                                          "aliases)"
                                    : "the document holds more than " + std::to_string(limit) +
                                          " nodes; a cluster profile needs far fewer"};
    }
    if (!m_stack.empty()) {
      m_stack.back().size = std::min(limit + 1, m_stack.back().size + n);
    }
  }

  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor, size_t n)
  {
    if (anchor != 0) {
      m_sizes[anchor] = n;
    }
    add(mark, n);
  }

  void close()
  {
    const Frame f = m_stack.back();
    m_stack.pop_back();
    if (f.anchor != 0) {
      m_sizes[f.anchor] = f.size;
    }
    if (!m_stack.empty()) {
      m_stack.back().size =
          std::min(m_limits.max_alias_expansion + 1, m_stack.back().size + f.size);
    }
  }

  const std::string& m_text;
  const Limits& m_limits;
  size_t m_documents = 0;
  int m_last_document = -1;
  size_t m_total = 0;
  bool m_aliases = false;  // an alias was seen: the node count is an expansion
  std::vector<Frame> m_stack;
  std::map<YAML::anchor_t, size_t> m_sizes;
  YamlBuilder& m_tree;
};

}  // namespace

bool guard_text(const std::string& text, const Limits& limits, Diagnostics& diags,
                YamlDocument* tree)
{
  if (!check_encoding(text, diags)) {
    return false;
  }
  FlowScanner flow(limits.max_depth, diags);
  if (!flow.scan(text)) {
    return false;
  }
  YamlDocument scratch;
  YamlBuilder builder(tree != nullptr ? *tree : scratch);
  GuardHandler handler(text, limits, builder);
  try {
    // Plain profiles take the fast path; its events are yaml-cpp's, so every check below and
    // every message is the same either way.
    YamlSyntaxError error;
    if (!fast_parse(text, handler) && !yaml_cpp_events(text, handler, error)) {
      diags.error({error.line + 1, error.column + 1}, "", "YAML syntax error: " + error.message);
      return false;
    }
  } catch (const Refusal& e) {
    diags.error({e.mark.line + 1, e.mark.column + 1}, "", e.message);
    return false;
  }
  if (handler.documents() != 1) {
    diags.error({1, 1}, "",
                "the file holds " + std::to_string(handler.documents()) +
                    " YAML documents; a profile is exactly one");
    return false;
  }
  return true;
}

}  // namespace ibsetup::profile::detail
