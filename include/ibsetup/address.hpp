// IPv4/IPv6 addresses and prefixes, with the pool arithmetic the profile uses.
#pragma once
#pragma GCC visibility push(default)  // the public API: export.hpp says why

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ibsetup {

enum class Family { ipv4, ipv6 };

struct IpAddress {
  Family family = Family::ipv4;
  std::array<uint8_t, 16> bytes{};  // IPv4 uses the first 4

  // Parses a literal address of the given family; nullopt when it is not one.
  static std::optional<IpAddress> parse(std::string_view text, Family family);
  int bit_count() const { return family == Family::ipv4 ? 32 : 128; }
  std::string str() const;

  bool operator==(const IpAddress& other) const
  {
    return family == other.family && bytes == other.bytes;
  }
  bool operator<(const IpAddress& other) const
  {
    return family != other.family ? family < other.family : bytes < other.bytes;
  }
};

// An address with a prefix length, as written in CIDR notation ("10.10.0.0/16").
struct IpPrefix {
  IpAddress address;
  int length = 0;

  // Parses "ADDRESS/LEN"; on failure returns nullopt and sets *why (when not null) to the reason.
  static std::optional<IpPrefix> parse(std::string_view text, Family family, std::string* why);

  IpAddress network() const;
  bool host_bits_zero() const { return network() == address; }
  // The IPv4 network or broadcast address of a prefix that has them (length <= 30).
  bool is_network_or_broadcast() const;
  bool contains(const IpAddress& other) const;
  bool overlaps(const IpPrefix& other) const;
  // How many pool positions (network + 1 ... network + N) are usable host addresses;
  // saturates at UINT64_MAX.
  uint64_t capacity() const;
  // The address network + n with this prefix length; nullopt when n is not in 1..capacity().
  std::optional<IpPrefix> nth(uint64_t n) const;
  std::string str() const;

  bool operator==(const IpPrefix& other) const
  {
    return address == other.address && length == other.length;
  }
};

}  // namespace ibsetup
#pragma GCC visibility pop
