#include "inventory/parse.hpp"

#include "common/strings.hpp"

#include <cctype>
#include <cstdio>

namespace ibsetup::inventory {

namespace {

const char* const k_port_states[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
const char* const k_phys_states[] = {"",
                                     "Sleep",
                                     "Polling",
                                     "Disabled",
                                     "PortConfigurationTraining",
                                     "LinkUp",
                                     "LinkErrorRecovery",
                                     "Phy Test"};
static_assert(sizeof k_port_states / sizeof *k_port_states ==
              static_cast<size_t>(PortState::other));
static_assert(sizeof k_phys_states / sizeof *k_phys_states ==
              static_cast<size_t>(PhysState::other) + 1);

std::optional<CodeName> parse_code_name(const std::string& text, const char* const* names,
                                        int count)
{
  const auto colon = text.find(':');
  if (colon == std::string::npos) {
    return std::nullopt;
  }
  const auto code = util::parse_unsigned(util::trim(text.substr(0, colon)));
  const std::string name(util::trim(text.substr(colon + 1)));
  if (!code || *code > 255 || name.empty()) {
    return std::nullopt;
  }
  CodeName out{static_cast<int>(*code), name};
  if (out.code < count && names[out.code][0] != '\0') {
    out.name = names[out.code];
  }
  return out;
}

}  // namespace

std::optional<CodeName> parse_port_state(const std::string& text)
{
  return parse_code_name(text, k_port_states, 6);
}

std::optional<CodeName> parse_phys_state(const std::string& text)
{
  return parse_code_name(text, k_phys_states, 8);
}

const char* to_string(PortState value)
{
  // A value outside the enumeration (a caller's cast) reads as other, not past the table.
  const auto i = static_cast<size_t>(value);
  return i >= static_cast<size_t>(PortState::other) ? "" : k_port_states[i];
}

const char* to_string(PhysState value)
{
  // k_phys_states is indexed by the kernel's code, which starts at 1 (Sleep).
  const auto i = static_cast<size_t>(value) + 1;
  return i >= static_cast<size_t>(PhysState::other) + 1 ? "" : k_phys_states[i];
}

const char* to_string(LinkLayer value)
{
  switch (value) {
  case LinkLayer::infiniband:
    return "InfiniBand";
  case LinkLayer::ethernet:
    return "Ethernet";
  case LinkLayer::unknown:
    return "Unknown";
  case LinkLayer::other:
  default:
    return "";
  }
}

const char* to_string(IpoibMode value)
{
  switch (value) {
  case IpoibMode::datagram:
    return "datagram";
  case IpoibMode::connected:
    return "connected";
  case IpoibMode::other:
  default:
    return "";
  }
}

std::optional<IpPrefix> parse_address(const std::string& text)
{
  std::string why;
  const Family f = text.find(':') != std::string::npos ? Family::ipv6 : Family::ipv4;
  return IpPrefix::parse(text, f, &why);
}

std::optional<Rate> parse_rate(const std::string& text)
{
  const auto gb = text.find(" Gb/sec");
  if (gb == std::string::npos) {
    return std::nullopt;
  }
  const auto value = util::parse_decimal(util::trim(text.substr(0, gb)));
  const auto open = text.find('(', gb);
  const auto close = text.find(')', gb);
  if (!value || open == std::string::npos || close == std::string::npos || close < open) {
    return std::nullopt;
  }
  const std::string inside(util::trim(text.substr(open + 1, close - open - 1)));
  Rate r;
  r.gbps = *value;
  const auto space = inside.find(' ');
  r.width = inside.substr(0, space);
  if (r.width.empty() || r.width.back() != 'X') {
    return std::nullopt;
  }
  if (space != std::string::npos) {
    r.speed = std::string(util::trim(inside.substr(space + 1)));
  }
  return r;
}

std::optional<int> parse_hex_int(const std::string& text)
{
  auto t = util::trim(text);
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    const auto v = util::parse_unsigned(t);
    if (v && *v <= 0x7fffffff) {
      return static_cast<int>(*v);
    }
  }
  return std::nullopt;
}

std::optional<int> parse_decimal_int(const std::string& text)
{
  auto t = util::trim(text);
  bool negative = false;
  if (!t.empty() && t.front() == '-') {
    negative = true;
    t.remove_prefix(1);
  }
  if (t.size() > 1 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    return std::nullopt;
  }
  const auto v = util::parse_unsigned(t);
  if (!v || *v > 0x7fffffff) {
    return std::nullopt;
  }
  return negative ? -static_cast<int>(*v) : static_cast<int>(*v);
}

namespace {

// Concatenates groups of exactly group hex digits separated by ':' ("9803:9b03:00a1:b2c0",
// the kernel's layout) into "0x..." of exactly digits digits. Other groupings are not the
// kernel's, and ibstat reads them differently or not at all: nullopt.
std::optional<std::string> hex_digits(const std::string& text, size_t digits, size_t group)
{
  std::string out = "0x";
  size_t in_group = 0;
  for (char c : text) {
    if (c == ':') {
      if (in_group != group) {
        return std::nullopt;
      }
      in_group = 0;
      continue;
    }
    if (std::isxdigit(static_cast<unsigned char>(c)) == 0) {
      return std::nullopt;
    }
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    ++in_group;
  }
  if (in_group != group || out.size() != digits + 2) {
    return std::nullopt;
  }
  return out;
}

}  // namespace

std::optional<std::string> parse_guid(const std::string& text)
{
  return hex_digits(std::string(util::trim(text)), 16, 4);
}

std::optional<std::string> guid_of_gid(const std::string& gid)
{
  const auto full = hex_digits(std::string(util::trim(gid)), 32, 4);
  if (!full) {
    return std::nullopt;
  }
  return "0x" + full->substr(2 + 16);
}

std::optional<std::string> guid_of_ipoib_address(const std::string& address)
{
  const std::string t(util::trim(address));
  // 20 bytes: "80:00:00:48:fe:80:...": 20 * 2 hex digits + 19 colons.
  if (t.size() != 59) {
    return std::nullopt;
  }
  const auto full = hex_digits(t, 40, 2);
  if (!full) {
    return std::nullopt;
  }
  return "0x" + full->substr(2 + 24);
}

std::optional<double> parse_pci_speed(const std::string& text)
{
  const auto gt = text.find(" GT/s");
  if (gt == std::string::npos) {
    return std::nullopt;
  }
  // PCIe 6 runs at 64 GT/s: a thousand is no link's, and a saved inventory refuses it too.
  const auto v = util::parse_decimal(util::trim(text.substr(0, gt)));
  return v && *v <= k_max_pci_speed_gts ? v : std::nullopt;
}

std::optional<int> parse_lane_count(const std::string& text)
{
  // The link status register's width field is 6 bits: a card that fell off the bus reads as
  // all ones, 63, which pcie.width then judges.
  const auto v = parse_decimal_int(text);
  return v && *v >= 0 && *v <= k_max_pci_width ? v : std::nullopt;
}

std::optional<int> parse_mtu(const std::string& text)
{
  const auto v = parse_decimal_int(text);
  return v && *v >= 0 ? v : std::nullopt;
}

std::optional<std::string> parse_cap_mask(const std::string& text)
{
  const auto t = util::trim(text);
  if (t.size() < 3 || t[0] != '0' || (t[1] != 'x' && t[1] != 'X')) {
    return std::nullopt;
  }
  const auto v = util::parse_unsigned(t);
  if (!v || *v > 0xffffffffULL) {
    return std::nullopt;
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", static_cast<unsigned>(*v));
  return std::string(buf);
}

std::optional<uint16_t> parse_pkey(const std::string& text)
{
  const auto v = parse_hex_int(text);
  if (!v || *v > 0xffff) {
    return std::nullopt;
  }
  return static_cast<uint16_t>(*v);
}

}  // namespace ibsetup::inventory
