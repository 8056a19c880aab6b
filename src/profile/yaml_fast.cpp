#include "profile/yaml_fast.hpp"

#include "profile/yaml_fast_text.hpp"

#include <yaml-cpp/anchor.h>
#include <yaml-cpp/emitterstyle.h>

#include <algorithm>
#include <vector>

namespace ibsetup::profile::detail {

namespace {

using fast::Event;
using fast::FastText;
using fast::Outside;

// Deeper nesting goes to yaml-cpp, so that the guard's limit and message stay its own concern
// and this parser's recursion stays shallow.
constexpr int k_max_depth = 100;
// yaml-cpp refuses a simple key longer than 1024 characters; stay clear of the exact edge.
constexpr size_t k_max_key = 1000;
// The events are kept until the whole text is read, where yaml-cpp streams them to the guard,
// which stops a document of too many nodes at its limit: a text bigger than any profile goes
// to yaml-cpp, so that the parse's memory stays bounded as before.
constexpr size_t k_max_events = 200000;

class FastParser : private FastText {
public:
  explicit FastParser(const std::string& text) : FastText(text) {}

  // The events of the whole text; throws Outside.
  std::vector<Event> parse()
  {
    for (const char c : text()) {
      // Tabs, carriage returns and anything not ASCII have rules of their own in yaml-cpp.
      if (c != '\n' && (c < ' ' || c > '~')) {
        throw Outside{};
      }
    }
    m_events.reserve(std::min(k_max_events, text().size() / 8));
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
  Event& emit(Event::Kind kind, const YAML::Mark& mark)
  {
    return add(Event{kind, false, false, mark, {}});
  }

  Event& add(Event&& event)
  {
    if (m_events.size() >= k_max_events) {
      throw Outside{};
    }
    m_events.push_back(std::move(event));
    return m_events.back();
  }

  void enter()
  {
    if (++m_depth > k_max_depth) {
      throw Outside{};
    }
  }

  void flow_node()
  {
    const char c = peek();
    if (c != '[' && c != '{') {
      Event e;
      if (!scalar(e, true)) {
        throw Outside{};
      }
      add(std::move(e));
      return;
    }
    enter();
    const bool map = c == '{';
    const char close = map ? '}' : ']';
    emit(map ? Event::Kind::map_start : Event::Kind::sequence_start, mark()).flow = true;
    advance();
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
        advance();
        skip_spaces();
      }
      if (peek() != close) {
        throw Outside{};
      }
    }
    advance();
    emit(map ? Event::Kind::map_end : Event::Kind::sequence_end, YAML::Mark());
    --m_depth;
  }

  // A flow map's "key: " before its value.
  void flow_key()
  {
    Event key;
    const size_t start = pos();
    if (!scalar(key, true) || peek() != ':' || peek(1) != ' ' || pos() - start > k_max_key) {
      throw Outside{};
    }
    add(std::move(key));
    advance(2);
    skip_spaces();
  }

  // A block map whose first key is at the cursor, in column `col`.
  void block_map(int col)
  {
    enter();
    emit(Event::Kind::map_start, mark());
    while (true) {
      Event key;
      const size_t start = pos();
      if (!scalar(key, false) || peek() != ':' || pos() - start > k_max_key) {
        throw Outside{};
      }
      add(std::move(key));
      advance();
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
      advance();
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
    const size_t after = pos();
    skip_spaces();
    if (at_end() || peek() == '\n' || peek() == '#') {
      rewind(after);
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
    const size_t start = pos();
    Event e;
    if (!scalar(e, false)) {
      throw Outside{};
    }
    if (peek() == ':') {
      if (in_map) {
        throw Outside{};
      }
      // "- key: value": a map inside the entry, in the key's column.
      rewind(start);
      block_map(column());
      return;
    }
    const bool plain = !e.quoted;
    add(std::move(e));
    const bool comment = finish_line();
    // yaml-cpp continues a plain scalar on lines indented deeper than the collection.
    if (plain && !comment && !at_end() && (column() > col || comment_column() > col)) {
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

  int m_depth = 0;
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
