#include <ibsetup/hostlist.hpp>

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

// Expands one comma-free-at-top-level pattern starting at offset in the expression.
void expand_pattern(std::string_view pattern, size_t offset, size_t max_hosts,
                    std::vector<std::string>& out)
{
  if (pattern.empty()) {
    throw HostlistError(offset, "empty host name");
  }
  std::vector<Piece> pieces;
  unsigned long long count = 1;
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
      unsigned long long n = 0;
      for (const auto& r : piece.ranges) {
        // Compared before adding 1: [0-18446744073709551615] must not wrap to 0.
        if (r.high - r.low >= max_hosts || n + (r.high - r.low) + 1 > max_hosts) {
          n = max_hosts + 1ULL;
          break;
        }
        n += r.high - r.low + 1;
      }
      if (n > max_hosts / count) {
        count = max_hosts + 1ULL;
      } else {
        count *= n;
      }
      if (count > max_hosts || out.size() + count > max_hosts) {
        throw HostlistError(offset + pos,
                            "expands to more than " + std::to_string(max_hosts) + " hosts");
      }
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
  std::string prefix;
  expand_pieces(pieces, 0, prefix, out);
}

}  // namespace

bool is_valid_hostname(std::string_view name)
{
  if (name.empty() || name.size() > 253) {
    return false;
  }
  for (char c : name) {
    if (!is_host_char(c)) {
      return false;
    }
  }
  return true;
}

std::vector<std::string> expand_hostlist(std::string_view expression, size_t max_hosts)
{
  std::vector<std::string> out;
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
      expand_pattern(expression.substr(start, i - start), start, max_hosts, out);
      start = i + 1;
      depth = 0;
    }
  }
  return out;
}

}  // namespace ibsetup
