// The rtnetlink dumps inspect reads (src/os/netlink_links.cpp, netlink_addresses.cpp and the
// attribute parser netlink_attrs.cpp that replaced libnl's): the input is a datagram of
// messages, framed as netlink_dump() frames what the kernel sends, and each message is read
// both as a link and as an address whatever its type. Every netdev kept has a name, and every
// address is "ADDRESS/PREFIXLEN".
#include "fuzz_common.hpp"

#include "os/netlink_attrs.hpp"
#include "os/netlink_addresses.hpp"
#include "os/netlink_links.hpp"

#include <linux/rtnetlink.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

[[noreturn]] void fail(const char* what)
{
  std::fprintf(stderr, "%s\n", what);
  std::abort();
}

// The message again, with another type, in a buffer of its own: the parsers read only within
// nlmsg_len.
std::vector<uint32_t> retyped(const nlmsghdr* message, uint16_t type)
{
  std::vector<uint32_t> copy((message->nlmsg_len + 3) / 4);
  std::memcpy(copy.data(), message, message->nlmsg_len);
  reinterpret_cast<nlmsghdr*>(copy.data())->nlmsg_type = type;
  return copy;
}

void read_message(const nlmsghdr* message, std::vector<ibsetup::inventory::NetdevReading>& links)
{
  namespace detail = ibsetup::inventory::detail;
  const auto as_link = retyped(message, RTM_NEWLINK);
  if (auto r = detail::reading_of_link(reinterpret_cast<const nlmsghdr*>(as_link.data()))) {
    if (r->netdev.name.empty()) {
      fail("kept a netdev without a name");
    }
    links.push_back(std::move(*r));
  }
  const auto as_address = retyped(message, RTM_NEWADDR);
  if (auto a = detail::address_of(reinterpret_cast<const nlmsghdr*>(as_address.data()))) {
    const auto slash = a->second.rfind('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == a->second.size()) {
      fail("an address without its prefix length");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  // A datagram of the kernel's is at most 32 KiB here (netlink_dump's buffer).
  if (size == 0 || fuzz::too_large(size, size_t{32} << 10U)) {
    return 0;  // nothing to frame (and memcpy from libFuzzer's null empty input is undefined)
  }
  std::vector<uint32_t> buffer((size + 3) / 4);
  std::memcpy(buffer.data(), data, size);
  const auto* bytes = reinterpret_cast<const char*>(buffer.data());
  std::vector<ibsetup::inventory::NetdevReading> links;
  size_t offset = 0;
  while (offset < size && size - offset >= sizeof(nlmsghdr)) {
    const auto* message = reinterpret_cast<const nlmsghdr*>(bytes + offset);
    if (message->nlmsg_len < sizeof(nlmsghdr) || message->nlmsg_len > size - offset) {
      break;  // netlink_dump ends the dump here (-EBADMSG)
    }
    read_message(message, links);
    offset += NLMSG_ALIGN(message->nlmsg_len);
  }
  ibsetup::inventory::detail::name_parents(links);
  // The attribute parser on the raw bytes, with a table smaller than most types.
  const nlattr* table[8] = {};
  ibsetup::os::nl::parse(bytes, size, table, 7);
  return 0;
}
