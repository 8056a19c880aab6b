// Parsers for sysfs attribute formats (kernel drivers/infiniband/core/sysfs.c, ipoib, PCI).
// Pure functions: each returns nullopt for a value it cannot read.
#pragma once

#include <ibsetup/address.hpp>
#include <ibsetup/inventory.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ibsetup::inventory {

// "4: ACTIVE" -> {4, "ACTIVE"}; the name is the kernel's name for the code when known.
struct CodeName {
  int code = 0;
  std::string name;
};
std::optional<CodeName> parse_port_state(const std::string& text);
std::optional<CodeName> parse_phys_state(const std::string& text);

// The enumeration value the kernel spells as text ("ACTIVE", "LinkUp", "InfiniBand",
// "datagram"; exact, as the kernel writes them); other, keeping the text, when none is.
template <class E>
Reading<E> reading_of(std::string_view text)
{
  for (int i = 0; i < static_cast<int>(E::other); ++i) {
    const auto value = static_cast<E>(i);
    if (text == to_string(value)) {
      return value;
    }
  }
  return {E::other, std::string(text)};
}

// An interface address as netlink and `inspect --json` write it ("10.10.0.1/16",
// "fe80::1/64"); nullopt when it is not one.
std::optional<IpPrefix> parse_address(const std::string& text);

// "100 Gb/sec (4X EDR)", "2.5 Gb/sec (1X SDR)", "10 Gb/sec (4X)".
struct Rate {
  double gbps = 0;
  std::string width;
  std::optional<std::string> speed;
};
std::optional<Rate> parse_rate(const std::string& text);

// "0x3a4" -> 932 (sysfs LIDs are hex).
std::optional<int> parse_hex_int(const std::string& text);
std::optional<int> parse_decimal_int(const std::string& text);

// "0c42:a103:0016:e7e0" -> "0x0c42a1030016e7e0".
std::optional<std::string> parse_guid(const std::string& text);

// The port GUID (low 64 bits) of "fe80:0000:0000:0000:0c42:a103:0016:e7e0".
std::optional<std::string> guid_of_gid(const std::string& gid);

// The port GUID in the last 8 bytes of a 20-byte IPoIB hardware address.
std::optional<std::string> guid_of_ipoib_address(const std::string& address);

// The bounds of what the kernel prints, shared with the saved inventory's reader
// (from_json.cpp), which refuses what inspect never writes.
constexpr double k_max_pci_speed_gts = 1000;
constexpr int k_max_pci_width = 63;

// "16.0 GT/s PCIe", "8 GT/s", "2.5 GT/s" -> GT/s; "Unknown" or above 1000 GT/s -> nullopt.
std::optional<double> parse_pci_speed(const std::string& text);
// A PCIe link width, 0 to 63 lanes.
std::optional<int> parse_lane_count(const std::string& text);
// A netdev's MTU: a decimal at or above 0.
std::optional<int> parse_mtu(const std::string& text);

// "0xa659e848" -> "0xa659e848" (normalised to 8 lower-case hex digits).
std::optional<std::string> parse_cap_mask(const std::string& text);

// "0x%04x" P_Key.
std::optional<uint16_t> parse_pkey(const std::string& text);

}  // namespace ibsetup::inventory
