// A small JSON reader for ibsetup's own documents (inspect --json, check --json lines).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ibsetup {

class JsonValue {
public:
  enum class Type { null, boolean, number, string, array, object };

  JsonValue() = default;
  static JsonValue make_bool(bool b);
  static JsonValue make_number(double n);
  static JsonValue make_string(std::string s);
  static JsonValue make_array(std::vector<JsonValue> items);
  static JsonValue make_object(std::map<std::string, JsonValue> members);

  Type type() const { return m_type; }
  bool is_null() const { return m_type == Type::null; }

  // Typed access; each throws JsonError when the value has another type.
  bool as_bool() const;
  double as_number() const;
  int as_int() const;
  const std::string& as_string() const;
  const std::vector<JsonValue>& as_array() const;
  const std::map<std::string, JsonValue>& as_object() const;

  // The member, or a null value when absent (objects only).
  const JsonValue& operator[](const std::string& key) const;

  std::optional<std::string> opt_string() const;
  std::optional<int> opt_int() const;
  std::optional<double> opt_number() const;
  std::optional<bool> opt_bool() const;

private:
  Type m_type = Type::null;
  bool m_bool = false;
  double m_number = 0;
  std::string m_string;
  std::shared_ptr<std::vector<JsonValue>> m_array;
  std::shared_ptr<std::map<std::string, JsonValue>> m_object;
};

class JsonError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Parses one JSON document; throws JsonError naming the offset of the problem.
JsonValue parse_json(const std::string& text);

}  // namespace ibsetup
