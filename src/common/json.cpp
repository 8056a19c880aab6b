#include "common/json.hpp"

#include "common/strings.hpp"

#include <cmath>
#include <cstdio>
#include <functional>
#include <utility>

namespace ibsetup {

namespace {

// A byte JSON takes as it is and a terminal shows as itself.
bool plain(char c)
{
  return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

// s quoted onto the end of out. Runs of plain bytes go in one append: byte by byte, quoting was
// most of the time inspect --json spends rendering (issue 15).
void append_quoted(std::string& out, std::string_view s)
{
  // Text from the document itself (w.value(w.str())) would move as the document grows.
  const std::less<const char*> before;
  if (!s.empty() && !before(s.data(), out.data()) && before(s.data(), out.data() + out.size())) {
    append_quoted(out, std::string(s));
    return;
  }
  out += '"';
  for (size_t i = 0; i < s.size(); ++i) {
    size_t run = i;
    while (run < s.size() && plain(s[run])) {
      ++run;
    }
    out.append(s.data() + i, run - i);
    if (run == s.size()) {
      break;
    }
    i = run;
    const char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      // JSON is UTF-8: text from elsewhere (a host's output, sysfs) may not be. Each byte that
      // is not part of a valid sequence (a lone surrogate's three bytes included) becomes U+FFFD
      // rather than breaking the document.
      const size_t n = util::utf8_length(s, i);
      if (n == 0) {
        out += "\xEF\xBF\xBD";
      } else if (util::is_control(util::utf8_decode(s, i, n))) {
        // JSON allows C1 controls raw, but a terminal acts on them: escape them like C0.
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x",
                      static_cast<unsigned>(util::utf8_decode(s, i, n)));
        out += buf;
        i += n - 1;
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
    default: {  // the other C0 controls and DEL
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    }
    }
  }
  out += '"';
}

}  // namespace

std::string json_quote(std::string_view s)
{
  std::string out;
  out.reserve(s.size() + 2);
  append_quoted(out, s);
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

std::string JsonWriter::take_line()
{
  m_out += '\n';
  std::string out = std::move(m_out);
  m_out.clear();
  m_first.clear();
  m_after_key = false;
  return out;
}

JsonWriter& JsonWriter::key(std::string_view name)
{
  separate();
  append_quoted(m_out, name);
  m_out += ':';
  m_after_key = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s)
{
  separate();
  append_quoted(m_out, s);
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
