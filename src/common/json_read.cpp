#include "common/json_read.hpp"

#include "common/strings.hpp"

#include "common/json.hpp"
#include "common/json_position.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <set>

namespace ibsetup::json {

namespace {

std::string with_position(size_t line, size_t column, const std::string& detail)
{
  if (line == 0) {
    return detail;
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + detail;
}

// Thrown from the parser's callback to stop it; turned into a ParseError by parse().
struct TooDeep {};
struct DuplicateKey {
  std::string message;
  size_t key;  // which member name of the text it is, from 1
};

// One open array or object while parsing, to name the path of a duplicate key.
struct Frame {
  bool object = false;
  std::set<std::string> keys;
  std::string key;   // the member being read (objects)
  size_t index = 0;  // the element being read (arrays)
};

// A member name in a path: as it is when it is a plain word, else quoted and shortened.
std::string path_key(const std::string& key)
{
  const bool plain =
      !key.empty() && key.size() <= 40 && std::all_of(key.begin(), key.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-';
      });
  return plain ? key : json_quote(util::excerpt(key, 40));
}

std::string path_of(const std::vector<Frame>& frames)
{
  std::string path;
  for (size_t i = 0; i + 1 < frames.size(); ++i) {
    const auto& f = frames[i];
    if (f.object) {
      path += (path.empty() ? "" : ".") + path_key(f.key);
    } else {
      path += "[" + std::to_string(f.index) + "]";
    }
  }
  return path;
}

// nlohmann's message without its "[json.exception.parse_error.101] " tag, and its
// "parse error at line L, column C: " split off into line and column when present.
ParseError from_library(const std::string& what)
{
  std::string text = what;
  if (!text.empty() && text.front() == '[') {
    const auto end = text.find("] ");
    text = end == std::string::npos ? text : text.substr(end + 2);
  }
  size_t line = 0;
  size_t column = 0;
  const std::string at = "parse error at line ";
  if (text.compare(0, at.size(), at) == 0) {
    const auto comma = text.find(", column ", at.size());
    const auto colon = text.find(": ", at.size());
    if (comma != std::string::npos && colon != std::string::npos && comma < colon) {
      line = util::parse_unsigned(text.substr(at.size(), comma - at.size())).value_or(0);
      column = util::parse_unsigned(text.substr(comma + 9, colon - comma - 9)).value_or(0);
      text = text.substr(colon + 2);
    }
  }
  return ParseError(line, column, util::excerpt(text, k_max_quote));
}

const char* type_name(const Json& v)
{
  switch (v.type()) {
  case Json::value_t::null:
    return "null";
  case Json::value_t::boolean:
    return "a boolean";
  case Json::value_t::number_integer:
  case Json::value_t::number_unsigned:
    return "an integer";
  case Json::value_t::number_float:
    return "a fractional number";
  case Json::value_t::string:
    return "a string";
  case Json::value_t::array:
    return "an array";
  case Json::value_t::object:
    return "an object";
  default:
    return "another kind of value";
  }
}

// Not a namespace-scope Json: that is built by a static initializer at every load of the
// library.
const Json& null_value()
{
  static const Json null;
  return null;
}

}  // namespace

ParseError::ParseError(size_t line, size_t column, const std::string& detail)
    : InputError(with_position(line, column, detail)),
      m_line(line),
      m_column(column),
      m_detail(detail)
{
}

Json parse(std::string_view text)
{
  std::vector<Frame> frames;
  size_t keys = 0;
  // An element of the enclosing array is complete: the next one has the next index.
  const auto next_element = [&frames] {
    if (!frames.empty() && !frames.back().object) {
      ++frames.back().index;
    }
  };
  const Json::parser_callback_t callback = [&](int /*depth*/, Json::parse_event_t event,
                                               Json& parsed) {
    switch (event) {
    case Json::parse_event_t::object_start:
    case Json::parse_event_t::array_start:
      if (frames.size() >= k_max_depth) {
        throw TooDeep{};
      }
      frames.emplace_back();
      frames.back().object = event == Json::parse_event_t::object_start;
      break;
    case Json::parse_event_t::key: {
      auto& frame = frames.back();
      frame.key = parsed.get<std::string>();
      ++keys;
      if (!frame.keys.insert(frame.key).second) {
        const auto where = path_of(frames);
        throw DuplicateKey{
            "duplicate key " + path_key(frame.key) + (where.empty() ? "" : " in " + where), keys};
      }
      break;
    }
    case Json::parse_event_t::object_end:
    case Json::parse_event_t::array_end:
      frames.pop_back();
      next_element();
      break;
    case Json::parse_event_t::value:
      next_element();
      break;
    }
    return true;
  };
  // nlohmann's lexer takes a NUL byte for the end of its input and would accept a valid
  // document followed by a NUL and anything at all (`{"ok":true}\0{"ok":false}`). JSON text
  // has no NUL outside strings, and one inside a string is a control character, refused too.
  if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
    const auto before = text.substr(0, nul);
    const auto newline = before.rfind('\n');
    throw ParseError(1 + static_cast<size_t>(std::count(before.begin(), before.end(), '\n')),
                     nul - (newline == std::string_view::npos ? 0 : newline + 1) + 1,
                     "a NUL byte; JSON text has none");
  }
  try {
    return Json::parse(text.data(), text.data() + text.size(), callback);
  } catch (const TooDeep&) {
    const auto [line, column] = detail::position_of_level(text, k_max_depth);
    throw ParseError(line, column,
                     "arrays and objects nested deeper than " + std::to_string(k_max_depth));
  } catch (const DuplicateKey& e) {
    const auto [line, column] = detail::position_of_key(text, e.key);
    throw ParseError(line, column, e.message);
  } catch (const Json::exception& e) {
    auto error = from_library(e.what());
    // "number overflow parsing '1e999'" (a float beyond a double), which nlohmann's
    // out_of_range error gives without a position.
    const std::string& detail = error.detail();
    const std::string overflow = "number overflow parsing '";
    if (error.line() == 0 && detail.compare(0, overflow.size(), overflow) == 0 &&
        detail.back() == '\'') {
      const auto token =
          std::string_view(detail).substr(overflow.size(), detail.size() - overflow.size() - 1);
      const auto [line, column] = detail::position_of_number(text, token);
      throw ParseError(line, column, detail);
    }
    throw error;
  }
}

View::View(const Json& value, std::string path) : m_value(&value), m_path(std::move(path)) {}

void View::wrong_type(const char* expected) const
{
  throw InputError((m_path.empty() ? "" : m_path + ": ") + "expected " + expected + ", got " +
                   type_name(*m_value));
}

View View::operator[](const char* key) const
{
  if (!m_value->is_object()) {
    wrong_type("an object");
  }
  const auto it = m_value->find(key);
  const std::string path = m_path.empty() ? key : m_path + "." + key;
  return View(it == m_value->end() ? null_value() : *it, path);
}

std::vector<View> View::items() const
{
  if (!m_value->is_array()) {
    wrong_type("an array");
  }
  std::vector<View> out;
  out.reserve(m_value->size());
  for (size_t i = 0; i < m_value->size(); ++i) {
    out.emplace_back((*m_value)[i], m_path + "[" + std::to_string(i) + "]");
  }
  return out;
}

bool View::as_bool() const
{
  if (!m_value->is_boolean()) {
    wrong_type("true or false");
  }
  return m_value->get<bool>();
}

int View::as_int() const
{
  if (m_value->is_number_unsigned()) {
    const auto n = m_value->get<uint64_t>();
    if (n <= static_cast<uint64_t>(INT_MAX)) {
      return static_cast<int>(n);
    }
  } else if (m_value->is_number_integer()) {
    const auto n = m_value->get<int64_t>();
    if (n >= INT_MIN && n <= INT_MAX) {
      return static_cast<int>(n);
    }
  } else if (m_value->is_number_float()) {
    // The parser keeps a whole number beyond 64 bits as a double: out of range, like any other
    // too large. 1.0 is written as a fraction: named with its value (as the parser prints it
    // back, 1e2 as 100.0), not only its kind.
    const double d = m_value->get<double>();
    if (std::floor(d) != d || std::fabs(d) < 9.2e18) {
      throw InputError((m_path.empty() ? "" : m_path + ": ") + "expected an integer, got " +
                       m_value->dump());
    }
  } else {
    wrong_type("an integer");
  }
  throw InputError((m_path.empty() ? "" : m_path + ": ") + m_value->dump() + " is out of range");
}

double View::as_number() const
{
  if (!m_value->is_number()) {
    wrong_type("a number");
  }
  return m_value->get<double>();
}

const std::string& View::as_string() const
{
  if (!m_value->is_string()) {
    wrong_type("a string");
  }
  return m_value->get_ref<const std::string&>();
}

std::optional<bool> View::opt_bool() const
{
  return is_null() ? std::nullopt : std::optional<bool>(as_bool());
}

std::optional<int> View::opt_int() const
{
  return is_null() ? std::nullopt : std::optional<int>(as_int());
}

std::optional<double> View::opt_number() const
{
  return is_null() ? std::nullopt : std::optional<double>(as_number());
}

std::optional<std::string> View::opt_string() const
{
  return is_null() ? std::nullopt : std::optional<std::string>(as_string());
}

}  // namespace ibsetup::json
