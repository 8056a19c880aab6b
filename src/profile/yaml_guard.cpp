#include "profile/yaml_guard.hpp"

#include "common/strings.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <sstream>
#include <vector>

namespace ibsetup::profile::detail {

namespace {

bool check_encoding(const std::string& text, Diagnostics& diags)
{
  int line = 1;
  int column = 1;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
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

// Scans line by line, estimating the nesting depth and noticing alias use.
class DepthScanner {
public:
  DepthScanner(int max_depth, Diagnostics& diags) : m_max(max_depth), m_diags(diags) {}

  bool scan(const std::string& text)
  {
    int line_no = 0;
    size_t start = 0;
    while (start <= text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) {
        end = text.size();
      }
      ++line_no;
      if (!scan_line(text.substr(start, end - start), line_no)) {
        return false;
      }
      start = end + 1;
    }
    return true;
  }

private:
  bool too_deep(int line, int column, int depth)
  {
    if (depth <= m_max) {
      return false;
    }
    m_diags.error({line, column}, "",
                  "document nested more than " + std::to_string(m_max) +
                      " levels deep; a profile needs far fewer");
    return true;
  }

  static bool token_start(const std::string& line, size_t i)
  {
    if (i == 0) {
      return true;
    }
    const char p = line[i - 1];
    return p == ' ' || p == '\t' || p == '[' || p == '{' || p == ',';
  }

  bool scan_line(const std::string& raw, int line_no)
  {
    std::string line = raw;
    if (!line.empty() && line.back() == '\r') {
      line.pop_back();
    }
    size_t indent = 0;
    while (indent < line.size() && line[indent] == ' ') {
      ++indent;
    }
    const bool blank = indent == line.size() || line[indent] == '#';
    if (m_block_scalar >= 0 && m_quote == 0) {
      if (blank || static_cast<int>(indent) > m_block_scalar) {
        return true;
      }
      m_block_scalar = -1;
    }
    if (blank && m_quote == 0) {
      return true;
    }
    size_t i = indent;
    if (m_quote == 0 && m_flow == 0) {
      while (!m_indents.empty() && m_indents.back() > indent) {
        m_indents.pop_back();
      }
      if (m_indents.empty() || m_indents.back() < indent) {
        m_indents.push_back(indent);
      }
    }
    int compact = 0;
    if (m_quote == 0 && m_flow == 0) {
      while (i + 1 < line.size() && (line[i] == '-' || line[i] == '?') && line[i + 1] == ' ') {
        ++compact;
        i += 2;
        while (i < line.size() && line[i] == ' ') {
          ++i;
        }
      }
    }
    int flow_max = m_flow;
    char last = 0;
    // A quote only opens a quoted scalar where a value starts; inside a plain scalar
    // ("x: it 's") it is an ordinary character and must not hide the rest of the file.
    bool value_start = true;
    bool plain = false;
    for (; i < line.size(); ++i) {
      const char c = line[i];
      if (m_quote != 0) {
        if (m_quote == '"' && c == '\\') {
          ++i;
        } else if (c == m_quote) {
          m_quote = 0;
        }
        continue;
      }
      if (c == ' ' || c == '\t') {
        continue;
      }
      if (c == '#' && token_start(line, i)) {
        break;
      }
      const bool next_blank = i + 1 == line.size() || line[i + 1] == ' ' || line[i + 1] == '\t';
      if (plain) {
        if ((c == ':' && next_blank) || (m_flow > 0 && c == ',')) {
          plain = false;
          value_start = true;
        } else if (m_flow > 0 && (c == ']' || c == '}')) {
          plain = false;
          --m_flow;
        }
      } else if ((c == '"' || c == '\'') && value_start) {
        m_quote = c;
        value_start = false;
      } else if (c == '[' || c == '{') {
        ++m_flow;
        flow_max = std::max(flow_max, m_flow);
        value_start = true;
      } else if ((c == ']' || c == '}') && m_flow > 0) {
        --m_flow;
        value_start = false;
      } else if (c == ',' || c == ':' || ((c == '-' || c == '?') && next_blank)) {
        value_start = true;
      } else if ((c == '&' || c == '!') && value_start) {
        while (i + 1 < line.size() && line[i + 1] != ' ' && line[i + 1] != '\t') {
          ++i;  // an anchor or a tag: the value follows it
        }
      } else {
        plain = true;
        value_start = false;
      }
      last = c;
    }
    if (m_quote == 0 && m_flow == 0 && (last == '|' || last == '>' || ends_block_header(line))) {
      m_block_scalar = static_cast<int>(indent);
    }
    const int depth = static_cast<int>(m_indents.size()) + compact + flow_max + 1;
    return !too_deep(line_no, static_cast<int>(indent) + 1, depth);
  }

  // "key: |-", "key: >2" and similar block scalar headers.
  static bool ends_block_header(const std::string& line)
  {
    size_t end = line.find(" #");
    std::string s = line.substr(0, end);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
      s.pop_back();
    }
    while (!s.empty() &&
           (s.back() == '-' || s.back() == '+' || (s.back() >= '0' && s.back() <= '9'))) {
      s.pop_back();
    }
    return s.size() >= 2 && (s.back() == '|' || s.back() == '>') &&
           (s[s.size() - 2] == ' ' || s[s.size() - 2] == ':');
  }

  int m_max;
  Diagnostics& m_diags;
  std::vector<size_t> m_indents;
  int m_flow = 0;
  char m_quote = 0;
  int m_block_scalar = -1;
};

struct ExpansionExceeded {
  YAML::Mark mark;
};

// Computes how many nodes the document has once every alias is expanded.
class ExpansionCounter : public YAML::EventHandler {
public:
  explicit ExpansionCounter(size_t limit) : m_limit(limit) {}

  void OnDocumentStart(const YAML::Mark& /*mark*/) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor, 1); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override
  {
    const auto it = m_sizes.find(anchor);
    leaf(mark, 0, it == m_sizes.end() ? 1 : it->second);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                const std::string& /*value*/) override
  {
    leaf(mark, anchor, 1);
  }
  void OnSequenceStart(const YAML::Mark& /*mark*/, const std::string& /*tag*/,
                       YAML::anchor_t anchor, YAML::EmitterStyle::value /*style*/) override
  {
    m_stack.push_back({anchor, 1});
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& /*mark*/, const std::string& /*tag*/, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value /*style*/) override
  {
    m_stack.push_back({anchor, 1});
  }
  void OnMapEnd() override { close(); }

private:
  struct Frame {
    YAML::anchor_t anchor;
    size_t size;
  };

  void add(const YAML::Mark& mark, size_t n)
  {
    m_total = n > m_limit ? m_limit + 1 : m_total + n;
    if (m_total > m_limit) {
      throw ExpansionExceeded{mark};
    }
    if (!m_stack.empty()) {
      m_stack.back().size = std::min(m_limit + 1, m_stack.back().size + n);
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
      m_stack.back().size = std::min(m_limit + 1, m_stack.back().size + f.size);
    }
  }

  size_t m_limit;
  size_t m_total = 0;
  std::vector<Frame> m_stack;
  std::map<YAML::anchor_t, size_t> m_sizes;
};

}  // namespace

bool guard_text(const std::string& text, const Limits& limits, Diagnostics& diags)
{
  if (!check_encoding(text, diags)) {
    return false;
  }
  DepthScanner scanner(limits.max_depth, diags);
  if (!scanner.scan(text)) {
    return false;
  }
  // Any '*' may be an alias: count what aliases expand to (a second, event-only parse).
  if (text.find('*') == std::string::npos) {
    return true;
  }
  // Aliases are rare in profiles; only then is the text parsed twice.
  std::istringstream in(text);
  YAML::Parser parser(in);
  ExpansionCounter counter(limits.max_alias_expansion);
  try {
    while (parser.HandleNextDocument(counter)) {
    }
  } catch (const ExpansionExceeded& e) {
    diags.error({e.mark.line + 1, e.mark.column + 1}, "",
                "aliases expand the document to more than " +
                    std::to_string(limits.max_alias_expansion) +
                    " nodes; refusing to process it (use fewer nested aliases)");
    return false;
  } catch (const YAML::Exception&) {
    // Syntax errors are reported by the real parse that follows.
  }
  return true;
}

}  // namespace ibsetup::profile::detail
