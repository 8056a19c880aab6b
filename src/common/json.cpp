#include <ibsetup/json.hpp>

#include "common/strings.hpp"

#include <cmath>
#include <cstdio>

namespace ibsetup {

namespace {

// The length of the well-formed UTF-8 sequence at s[i] (no overlong forms, surrogates or code
// points past U+10FFFF), or 0.
size_t utf8_length(std::string_view s, size_t i)
{
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  size_t n = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (b >= 0xC2 && b <= 0xDF) {
    n = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3;
    lo = b == 0xE0 ? 0xA0 : 0x80;
    hi = b == 0xED ? 0x9F : 0xBF;
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4;
    lo = b == 0xF0 ? 0x90 : 0x80;
    hi = b == 0xF4 ? 0x8F : 0xBF;
  } else {
    return 0;
  }
  if (i + n > s.size() || byte(i + 1) < lo || byte(i + 1) > hi) {
    return 0;
  }
  for (size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) {
      return 0;
    }
  }
  return n;
}

}  // namespace

std::string json_quote(std::string_view s)
{
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      // JSON is UTF-8: text from elsewhere (a host's output, sysfs) may not be. Each byte that
      // is not part of a valid sequence becomes U+FFFD rather than breaking the document.
      const size_t n = utf8_length(s, i);
      if (n == 0) {
        out += "\xEF\xBF\xBD";
      } else {
        out.append(s.substr(i, n));
        i += n - 1;
      }
      continue;
    }
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
        out += buf;
      } else {
        out += c;
      }
    }
  }
  out += '"';
  return out;
}

void JsonWriter::separate()
{
  if (m_after_key) {
    m_after_key = false;
    return;
  }
  if (!m_first.empty()) {
    if (!m_first.back()) {
      m_out += ',';
    }
    m_first.back() = false;
  }
}

JsonWriter& JsonWriter::begin_object()
{
  separate();
  m_out += '{';
  m_first.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_object()
{
  m_out += '}';
  m_first.pop_back();
  return *this;
}

JsonWriter& JsonWriter::begin_array()
{
  separate();
  m_out += '[';
  m_first.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_array()
{
  m_out += ']';
  m_first.pop_back();
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name)
{
  separate();
  m_out += json_quote(name);
  m_out += ':';
  m_after_key = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s)
{
  separate();
  m_out += json_quote(s);
  return *this;
}

JsonWriter& JsonWriter::value(bool b)
{
  separate();
  m_out += b ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::value(int64_t n)
{
  separate();
  m_out += std::to_string(n);
  return *this;
}

JsonWriter& JsonWriter::value(uint64_t n)
{
  separate();
  m_out += std::to_string(n);
  return *this;
}

JsonWriter& JsonWriter::value(double d)
{
  separate();
  if (!std::isfinite(d)) {
    m_out += "null";
  } else if (std::floor(d) == d && std::fabs(d) < 1e15) {
    m_out += std::to_string(static_cast<long long>(d)) + ".0";
  } else {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", d);
    m_out += buf;
  }
  return *this;
}

JsonWriter& JsonWriter::null()
{
  separate();
  m_out += "null";
  return *this;
}

}  // namespace ibsetup
