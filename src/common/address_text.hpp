// Addresses as text without the C library's formatter: inet_ntop formats each IPv6 group and
// each IPv4 byte with sprintf, about 2,600 instructions an address, and a no-op apply of 64
// netdevs formatted 192 of them (half a million instructions, 6% of the whole run).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ibsetup::util {

// inet_ntop(AF_INET)'s text of 4 bytes: "10.0.0.1".
std::string ipv4_text(const uint8_t* bytes);

// inet_ntop(AF_INET6)'s text of 16 bytes, character for character: lower-case hex groups
// without leading zeros, the first longest run of two or more zero groups as "::", and the
// last 32 bits in dotted decimal for IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible
// (::a.b.c.d) addresses, as glibc writes them.
std::string ipv6_text(const uint8_t* bytes);

// Bytes as two lower-case hex digits each, joined by ':' ("80:00:00:48:fe:80"): the text of
// a link-layer address, as sysfs's address file and nl_addr2str print it.
std::string hex_bytes(const unsigned char* bytes, size_t length);

}  // namespace ibsetup::util
