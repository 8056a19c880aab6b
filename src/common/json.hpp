// A small streaming JSON writer for the documented --json outputs.
#pragma once
#pragma GCC visibility push(default)  // for the CLI: src/libibsetup.map.in says why

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibsetup {

class JsonWriter {
public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);

  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b);
  JsonWriter& value(int64_t n);
  JsonWriter& value(int n) { return value(static_cast<int64_t>(n)); }
  JsonWriter& value(uint64_t n);
  JsonWriter& value(double d);
  JsonWriter& null();

  template <class T>
  JsonWriter& value(const std::optional<T>& v)
  {
    return v ? value(*v) : null();
  }

  // The document so far.
  const std::string& str() const { return m_out; }
  // The document and a newline, moved out: no copy of a document that can be tens of KiB (and
  // on a VM each fresh heap page costs a fault, issue 15). The writer is empty afterwards.
  std::string take_line();

private:
  void separate();

  std::string m_out;
  std::vector<bool> m_first;  // per open container: no element written yet
  bool m_after_key = false;
};

// s as a quoted JSON string.
std::string json_quote(std::string_view s);

}  // namespace ibsetup
#pragma GCC visibility pop
