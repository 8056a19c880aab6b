#include "common/address_text.hpp"

namespace ibsetup::util {

namespace {

const char k_hex[] = "0123456789abcdef";

void append_decimal(std::string& out, unsigned value)
{
  if (value >= 100) {
    out += static_cast<char>('0' + value / 100);
  }
  if (value >= 10) {
    out += static_cast<char>('0' + value / 10 % 10);
  }
  out += static_cast<char>('0' + value % 10);
}

void append_ipv4(std::string& out, const uint8_t* bytes)
{
  for (int i = 0; i < 4; ++i) {
    if (i != 0) {
      out += '.';
    }
    append_decimal(out, bytes[i]);
  }
}

// "%x" of a 16-bit group.
void append_group(std::string& out, unsigned word)
{
  bool started = false;
  for (int shift = 12; shift >= 0; shift -= 4) {
    const unsigned digit = (word >> shift) & 0xfU;
    if (digit != 0 || started || shift == 0) {
      out += k_hex[digit];
      started = true;
    }
  }
}

}  // namespace

std::string ipv4_text(const uint8_t* bytes)
{
  std::string out;
  out.reserve(15);
  append_ipv4(out, bytes);
  return out;
}

// glibc's inet_ntop6 (resolv/inet_ntop.c), step for step, so that the text is the same.
std::string ipv6_text(const uint8_t* bytes)
{
  unsigned words[8];
  for (size_t i = 0; i < 8; ++i) {
    words[i] = static_cast<unsigned>(bytes[2 * i]) << 8U | bytes[2 * i + 1];
  }
  int best_base = -1;
  int best_len = 0;
  int cur_base = -1;
  int cur_len = 0;
  for (int i = 0; i < 8; ++i) {
    if (words[i] == 0) {
      if (cur_base == -1) {
        cur_base = i;
        cur_len = 1;
      } else {
        ++cur_len;
      }
    } else if (cur_base != -1) {
      if (best_base == -1 || cur_len > best_len) {
        best_base = cur_base;
        best_len = cur_len;
      }
      cur_base = -1;
    }
  }
  if (cur_base != -1 && (best_base == -1 || cur_len > best_len)) {
    best_base = cur_base;
    best_len = cur_len;
  }
  if (best_base != -1 && best_len < 2) {
    best_base = -1;
  }
  std::string out;
  out.reserve(45);
  for (int i = 0; i < 8; ++i) {
    if (best_base != -1 && i >= best_base && i < best_base + best_len) {
      if (i == best_base) {
        out += ':';
      }
      continue;
    }
    if (i != 0) {
      out += ':';
    }
    if (i == 6 && best_base == 0 && (best_len == 6 || (best_len == 5 && words[5] == 0xffff))) {
      append_ipv4(out, bytes + 12);
      return out;
    }
    append_group(out, words[i]);
  }
  if (best_base != -1 && best_base + best_len == 8) {
    out += ':';
  }
  return out;
}

std::string hex_bytes(const unsigned char* bytes, size_t length)
{
  std::string out;
  out.reserve(length * 3);
  for (size_t i = 0; i < length; ++i) {
    if (i != 0) {
      out += ':';
    }
    out += k_hex[bytes[i] >> 4U];
    out += k_hex[bytes[i] & 0xfU];
  }
  return out;
}

}  // namespace ibsetup::util
