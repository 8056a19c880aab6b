#include <ibsetup/json_value.hpp>

#include <cmath>
#include <cstdlib>

namespace ibsetup {

JsonValue JsonValue::make_bool(bool b)
{
  JsonValue v;
  v.m_type = Type::boolean;
  v.m_bool = b;
  return v;
}

JsonValue JsonValue::make_number(double n)
{
  JsonValue v;
  v.m_type = Type::number;
  v.m_number = n;
  return v;
}

JsonValue JsonValue::make_string(std::string s)
{
  JsonValue v;
  v.m_type = Type::string;
  v.m_string = std::move(s);
  return v;
}

JsonValue JsonValue::make_array(std::vector<JsonValue> items)
{
  JsonValue v;
  v.m_type = Type::array;
  v.m_array = std::make_shared<std::vector<JsonValue>>(std::move(items));
  return v;
}

JsonValue JsonValue::make_object(std::map<std::string, JsonValue> members)
{
  JsonValue v;
  v.m_type = Type::object;
  v.m_object = std::make_shared<std::map<std::string, JsonValue>>(std::move(members));
  return v;
}

namespace {

const char* type_name(JsonValue::Type t)
{
  switch (t) {
  case JsonValue::Type::null:
    return "null";
  case JsonValue::Type::boolean:
    return "a boolean";
  case JsonValue::Type::number:
    return "a number";
  case JsonValue::Type::string:
    return "a string";
  case JsonValue::Type::array:
    return "an array";
  case JsonValue::Type::object:
  default:
    return "an object";
  }
}

void expect(const JsonValue& v, JsonValue::Type t)
{
  if (v.type() != t) {
    throw JsonError(std::string("expected ") + type_name(t) + ", got " + type_name(v.type()));
  }
}

class Parser {
public:
  explicit Parser(const std::string& text) : m_text(text) {}

  JsonValue document()
  {
    JsonValue v = value(0);
    skip_space();
    if (m_pos != m_text.size()) {
      fail("trailing characters after the JSON value");
    }
    return v;
  }

private:
  static constexpr int k_max_depth = 64;

  [[noreturn]] void fail(const std::string& what) const
  {
    throw JsonError("JSON offset " + std::to_string(m_pos) + ": " + what);
  }

  void skip_space()
  {
    while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\n' ||
                                     m_text[m_pos] == '\t' || m_text[m_pos] == '\r')) {
      ++m_pos;
    }
  }

  bool take(const char* word)
  {
    const std::string w(word);
    if (m_text.compare(m_pos, w.size(), w) == 0) {
      m_pos += w.size();
      return true;
    }
    return false;
  }

  JsonValue value(int depth)
  {
    if (depth > k_max_depth) {
      fail("nested too deeply");
    }
    skip_space();
    if (m_pos >= m_text.size()) {
      fail("unexpected end");
    }
    const char c = m_text[m_pos];
    if (c == '{') {
      return object(depth);
    }
    if (c == '[') {
      return array(depth);
    }
    if (c == '"') {
      return JsonValue::make_string(string());
    }
    if (take("true")) {
      return JsonValue::make_bool(true);
    }
    if (take("false")) {
      return JsonValue::make_bool(false);
    }
    if (take("null")) {
      return {};
    }
    return number();
  }

  JsonValue object(int depth)
  {
    ++m_pos;
    std::map<std::string, JsonValue> members;
    skip_space();
    if (m_pos < m_text.size() && m_text[m_pos] == '}') {
      ++m_pos;
      return JsonValue::make_object(std::move(members));
    }
    while (true) {
      skip_space();
      if (m_pos >= m_text.size() || m_text[m_pos] != '"') {
        fail("expected a member name");
      }
      std::string key = string();
      skip_space();
      if (m_pos >= m_text.size() || m_text[m_pos] != ':') {
        fail("expected ':'");
      }
      ++m_pos;
      members[key] = value(depth + 1);
      skip_space();
      if (m_pos < m_text.size() && m_text[m_pos] == ',') {
        ++m_pos;
        continue;
      }
      if (m_pos < m_text.size() && m_text[m_pos] == '}') {
        ++m_pos;
        return JsonValue::make_object(std::move(members));
      }
      fail("expected ',' or '}'");
    }
  }

  JsonValue array(int depth)
  {
    ++m_pos;
    std::vector<JsonValue> items;
    skip_space();
    if (m_pos < m_text.size() && m_text[m_pos] == ']') {
      ++m_pos;
      return JsonValue::make_array(std::move(items));
    }
    while (true) {
      items.push_back(value(depth + 1));
      skip_space();
      if (m_pos < m_text.size() && m_text[m_pos] == ',') {
        ++m_pos;
        continue;
      }
      if (m_pos < m_text.size() && m_text[m_pos] == ']') {
        ++m_pos;
        return JsonValue::make_array(std::move(items));
      }
      fail("expected ',' or ']'");
    }
  }

  std::string string()
  {
    ++m_pos;
    std::string out;
    while (m_pos < m_text.size() && m_text[m_pos] != '"') {
      char c = m_text[m_pos++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (m_pos >= m_text.size()) {
        break;
      }
      c = m_text[m_pos++];
      switch (c) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'u': {
        if (m_pos + 4 > m_text.size()) {
          fail("short \\u escape");
        }
        const unsigned cp =
            static_cast<unsigned>(std::strtoul(m_text.substr(m_pos, 4).c_str(), nullptr, 16));
        m_pos += 4;
        if (cp < 0x80) {
          out += static_cast<char>(cp);
        } else if (cp < 0x800) {
          out += static_cast<char>(0xc0 | (cp >> 6));
          out += static_cast<char>(0x80 | (cp & 0x3f));
        } else {
          out += static_cast<char>(0xe0 | (cp >> 12));
          out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
          out += static_cast<char>(0x80 | (cp & 0x3f));
        }
        break;
      }
      default:
        out += c;
      }
    }
    if (m_pos >= m_text.size()) {
      fail("unterminated string");
    }
    ++m_pos;
    return out;
  }

  JsonValue number()
  {
    const char* start = m_text.c_str() + m_pos;
    char* end = nullptr;
    const double d = std::strtod(start, &end);
    if (end == start) {
      fail("unexpected character");
    }
    m_pos += static_cast<size_t>(end - start);
    return JsonValue::make_number(d);
  }

  const std::string& m_text;
  size_t m_pos = 0;
};

const JsonValue k_null;

}  // namespace

bool JsonValue::as_bool() const
{
  expect(*this, Type::boolean);
  return m_bool;
}

double JsonValue::as_number() const
{
  expect(*this, Type::number);
  return m_number;
}

int JsonValue::as_int() const
{
  return static_cast<int>(std::lround(as_number()));
}

const std::string& JsonValue::as_string() const
{
  expect(*this, Type::string);
  return m_string;
}

const std::vector<JsonValue>& JsonValue::as_array() const
{
  expect(*this, Type::array);
  return *m_array;
}

const std::map<std::string, JsonValue>& JsonValue::as_object() const
{
  expect(*this, Type::object);
  return *m_object;
}

const JsonValue& JsonValue::operator[](const std::string& key) const
{
  const auto& members = as_object();
  const auto it = members.find(key);
  return it == members.end() ? k_null : it->second;
}

std::optional<std::string> JsonValue::opt_string() const
{
  return is_null() ? std::nullopt : std::optional<std::string>(as_string());
}

std::optional<int> JsonValue::opt_int() const
{
  return is_null() ? std::nullopt : std::optional<int>(as_int());
}

std::optional<double> JsonValue::opt_number() const
{
  return is_null() ? std::nullopt : std::optional<double>(as_number());
}

std::optional<bool> JsonValue::opt_bool() const
{
  return is_null() ? std::nullopt : std::optional<bool>(as_bool());
}

JsonValue parse_json(const std::string& text)
{
  return Parser(text).document();
}

}  // namespace ibsetup
