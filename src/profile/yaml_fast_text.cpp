#include "profile/yaml_fast_text.hpp"

#include <algorithm>
#include <cstring>

namespace ibsetup::profile::detail::fast {

namespace {

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

}  // namespace

void FastText::new_line()
{
  ++m_line;
  m_line_start = m_pos;
}

void FastText::skip_to_content()
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

bool FastText::finish_line()
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

void FastText::skip_spaces()
{
  while (peek() == ' ') {
    ++m_pos;
  }
}

bool FastText::block_entry_here() const
{
  return peek() == '-' && (peek(1) == ' ' || peek(1) == '\n' || peek(1) == '\0');
}

bool FastText::scalar(Event& out, bool flow)
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

}  // namespace ibsetup::profile::detail::fast
