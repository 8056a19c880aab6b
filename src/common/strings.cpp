#include "common/strings.hpp"

#include <algorithm>
#include <csignal>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <utility>

namespace ibsetup::util {

namespace {

// isspace() in the C locale, without a call into libc per byte: inspect trims every one of a
// node's thousands of attributes (issue 15).
bool is_space(char c)
{
  return c == ' ' || (c >= '\t' && c <= '\r');
}

}  // namespace

std::string_view trim(std::string_view s)
{
  while (!s.empty() && is_space(s.front())) {
    s.remove_prefix(1);
  }
  while (!s.empty() && is_space(s.back())) {
    s.remove_suffix(1);
  }
  return s;
}

std::string to_lower(std::string_view s)
{
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::optional<std::string> pci_address(std::string_view text)
{
  std::string s = (text.size() == 7 ? "0000:" : "") + to_lower(text);
  if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.' || s[11] < '0' || s[11] > '7') {
    return std::nullopt;
  }
  for (size_t i = 0; i < 10; ++i) {
    if (i != 4 && i != 7 && std::isxdigit(static_cast<unsigned char>(s[i])) == 0) {
      return std::nullopt;
    }
  }
  return s;
}

std::optional<uint64_t> parse_unsigned(std::string_view s)
{
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  if (s.empty() || s.front() == '+' || s.front() == '-') {
    return std::nullopt;
  }
  uint64_t value = 0;
  const auto* end = s.data() + s.size();
  auto res = std::from_chars(s.data(), end, value, base);
  if (res.ec != std::errc() || res.ptr != end) {
    return std::nullopt;
  }
  return value;
}

std::optional<double> parse_decimal(std::string_view s)
{
  // std::from_chars for double needs GCC 11; parse by hand to stay within GCC 8.
  if (s.empty()) {
    return std::nullopt;
  }
  const auto dot = s.find('.');
  const auto int_part = s.substr(0, dot);
  const auto frac_part = dot == std::string_view::npos ? std::string_view{} : s.substr(dot + 1);
  if (int_part.empty() && frac_part.empty()) {
    return std::nullopt;
  }
  double value = 0;
  for (char c : int_part) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    value = value * 10 + (c - '0');
  }
  if (dot != std::string_view::npos && frac_part.empty()) {
    return std::nullopt;
  }
  double scale = 0.1;
  for (char c : frac_part) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    value += (c - '0') * scale;
    scale /= 10;
  }
  if (!std::isfinite(value)) {
    return std::nullopt;  // 400 digits: "inf" would pass every minimum
  }
  return value;
}

std::string hex16(uint16_t value)
{
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%04x", value);
  return buf;
}

std::string format_number(double value)
{
  if (std::floor(value) == value && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<long long>(value));
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", value);
  return buf;
}

size_t edit_distance(std::string_view a, std::string_view b)
{
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates)
{
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  const std::string lower = to_lower(word);
  for (const auto& c : candidates) {
    const size_t d = edit_distance(lower, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string join(const std::vector<std::string>& items, std::string_view separator)
{
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) {
      out += separator;
    }
    out += items[i];
  }
  return out;
}

std::string join_alternatives(const std::vector<std::string>& items, const char* last)
{
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) {
      out += i + 1 == items.size() ? last : ", ";
    }
    out += items[i];
  }
  return out;
}

// Returns the length of the UTF-8 sequence starting at s[i], or 0 when it is invalid.
size_t utf8_length(std::string_view s, size_t i)
{
  const auto c = static_cast<unsigned char>(s[i]);
  size_t n = 0;
  unsigned min = 0;
  unsigned cp = 0;
  if (c < 0x80) {
    return 1;
  }
  if ((c & 0xe0U) == 0xc0U) {
    n = 2;
    min = 0x80;
    cp = c & 0x1fU;
  } else if ((c & 0xf0U) == 0xe0U) {
    n = 3;
    min = 0x800;
    cp = c & 0x0fU;
  } else if ((c & 0xf8U) == 0xf0U) {
    n = 4;
    min = 0x10000;
    cp = c & 0x07U;
  } else {
    return 0;
  }
  if (i + n > s.size()) {
    return 0;
  }
  for (size_t k = 1; k < n; ++k) {
    const auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xc0U) != 0x80U) {
      return 0;
    }
    cp = (cp << 6U) | (cc & 0x3fU);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
    return 0;
  }
  return n;
}

uint32_t utf8_decode(std::string_view s, size_t i, size_t n)
{
  const auto c = static_cast<unsigned char>(s[i]);
  if (n <= 1) {
    return c;
  }
  uint32_t cp = c & (0x7fU >> n);
  for (size_t k = 1; k < n; ++k) {
    cp = (cp << 6U) | (static_cast<unsigned char>(s[i + k]) & 0x3fU);
  }
  return cp;
}

bool is_control(uint32_t cp)
{
  return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

// Characters a terminal shows as nothing but which change what the text around them looks
// like: the Unicode line and paragraph separators (some terminals and viewers break the line
// there), the bidirectional controls (U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069),
// which can reorder a line so that it reads differently from its bytes, and the rest of
// Unicode's default ignorable code points (DerivedCoreProperties.txt), such as U+200B or a
// variation selector, with which "cn01" and "cn01<U+200B>" look the same.
static bool is_invisible_format(uint32_t cp)
{
  static constexpr std::pair<uint32_t, uint32_t> k_ranges[] = {
      {0x00ad, 0x00ad},   {0x034f, 0x034f}, {0x061c, 0x061c},   {0x115f, 0x1160},
      {0x17b4, 0x17b5},   {0x180b, 0x180f}, {0x200b, 0x200f},   {0x2028, 0x202e},
      {0x2060, 0x206f},   {0x3164, 0x3164}, {0xfe00, 0xfe0f},   {0xfeff, 0xfeff},
      {0xffa0, 0xffa0},   {0xfff0, 0xfff8}, {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a},
      {0xe0000, 0xe0fff},
  };
  return cp >= 0x00ad && std::any_of(std::begin(k_ranges), std::end(k_ranges), [cp](const auto& r) {
           return cp >= r.first && cp <= r.second;
         });
}

std::string escape_text(std::string_view s, bool keep_lines)
{
  std::string out;
  out.reserve(s.size());
  char buf[12];
  for (size_t i = 0; i < s.size();) {
    // Printable ASCII, nearly all of any output, is copied a run at a time.
    size_t run = i;
    while (run < s.size() && s[run] >= 0x20 && s[run] < 0x7f) {
      ++run;
    }
    if (run > i) {
      out.append(s.substr(i, run - i));
      i = run;
      continue;
    }
    const size_t n = utf8_length(s, i);
    if (n == 0) {
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(s[i]));
      out += buf;
      ++i;
      continue;
    }
    const uint32_t cp = utf8_decode(s, i, n);
    // Whole formatted output (keep_lines: the stdout guard) keeps the format characters: its
    // fields were escaped on their own, and formats such as OpenMetrics carry them as data.
    if ((!is_control(cp) && (keep_lines || !is_invisible_format(cp))) ||
        (keep_lines && (cp == '\n' || cp == '\t'))) {
      out.append(s.substr(i, n));
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp < 0x80) {
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(cp));
      out += buf;
    } else {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
      out += buf;
    }
    i += n;
  }
  return out;
}

std::string describe_char(std::string_view s, size_t i)
{
  char buf[16];
  const size_t n = utf8_length(s, i);
  if (n == 0) {
    std::snprintf(buf, sizeof buf, "byte 0x%02x", static_cast<unsigned char>(s[i]));
    return buf;
  }
  const uint32_t cp = utf8_decode(s, i, n);
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
  if (is_control(cp)) {
    return buf;
  }
  return std::string(buf) + " '" + std::string(s.substr(i, n)) + "'";
}

std::string excerpt(std::string_view s, size_t max)
{
  return excerpt(s, max, s.size());
}

std::string excerpt(std::string_view s, size_t max, size_t whole)
{
  if (s.size() <= max && whole <= s.size()) {
    return std::string(s);
  }
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  size_t cut = std::min(max, s.size());
  if (cut < s.size()) {
    while (cut > 0 && (byte(cut) & 0xC0) == 0x80) {
      --cut;
    }
  } else {
    // s ends where the reading stopped, not the text: its last sequence may lack bytes that
    // were not read. A lead byte whose sequence is not whole is left out with them.
    size_t lead = cut;
    while (lead > 0 && cut - lead < 3 && (byte(lead - 1) & 0xC0) == 0x80) {
      --lead;
    }
    if (lead > 0 && byte(lead - 1) >= 0xC0 && utf8_length(s, lead - 1) == 0) {
      cut = lead - 1;
    }
  }
  return std::string(s.substr(0, cut)) + " ... (" + std::to_string(std::max(whole, s.size())) +
         " bytes)";
}

const char* signal_name(int sig)
{
  switch (sig) {
  case SIGINT:
    return "SIGINT";
  case SIGTERM:
    return "SIGTERM";
  case SIGHUP:
    return "SIGHUP";
  default:
    return "a signal";
  }
}

}  // namespace ibsetup::util
