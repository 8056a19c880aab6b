#include "common/json_position.hpp"

#include <vector>

namespace ibsetup::json::detail {

namespace {

// The closing quote of the string that opens at quote (past escapes), or the text's end.
size_t string_end(std::string_view text, size_t quote)
{
  for (size_t i = quote + 1; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      return i;
    }
  }
  return text.size();
}

bool in_number(char c)
{
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

bool in_word(char c)
{
  return in_number(c) || (c >= 'a' && c <= 'z');
}

// Calls at(offset) at each token outside strings: a bracket, a comma or colon, a string's
// opening quote, a number's or a literal's first character. Strings are skipped whole, so
// brackets, colons and digits inside them do not count. The first offset for which at()
// returns true gives the line and column.
template <class At>
std::pair<size_t, size_t> scan(std::string_view text, At at)
{
  size_t line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = i + 1;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      continue;
    }
    if (at(i)) {
      return {line, i - line_start + 1};
    }
    if (c == '"') {
      i = string_end(text, i);  // JSON strings hold no raw newline
    } else if (in_word(c)) {
      while (i + 1 < text.size() && in_word(text[i + 1])) {
        ++i;
      }
    }
  }
  return {0, 0};
}

}  // namespace

std::pair<size_t, size_t> position_of_level(std::string_view text, size_t depth)
{
  size_t level = 0;
  return scan(text, [&](size_t i) {
    if (text[i] == '[' || text[i] == '{') {
      return ++level > depth;
    }
    if (text[i] == ']' || text[i] == '}') {
      level = level > 0 ? level - 1 : 0;
    }
    return false;
  });
}

std::pair<size_t, size_t> position_of_key(std::string_view text, size_t n)
{
  std::vector<bool> objects;  // the open containers: true for an object
  bool name_next = false;     // a member name may come next
  size_t seen = 0;
  return scan(text, [&](size_t i) {
    const char c = text[i];
    const bool was_name_next = name_next;
    name_next = false;
    if (c == '{' || c == '[') {
      objects.push_back(c == '{');
      name_next = c == '{';
    } else if (c == '}' || c == ']') {
      if (!objects.empty()) {
        objects.pop_back();
      }
    } else if (c == ',') {
      name_next = !objects.empty() && objects.back();
    } else if (c == '"' && was_name_next) {
      return ++seen == n;
    }
    return false;
  });
}

std::pair<size_t, size_t> position_of_number(std::string_view text, std::string_view token)
{
  return scan(text, [&](size_t i) {
    return !token.empty() && text.compare(i, token.size(), token) == 0 &&
           (i + token.size() == text.size() || !in_number(text[i + token.size()]));
  });
}

}  // namespace ibsetup::json::detail
