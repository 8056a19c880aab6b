// rtnetlink attributes read without libnl: inspect parses every link and address of its dumps
// with these, so that only apply's changes load libnl-3 (netlink_backend.cpp, nl_dl.cpp). The
// rules are libnl's nla_parse without a policy.
#pragma once

#include <linux/netlink.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ibsetup::os::nl {

// Fills table[1..max_type] (max_type + 1 entries, null on entry) with the attributes in the
// `length` bytes at `head`. A later attribute of a type replaces an earlier one; types above
// max_type are skipped; so is a tail too short for the attribute it starts (libnl does the same).
void parse(const void* head, size_t length, const nlattr** table, int max_type);

// The attributes after the message's family header of `header_size` bytes; false when the
// message is too short to hold that header (libnl's -NLE_MSG_TOOSHORT).
bool parse_message(const nlmsghdr* message, size_t header_size, const nlattr** table, int max_type);

// The attributes nested in `nested`.
void parse_nested(const nlattr* nested, const nlattr** table, int max_type);

// What parse() puts in a table always has a whole header: nla_len >= NLA_HDRLEN.
inline const void* data(const nlattr* a)
{
  return reinterpret_cast<const char*>(a) + NLA_HDRLEN;
}
inline size_t length(const nlattr* a)
{
  return a->nla_len - NLA_HDRLEN;
}

// The value of an attribute of at least sizeof(T) bytes (the caller checks the length).
template <typename T>
T get(const nlattr* a)
{
  T value;
  std::memcpy(&value, data(a), sizeof value);
  return value;
}

}  // namespace ibsetup::os::nl
