// The text side of the fast path (yaml_fast.cpp): a cursor over the text that knows lines,
// comments and one-line scalars as yaml-cpp's scanner reads them, marks included.
#pragma once

#include <yaml-cpp/mark.h>

#include <string>

namespace ibsetup::profile::detail::fast {

// One call the fast path makes on a YAML::EventHandler; anchors are always 0.
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

class FastText {
public:
  explicit FastText(const std::string& text) : m_text(text) {}

protected:
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

  const std::string& text() const { return m_text; }
  size_t pos() const { return m_pos; }
  void advance(size_t n = 1) { m_pos += n; }
  // Back to `pos`, which must be on the current line.
  void rewind(size_t pos) { m_pos = pos; }
  // The rightmost column of a comment skipped by the last skip_to_content, or -1.
  int comment_column() const { return m_comment_column; }

  // From the start of a line: skips empty, blank and comment lines and the next line's
  // indentation, leaving the cursor on its first character (or at the end). Throws Outside
  // on a document marker.
  void skip_to_content();
  // After a node: spaces and a comment up to the line's end, then on to the next content.
  // Returns whether a comment ended the line; throws Outside on anything else there.
  bool finish_line();
  void skip_spaces();
  bool block_entry_here() const;
  // A one-line scalar at the cursor, or false (cursor unmoved) when none starts here; `flow`
  // for flow context. Throws Outside on a quoted scalar the subset leaves out.
  bool scalar(Event& out, bool flow);

private:
  void new_line();

  const std::string& m_text;
  size_t m_pos = 0;
  int m_line = 0;
  size_t m_line_start = 0;
  int m_comment_column = -1;
};

}  // namespace ibsetup::profile::detail::fast
