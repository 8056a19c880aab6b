#include "check/metrics_writer.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace ibsetup::check::metrics {

void Exposition::gauge(const std::string& name, const std::string& help)
{
  m_families[name].help = help;
}

void Exposition::gauges(std::initializer_list<GaugeFamily> families)
{
  for (const auto& f : families) {
    gauge(f.name, f.help);
  }
}

void Exposition::set(const std::string& name, const Labels& labels, double value)
{
  const auto family = m_families.find(name);
  if (family == m_families.end()) {
    throw std::logic_error("metrics: family " + name + " not declared");
  }
  // Keyed by the values as printed: two values that escape alike (control bytes, invalid
  // UTF-8) are one series in the file, and a second series would make node_exporter refuse it.
  Labels printed;
  printed.reserve(labels.size());
  for (const auto& l : labels) {
    printed.emplace_back(l.first, escape_label_value(l.second));
  }
  // NaN (not measured) never replaces a number.
  const auto inserted = family->second.samples.emplace(std::move(printed), value);
  double& kept = inserted.first->second;
  if (!inserted.second && (std::isnan(kept) || value > kept)) {
    kept = value;
  }
}

std::string Exposition::str() const
{
  std::ostringstream out;
  for (const auto& f : m_families) {
    out << "# HELP " << f.first << ' ' << f.second.help << '\n';
    out << "# TYPE " << f.first << " gauge\n";
    for (const auto& s : f.second.samples) {
      out << f.first;
      if (!s.first.empty()) {
        out << '{';
        const char* sep = "";
        for (const auto& l : s.first) {
          out << sep << l.first << "=\"" << l.second << '"';
          sep = ",";
        }
        out << '}';
      }
      out << ' ' << format_value(s.second) << '\n';
    }
  }
  return out.str();
}

namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 (overlong forms, surrogates and code points
// past U+10FFFF are invalid, as Go's utf8.ValidString, which the parsers use, says).
size_t utf8_length(const std::string& s, size_t i)
{
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  size_t n = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xbf;
  if (c < 0x80) {
    return 1;
  } else if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    lo = c == 0xe0 ? 0xa0 : 0x80;
    hi = c == 0xed ? 0x9f : 0xbf;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    lo = c == 0xf0 ? 0x90 : 0x80;
    hi = c == 0xf4 ? 0x8f : 0xbf;
  } else {
    return 0;
  }
  if (i + n > s.size() || byte(i + 1) < lo || byte(i + 1) > hi) {
    return 0;
  }
  for (size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) {
      return 0;
    }
  }
  return n;
}

}  // namespace

std::string escape_label_value(const std::string& value)
{
  std::string out;
  out.reserve(value.size());
  for (size_t i = 0; i < value.size();) {
    const char c = value[i];
    const size_t n = utf8_length(value, i);
    if (n == 0) {
      out += "\xef\xbf\xbd";
      ++i;
      continue;
    }
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else if ((static_cast<unsigned char>(c) < 0x20) || c == '\x7f' ||
               (n == 2 && c == '\xc2' && static_cast<unsigned char>(value[i + 1]) <= 0x9f)) {
      // Raw control bytes, C1 (U+0080-U+009F) included, would reach terminals via cat/curl,
      // and the stdout guard's \xNN and \uNNNN forms are escapes promtool rejects.
      out += "\xef\xbf\xbd";
    } else {
      out.append(value, i, n);
    }
    i += n;
  }
  return out;
}

std::string format_value(double value)
{
  if (std::isnan(value)) {
    return "NaN";
  }
  if (std::isinf(value)) {
    return value > 0 ? "+Inf" : "-Inf";
  }
  char buf[40];
  if (std::fabs(value) < 1e15 && value == std::floor(value)) {
    std::snprintf(buf, sizeof buf, "%.0f", value);
    return buf;
  }
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, value);
    if (std::strtod(buf, nullptr) == value) {
      break;
    }
  }
  return buf;
}

}  // namespace ibsetup::check::metrics
