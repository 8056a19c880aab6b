#include "profile/yaml_fast.hpp"

#include <yaml-cpp/anchor.h>
#include <yaml-cpp/emitterstyle.h>
#include <yaml-cpp/mark.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace ibsetup::profile::detail {

namespace {

struct Event {
  enum class Kind : unsigned char {
    document_start,
    document_end,
    null,
    scalar,
    sequence_start,
    sequence_end,
    map_start,
    map_end
  };
  Kind kind;
  bool flow;    // a collection's style
  bool quoted;  // a scalar's tag: "!" quoted, "?" plain
  YAML::Mark mark;
  std::string value;
};

// Thrown inside the parser where the text leaves the subset; the text then goes to yaml-cpp.
struct Outside {};

// Deeper nesting goes to yaml-cpp, so that the guard's limit and message stay its own concern
// and this parser's recursion stays shallow.
constexpr int k_max_depth = 100;
// yaml-cpp refuses a simple key longer than 1024 characters; stay clear of the exact edge.
constexpr size_t k_max_key = 1000;

bool is_alnum(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Characters a plain scalar may hold anywhere but its start: none ends a scalar, and in
// block context ("hosts: cn[01-04]") brackets and commas do not either.
bool is_plain(char c, bool flow)
{
  return is_alnum(c) || (c != '\0' && std::strchr("-._/+~=$^()@%", c) != nullptr) ||
         (!flow && c != '\0' && std::strchr("[]{},", c) != nullptr);
}

bool is_plain_start(char c, char next)
{
  if (c == '-') {
    return is_alnum(next) || next == '.';
  }
  return is_alnum(c) || (c != '\0' && std::strchr("._/+~", c) != nullptr);
}

class FastParser {
public:
  explicit FastParser(const std::string& text) : m_text(text) {}

  // The events of the whole text; throws Outside.
  std::vector<Event> parse()
  {
    for (const char c : m_text) {
      // Tabs, carriage returns and anything not ASCII have rules of their own in yaml-cpp.
      if (c != '\n' && (c < ' ' || c > '~')) {
        throw Outside{};
      }
    }
    m_events.reserve(m_text.size() / 8);
    skip_to_content();
    if (at_end()) {
      throw Outside{};
    }
    emit(Event::Kind::document_start, mark());
    const int col = column();
    if (block_entry_here()) {
      block_sequence(col);
    } else if (peek() == '[' || peek() == '{') {
      flow_node();
      finish_line();
    } else {
      block_map(col);
    }
    if (!at_end()) {
      throw Outside{};
    }
    emit(Event::Kind::document_end, YAML::Mark());
    return std::move(m_events);
  }

private:
  char peek(size_t k = 0) const { return m_pos + k < m_text.size() ? m_text[m_pos + k] : '\0'; }
  bool at_end() const { return m_pos >= m_text.size(); }
  int column() const { return static_cast<int>(m_pos - m_line_start); }

  YAML::Mark mark() const
  {
    YAML::Mark m;
    m.pos = static_cast<int>(m_pos);
    m.line = m_line;
    // yaml-cpp ends the stream as if on a new line.
    m.column = at_end() ? 0 : column();
    return m;
  }

  Event& emit(Event::Kind kind, const YAML::Mark& mark)
  {
    m_events.push_back(Event{kind, false, false, mark, {}});
    return m_events.back();
  }

  void enter()
  {
    if (++m_depth > k_max_depth) {
      throw Outside{};
    }
  }

  void new_line()
  {
    ++m_line;
    m_line_start = m_pos;
  }

  // From the start of a line: skips empty, blank and comment lines and the next line's
  // indentation, leaving the cursor on its first character (or at the end). Records the
  // rightmost comment skipped, which could continue a plain scalar.
  void skip_to_content()
  {
    m_comment_column = -1;
    while (true) {
      size_t p = m_pos;
      while (p < m_text.size() && m_text[p] == ' ') {
        ++p;
      }
      if (p < m_text.size() && m_text[p] == '#') {
        m_comment_column = std::max(m_comment_column, static_cast<int>(p - m_line_start));
        while (p < m_text.size() && m_text[p] != '\n') {
          ++p;
        }
      }
      m_pos = p;
      if (at_end()) {
        return;
      }
      if (m_text[p] != '\n') {
        break;
      }
      ++m_pos;
      new_line();
    }
    if (m_pos == m_line_start &&
        (m_text.compare(m_pos, 3, "---") == 0 || m_text.compare(m_pos, 3, "...") == 0)) {
      throw Outside{};
    }
  }

  // After a node: spaces and a comment up to the line's end, then on to the next content.
  // Returns whether a comment ended the line.
  bool finish_line()
  {
    const size_t start = m_pos;
    while (peek() == ' ') {
      ++m_pos;
    }
    bool comment = false;
    if (peek() == '#') {
      if (m_pos == start) {
        throw Outside{};
      }
      comment = true;
      while (!at_end() && peek() != '\n') {
        ++m_pos;
      }
    }
    if (!at_end()) {
      if (peek() != '\n') {
        throw Outside{};
      }
      ++m_pos;
      new_line();
    }
    skip_to_content();
    return comment;
  }

  void skip_spaces()
  {
    while (peek() == ' ') {
      ++m_pos;
    }
  }

  bool block_entry_here() const
  {
    return peek() == '-' && (peek(1) == ' ' || peek(1) == '\n' || peek(1) == '\0');
  }

  // A one-line scalar at the cursor, or false (cursor unmoved) when none starts here.
  bool scalar(Event& out, bool flow)
  {
    const YAML::Mark start = mark();
    const char c = peek();
    if (c == '\'' || c == '"') {
      ++m_pos;
      std::string value;
      while (true) {
        const char d = peek();
        if (d == '\0' || d == '\n' || (d == '\\' && c == '"')) {
          throw Outside{};
        }
        ++m_pos;
        if (d == c) {
          if (c == '\'' && peek() == '\'') {
            ++m_pos;
          } else {
            break;
          }
        }
        value += d;
      }
      out = Event{Event::Kind::scalar, false, true, start, std::move(value)};
      return true;
    }
    if (!is_plain_start(c, peek(1))) {
      return false;
    }
    size_t end = ++m_pos;
    while (true) {
      const char d = peek();
      if (is_plain(d, flow) || (d == ':' && (is_plain(peek(1), flow) || peek(1) == ':'))) {
        end = ++m_pos;
        continue;
      }
      if (d != ' ') {
        break;
      }
      size_t p = m_pos;
      while (p < m_text.size() && m_text[p] == ' ') {
        ++p;
      }
      if (p >= m_text.size() || !is_plain(m_text[p], flow)) {
        break;
      }
      m_pos = p;
    }
    m_pos = end;
    std::string value = m_text.substr(static_cast<size_t>(start.pos), end - start.pos);
    const bool null = value == "~" || value == "null" || value == "Null" || value == "NULL";
    out = Event{null ? Event::Kind::null : Event::Kind::scalar, false, false, start,
                null ? std::string() : std::move(value)};
    return true;
  }

  void flow_node()
  {
    const char c = peek();
    if (c != '[' && c != '{') {
      Event e;
      if (!scalar(e, true)) {
        throw Outside{};
      }
      m_events.push_back(std::move(e));
      return;
    }
    enter();
    const bool map = c == '{';
    const char close = map ? '}' : ']';
    emit(map ? Event::Kind::map_start : Event::Kind::sequence_start, mark()).flow = true;
    ++m_pos;
    skip_spaces();
    if (peek() != close) {
      while (true) {
        if (map) {
          flow_key();
        }
        flow_node();
        skip_spaces();
        if (peek() != ',') {
          break;
        }
        ++m_pos;
        skip_spaces();
      }
      if (peek() != close) {
        throw Outside{};
      }
    }
    ++m_pos;
    emit(map ? Event::Kind::map_end : Event::Kind::sequence_end, YAML::Mark());
    --m_depth;
  }

  // A flow map's "key: " before its value.
  void flow_key()
  {
    Event key;
    const size_t start = m_pos;
    if (!scalar(key, true) || peek() != ':' || peek(1) != ' ' || m_pos - start > k_max_key) {
      throw Outside{};
    }
    m_events.push_back(std::move(key));
    m_pos += 2;
    skip_spaces();
  }

  // A block map whose first key is at the cursor, in column `col`.
  void block_map(int col)
  {
    enter();
    emit(Event::Kind::map_start, mark());
    while (true) {
      Event key;
      const size_t start = m_pos;
      if (!scalar(key, false) || peek() != ':' || m_pos - start > k_max_key) {
        throw Outside{};
      }
      m_events.push_back(std::move(key));
      ++m_pos;
      block_value(col, true);
      if (at_end() || column() < col) {
        break;
      }
      if (column() > col || block_entry_here()) {
        throw Outside{};
      }
    }
    emit(Event::Kind::map_end, YAML::Mark());
    --m_depth;
  }

  // A block sequence whose first '-' is at the cursor, in column `col`.
  void block_sequence(int col)
  {
    enter();
    emit(Event::Kind::sequence_start, mark());
    while (true) {
      ++m_pos;
      block_value(col, false);
      if (at_end() || column() < col || (column() == col && !block_entry_here())) {
        break;
      }
      if (column() > col) {
        throw Outside{};
      }
    }
    emit(Event::Kind::sequence_end, YAML::Mark());
    --m_depth;
  }

  // The value after a block map's ':' or a sequence's '-' (the cursor just past it), where the
  // collection sits in column `col`. Leaves the cursor on the next line's content.
  void block_value(int col, bool in_map)
  {
    if (peek() != ' ' && peek() != '\n' && !at_end()) {
      throw Outside{};
    }
    const size_t after = m_pos;
    skip_spaces();
    if (at_end() || peek() == '\n' || peek() == '#') {
      m_pos = after;
      finish_line();
      const int next = column();
      if (!at_end() && next > col) {
        nested(next);
      } else if (!at_end() && next == col && in_map && block_entry_here()) {
        block_sequence(next);  // a sequence indented no further than its key
      } else {
        // yaml-cpp marks an empty value where the next token starts: at the end, that is the
        // collection's end, marked where the text ends if the last line's indentation closes
        // it, or else in column 0 of that line when the stream's end closes it.
        YAML::Mark m = mark();
        if (at_end() && (col > column() || (col == column() && !in_map))) {
          m.column = column();
        }
        emit(Event::Kind::null, m);
      }
      return;
    }
    if (block_entry_here()) {
      throw Outside{};
    }
    if (peek() == '[' || peek() == '{') {
      flow_node();
      finish_line();
      return;
    }
    const size_t start = m_pos;
    Event e;
    if (!scalar(e, false)) {
      throw Outside{};
    }
    if (peek() == ':') {
      if (in_map) {
        throw Outside{};
      }
      // "- key: value": a map inside the entry, in the key's column.
      m_pos = start;
      block_map(column());
      return;
    }
    const bool plain = !e.quoted;
    m_events.push_back(std::move(e));
    const bool comment = finish_line();
    // yaml-cpp continues a plain scalar on lines indented deeper than the collection.
    if (plain && !comment && !at_end() && (column() > col || m_comment_column > col)) {
      throw Outside{};
    }
  }

  // A collection that starts a line of its own, deeper than its parent.
  void nested(int col)
  {
    if (block_entry_here()) {
      block_sequence(col);
    } else {
      block_map(col);
    }
  }

  const std::string& m_text;
  size_t m_pos = 0;
  int m_line = 0;
  size_t m_line_start = 0;
  int m_depth = 0;
  int m_comment_column = -1;
  std::vector<Event> m_events;
};

void replay(const std::vector<Event>& events, YAML::EventHandler& handler)
{
  const std::string plain_tag = "?";
  const std::string quoted_tag = "!";
  for (const Event& e : events) {
    const auto style = e.flow ? YAML::EmitterStyle::Flow : YAML::EmitterStyle::Block;
    switch (e.kind) {
    case Event::Kind::document_start:
      handler.OnDocumentStart(e.mark);
      break;
    case Event::Kind::document_end:
      handler.OnDocumentEnd();
      break;
    case Event::Kind::null:
      handler.OnNull(e.mark, YAML::NullAnchor);
      break;
    case Event::Kind::scalar:
      handler.OnScalar(e.mark, e.quoted ? quoted_tag : plain_tag, YAML::NullAnchor, e.value);
      break;
    case Event::Kind::sequence_start:
      handler.OnSequenceStart(e.mark, plain_tag, YAML::NullAnchor, style);
      break;
    case Event::Kind::sequence_end:
      handler.OnSequenceEnd();
      break;
    case Event::Kind::map_start:
      handler.OnMapStart(e.mark, plain_tag, YAML::NullAnchor, style);
      break;
    case Event::Kind::map_end:
      handler.OnMapEnd();
      break;
    }
  }
}

}  // namespace

bool fast_parse(const std::string& text, YAML::EventHandler& handler)
{
  std::vector<Event> events;
  try {
    events = FastParser(text).parse();
  } catch (const Outside&) {
    return false;
  }
  replay(events, handler);
  return true;
}

}  // namespace ibsetup::profile::detail
