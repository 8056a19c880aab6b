// Interface addresses over rtnetlink: one RTM_GETADDR dump on a plain socket, without libnl's
// route library, whose address cache cost a no-op apply ~2.8 M instructions for 64 netdevs and
// a shared library to load (issue 15).
#include "os/netlink_addresses.hpp"

#include "common/address_text.hpp"
#include "os/netlink_attrs.hpp"
#include "os/netlink_dump.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/inventory.hpp>

#include <linux/if_addr.h>
#include <sys/socket.h>
#include <linux/rtnetlink.h>

#include <cstring>

namespace ibsetup::inventory {

namespace detail {

namespace {

// nl_addr2str's text: inet_ntop's for IPv4 and IPv6, hex bytes joined by ':' for the rest.
std::string address_text(int family, const unsigned char* bytes, size_t length)
{
  if (family == AF_INET) {
    return length == 4 ? util::ipv4_text(bytes) : std::string();
  }
  if (family == AF_INET6) {
    return length == 16 ? util::ipv6_text(bytes) : std::string();
  }
  return util::hex_bytes(bytes, length);
}

// An RTM_NEWADDR message's attributes and header; false for another message or a broken one.
bool parse_newaddr(const nlmsghdr* message, const nlattr* (&tb)[IFA_MAX + 1], ifaddrmsg& ifa)
{
  if (message->nlmsg_type != RTM_NEWADDR ||
      !os::nl::parse_message(message, sizeof(ifaddrmsg), tb, IFA_MAX)) {
    return false;
  }
  std::memcpy(&ifa, reinterpret_cast<const char*>(message) + NLMSG_HDRLEN, sizeof ifa);
  return true;
}

}  // namespace

std::optional<std::pair<int, std::string>> address_of(const nlmsghdr* message)
{
  const nlattr* tb[IFA_MAX + 1] = {};
  ifaddrmsg ifa{};
  if (!parse_newaddr(message, tb, ifa)) {
    return std::nullopt;
  }
  // IPv4 sends both, IFA_ADDRESS being the peer's on a point-to-point address; IPv6 sends
  // IFA_LOCAL only with a peer, else just IFA_ADDRESS (libnl's addr_msg_parser reads it so).
  const nlattr* local = tb[IFA_LOCAL] != nullptr ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
  if (local == nullptr || os::nl::length(local) == 0) {
    return std::nullopt;
  }
  std::string text =
      address_text(ifa.ifa_family, static_cast<const unsigned char*>(os::nl::data(local)),
                   os::nl::length(local));
  if (text.empty()) {
    return std::nullopt;
  }
  text += '/';
  text += std::to_string(ifa.ifa_prefixlen);
  return std::make_pair(static_cast<int>(ifa.ifa_index), std::move(text));
}

std::optional<Ipv4Bytes> ipv4_peer_of(const nlmsghdr* message, int index, const Ipv4Bytes& local,
                                      int prefixlen)
{
  const nlattr* tb[IFA_MAX + 1] = {};
  ifaddrmsg ifa{};
  if (!parse_newaddr(message, tb, ifa)) {
    return std::nullopt;
  }
  if (ifa.ifa_family != AF_INET || static_cast<int>(ifa.ifa_index) != index ||
      ifa.ifa_prefixlen != prefixlen || tb[IFA_LOCAL] == nullptr || tb[IFA_ADDRESS] == nullptr ||
      os::nl::length(tb[IFA_LOCAL]) != 4 || os::nl::length(tb[IFA_ADDRESS]) != 4 ||
      std::memcmp(os::nl::data(tb[IFA_LOCAL]), local.data(), 4) != 0) {
    return std::nullopt;
  }
  Ipv4Bytes peer{};
  std::memcpy(peer.data(), os::nl::data(tb[IFA_ADDRESS]), 4);
  if (peer == local) {
    return std::nullopt;
  }
  return peer;
}

std::optional<Ipv4Bytes> ipv4_peer(int index, const Ipv4Bytes& local, int prefixlen)
{
  struct {
    nlmsghdr header;
    ifaddrmsg ifa;
  } request{};
  request.header.nlmsg_len = sizeof request;
  request.header.nlmsg_type = RTM_GETADDR;
  request.ifa.ifa_family = AF_INET;
  std::optional<Ipv4Bytes> peer;
  const DumpResult result = netlink_dump(&request.header, [&](const nlmsghdr* message) {
    if (!peer) {
      peer = ipv4_peer_of(message, index, local, prefixlen);
    }
  });
  return result.error == 0 ? peer : std::nullopt;
}

}  // namespace detail

namespace {

class NetlinkAddresses : public AddressSource {
public:
  // In the kernel's order (IPv4, then IPv6, each as the interface lists them), as before. A
  // dump that addresses changed under (NLM_F_DUMP_INTR) is read again.
  std::map<int, std::vector<std::string>> addresses() override
  {
    for (int attempt = 1;; ++attempt) {
      std::map<int, std::vector<std::string>> out;
      struct {
        nlmsghdr header;
        ifaddrmsg ifa;
      } request{};
      request.header.nlmsg_len = sizeof request;
      request.header.nlmsg_type = RTM_GETADDR;
      request.ifa.ifa_family = AF_UNSPEC;
      const detail::DumpResult result =
          detail::netlink_dump(&request.header, [&out](const nlmsghdr* message) {
            if (auto a = detail::address_of(message)) {
              out[a->first].push_back(std::move(a->second));
            }
          });
      if (result.ok()) {
        return out;
      }
      if (result.error != 0 || attempt == 3) {
        throw EnvironmentError("netlink: cannot read addresses: " + result.describe());
      }
    }
  }
};

}  // namespace

std::unique_ptr<AddressSource> make_netlink_address_source()
{
  return std::make_unique<NetlinkAddresses>();
}

}  // namespace ibsetup::inventory
