// Reading JSON input (saved inventories, `check --json` results) through nlohmann/json:
// strictly, with bounded nesting, and with messages that name where the problem is. Internal
// to the library: no public header includes nlohmann, so its users need not have it.
#pragma once

#include <ibsetup/error.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibsetup::json {

using Json = nlohmann::json;

// Arrays and objects nest at most this deep; the parser stops at the first level deeper.
constexpr size_t k_max_depth = 64;

// Bytes of input quoted in one message at most.
constexpr size_t k_max_quote = 200;

// Input that is not one valid JSON document. line and column (from 1) say where; both are 0
// when the problem has no one place (a number too large; a duplicate key, which the message
// names by its path instead).
class ParseError : public InputError {
public:
  ParseError(size_t line, size_t column, const std::string& detail);
  size_t line() const { return m_line; }
  size_t column() const { return m_column; }
  const std::string& detail() const { return m_detail; }

private:
  size_t m_line;
  size_t m_column;
  std::string m_detail;
};

// Parses one JSON document as RFC 8259 has it: no NaN or Infinity, no leading zeros or '+',
// no lone UTF-16 surrogates, no comments, no trailing commas, UTF-8 only, no number beyond
// a double. Also refuses nesting deeper than k_max_depth and an object that names one key
// twice (parsers disagree on which one counts). Throws ParseError.
Json parse(std::string_view text);

// A value inside a parsed document with its path ("devices[0].ports[1].lid") for messages.
// Each accessor throws InputError "PATH: expected T, got U" when the value has another type.
// A member that is absent reads as null, like an explicit null.
class View {
public:
  View(const Json& value, std::string path);

  const std::string& path() const { return m_path; }
  bool is_null() const { return m_value->is_null(); }

  // The member key of an object (null when absent).
  View operator[](const char* key) const;
  // The elements of an array.
  std::vector<View> items() const;

  bool as_bool() const;
  int as_int() const;  // an integer in int's range
  double as_number() const;
  const std::string& as_string() const;

  std::optional<bool> opt_bool() const;
  std::optional<int> opt_int() const;
  std::optional<double> opt_number() const;
  std::optional<std::string> opt_string() const;

private:
  [[noreturn]] void wrong_type(const char* expected) const;

  const Json* m_value;
  std::string m_path;
};

}  // namespace ibsetup::json
