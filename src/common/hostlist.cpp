#include <ibsetup/hostlist.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace ibsetup {

namespace {

bool is_host_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.';
}

struct Range {
  unsigned long long low = 0;
  unsigned long long high = 0;
  size_t width = 0;
};

// One piece of a host pattern: literal text, or the alternatives of one bracket.
struct Piece {
  std::string literal;
  std::vector<Range> ranges;
  bool is_bracket = false;
};

unsigned long long parse_number(std::string_view text, size_t offset)
{
  if (text.empty()) {
    throw HostlistError(offset, "empty number in range");
  }
  unsigned long long value = 0;
  const auto* end = text.data() + text.size();
  auto res = std::from_chars(text.data(), end, value);
  if (res.ec != std::errc() || res.ptr != end) {
    throw HostlistError(offset, "'" + std::string(text) + "' is not a number");
  }
  return value;
}

// Parses "001-128,130" (the inside of a bracket starting at offset) into ranges.
std::vector<Range> parse_ranges(std::string_view body, size_t offset)
{
  std::vector<Range> out;
  size_t pos = 0;
  while (pos <= body.size()) {
    size_t comma = body.find(',', pos);
    if (comma == std::string_view::npos) {
      comma = body.size();
    }
    const auto item = body.substr(pos, comma - pos);
    const size_t at = offset + pos;
    if (item.empty()) {
      throw HostlistError(at, "empty range inside []");
    }
    const auto dash = item.find('-');
    Range r;
    const auto low_text = item.substr(0, dash);
    r.low = parse_number(low_text, at);
    r.high =
        dash == std::string_view::npos ? r.low : parse_number(item.substr(dash + 1), at + dash + 1);
    r.width = low_text.size() > 1 && low_text[0] == '0' ? low_text.size() : 0;
    if (r.high < r.low) {
      throw HostlistError(at, "range '" + std::string(item) + "' goes backwards");
    }
    out.push_back(r);
    pos = comma + 1;
  }
  return out;
}

std::string format_number(unsigned long long n, size_t width)
{
  std::string s = std::to_string(n);
  if (s.size() < width) {
    s.insert(0, width - s.size(), '0');
  }
  return s;
}

void expand_pieces(const std::vector<Piece>& pieces, size_t index, std::string& prefix,
                   std::vector<std::string>& out)
{
  if (index == pieces.size()) {
    out.push_back(prefix);
    return;
  }
  const Piece& p = pieces[index];
  const size_t keep = prefix.size();
  if (!p.is_bracket) {
    prefix += p.literal;
    expand_pieces(pieces, index + 1, prefix, out);
  } else {
    for (const auto& r : p.ranges) {
      for (auto n = r.low;; ++n) {
        prefix += format_number(n, r.width);
        expand_pieces(pieces, index + 1, prefix, out);
        prefix.resize(keep);
        if (n == r.high) {
          break;
        }
      }
    }
  }
  prefix.resize(keep);
}

// Counts saturate: [0-18446744073709551615] or many brackets must not wrap around.
constexpr unsigned long long k_saturated = ~0ULL;

unsigned long long add_sat(unsigned long long a, unsigned long long b)
{
  unsigned long long r = 0;
  return __builtin_add_overflow(a, b, &r) ? k_saturated : r;
}

unsigned long long mul_sat(unsigned long long a, unsigned long long b)
{
  unsigned long long r = 0;
  return __builtin_mul_overflow(a, b, &r) ? k_saturated : r;
}

size_t digits(unsigned long long n)
{
  size_t d = 1;
  while (n >= 10) {
    n /= 10;
    ++d;
  }
  return d;
}

// The bytes of all numbers of r as written (each at least r.width wide), without writing them.
unsigned long long range_bytes(const Range& r)
{
  unsigned long long total = 0;
  unsigned long long start = r.low;
  for (;;) {
    const size_t d = digits(start);
    // The last number with d digits, or r.high if it comes first.
    unsigned long long last = r.high;
    if (d < 20) {
      unsigned long long top = 1;
      for (size_t i = 0; i < d; ++i) {
        top *= 10;
      }
      last = std::min(r.high, top - 1);
    }
    total = add_sat(total, mul_sat(last - start + 1, std::max(d, r.width)));
    if (last == r.high) {
      return total;
    }
    start = last + 1;
  }
}

// A comma-free-at-top-level pattern split into pieces; offset is its position in the
// expression.
std::vector<Piece> parse_pattern(std::string_view pattern, size_t offset)
{
  if (pattern.empty()) {
    throw HostlistError(offset, "empty host name");
  }
  std::vector<Piece> pieces;
  size_t pos = 0;
  while (pos < pattern.size()) {
    if (pattern[pos] == '[') {
      const auto close = pattern.find(']', pos);
      if (close == std::string_view::npos) {
        throw HostlistError(offset + pos, "'[' without a matching ']'");
      }
      const auto body = pattern.substr(pos + 1, close - pos - 1);
      if (const auto nested = body.find('['); nested != std::string_view::npos) {
        throw HostlistError(offset + pos + 1 + nested, "nested '[' inside []");
      }
      Piece piece;
      piece.is_bracket = true;
      piece.ranges = parse_ranges(body, offset + pos + 1);
      pieces.push_back(std::move(piece));
      pos = close + 1;
    } else if (pattern[pos] == ']') {
      throw HostlistError(offset + pos, "']' without a matching '['");
    } else {
      if (!is_host_char(pattern[pos])) {
        const auto byte = static_cast<unsigned char>(pattern[pos]);
        std::string shown = std::string("character '") + pattern[pos] + "'";
        if (byte >= 0x80 || byte < 0x20) {
          char hex[8];
          std::snprintf(hex, sizeof hex, "0x%02x", byte);
          shown = std::string("byte ") + hex;  // part of a UTF-8 character or a control byte
        }
        throw HostlistError(offset + pos, shown + " is not allowed in a host name");
      }
      if (pieces.empty() || pieces.back().is_bracket) {
        pieces.emplace_back();
      }
      pieces.back().literal += pattern[pos];
      ++pos;
    }
  }
  // Labels as RFC 1123 has them, where the digits of a range cannot help: no empty label (a
  // leading, doubled or trailing '.'), and no leading '-', which would make the name an option
  // in the argv of scontrol, ssh or clush. ('.' and '-' stand only outside brackets here.)
  if (!pattern.empty() && (pattern.front() == '-' || pattern.front() == '.')) {
    throw HostlistError(offset,
                        std::string("a host name cannot start with '") + pattern.front() + "'");
  }
  if (const auto dots = pattern.find(".."); dots != std::string_view::npos) {
    throw HostlistError(offset + dots, "a host name cannot hold an empty label ('..')");
  }
  if (!pattern.empty() && pattern.back() == '.') {
    throw HostlistError(offset + pattern.size() - 1, "a host name cannot end with '.'");
  }
  return pieces;
}

// The size of a pattern's expansion, and a refusal of names longer than a host name may be,
// both computed without expanding it.
HostlistSize measure_pattern(const std::vector<Piece>& pieces, size_t offset)
{
  size_t longest = 0;  // the longest name: its widest number from every bracket
  size_t label = 0;    // the longest label (between dots) so far
  size_t current = 0;
  unsigned long long hosts = 1;
  for (const auto& p : pieces) {
    if (!p.is_bracket) {
      longest += p.literal.size();
      for (char c : p.literal) {
        current = c == '.' ? 0 : current + 1;
        label = std::max(label, current);
      }
      continue;
    }
    size_t widest = 0;
    unsigned long long n = 0;
    for (const auto& r : p.ranges) {
      widest = std::max({widest, r.width, digits(r.high)});
      n = add_sat(n, add_sat(r.high - r.low, 1));
    }
    longest += widest;
    current += widest;
    label = std::max(label, current);
    hosts = mul_sat(hosts, n);
  }
  if (longest > k_max_hostname) {
    throw HostlistError(offset, "host names of up to " + std::to_string(longest) +
                                    " characters; a host name has at most " +
                                    std::to_string(k_max_hostname));
  }
  if (label > k_max_label) {
    throw HostlistError(offset, "host names with a part (between dots) of up to " +
                                    std::to_string(label) + " characters; a part has at most " +
                                    std::to_string(k_max_label));
  }
  // Every bracket's numbers appear in hosts / (its count) names; every literal in all of them.
  unsigned long long bytes = 0;
  for (const auto& p : pieces) {
    if (!p.is_bracket) {
      bytes = add_sat(bytes, mul_sat(p.literal.size(), hosts));
      continue;
    }
    unsigned long long n = 0;
    unsigned long long written = 0;
    for (const auto& r : p.ranges) {
      n = add_sat(n, add_sat(r.high - r.low, 1));
      written = add_sat(written, range_bytes(r));
    }
    if (n == 0) {
      continue;  // parse_ranges never gives an empty bracket
    }
    bytes = add_sat(bytes, hosts == k_saturated ? k_saturated : mul_sat(written, hosts / n));
  }
  return {hosts, bytes};
}

// Calls f(pattern, offset) for every top-level comma-separated pattern of expression.
template <typename F>
void for_each_pattern(std::string_view expression, F f)
{
  if (expression.empty()) {
    throw HostlistError(0, "empty hostlist");
  }
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i <= expression.size(); ++i) {
    const char c = i < expression.size() ? expression[i] : '\0';
    if (c == '[') {
      ++depth;
    } else if (c == ']') {
      --depth;
    } else if ((c == ',' && depth <= 0) || i == expression.size()) {
      f(expression.substr(start, i - start), start);
      start = i + 1;
      depth = 0;
    }
  }
}

}  // namespace

bool is_valid_hostname(std::string_view name)
{
  if (name.empty() || name.size() > k_max_hostname) {
    return false;
  }
  for (char c : name) {
    if (!is_host_char(c)) {
      return false;
    }
  }
  return name.front() != '-' && name.front() != '.' && name.back() != '.' &&
         name.find("..") == std::string_view::npos;
}

HostlistSize measure_hostlist(std::string_view expression)
{
  HostlistSize total;
  for_each_pattern(expression, [&](std::string_view pattern, size_t offset) {
    const auto size = measure_pattern(parse_pattern(pattern, offset), offset);
    total.hosts = add_sat(total.hosts, size.hosts);
    total.bytes = add_sat(total.bytes, size.bytes);
  });
  return total;
}

std::vector<std::string> expand_hostlist(std::string_view expression, size_t max_hosts)
{
  const auto size = measure_hostlist(expression);
  if (size.hosts > max_hosts) {
    throw HostlistError(
        0, "expands to " +
               (size.hosts == k_saturated ? std::string("more than 18446744073709551614")
                                          : std::to_string(size.hosts)) +
               " hosts, more than " + std::to_string(max_hosts));
  }
  std::vector<std::string> out;
  out.reserve(size.hosts);
  for_each_pattern(expression, [&](std::string_view pattern, size_t offset) {
    std::string prefix;
    expand_pieces(parse_pattern(pattern, offset), 0, prefix, out);
  });
  return out;
}

}  // namespace ibsetup
