// Netdevs over rtnetlink: one RTM_GETLINK dump instead of about a dozen sysfs files per netdev.
// On a node with many netdevs (containers, VFs, bonds) the sysfs walk was most of what a
// no-op apply cost (issue 15: 1,046 openat calls for 64 netdevs).
#include "os/netlink_links.hpp"

#include <ibsetup/error.hpp>

#include <linux/if.h>  // IFF_UP
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/errno.h>
#include <netlink/socket.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

namespace ibsetup::inventory {

namespace detail {

namespace {

// The names sysfs's operstate file prints, indexed by IF_OPER_* (RFC 2863).
const char* operstate_name(unsigned value)
{
  static const char* const names[] = {"unknown", "notpresent", "down", "lowerlayerdown",
                                      "testing", "dormant",    "up"};
  return value < sizeof names / sizeof names[0] ? names[value] : "unknown";
}

std::string hex_address(const unsigned char* bytes, size_t length)
{
  std::string out;
  out.reserve(length * 3);
  char buf[4];
  for (size_t i = 0; i < length; ++i) {
    std::snprintf(buf, sizeof buf, i == 0 ? "%02x" : ":%02x", bytes[i]);
    out += buf;
  }
  return out;
}

// IFLA_LINKINFO { IFLA_INFO_KIND "ipoib", IFLA_INFO_DATA { PKEY, MODE, UMCAST (u16 each) } }.
bool read_ipoib_info(nlattr* linkinfo, Netdev& n)
{
  nlattr* info[IFLA_INFO_MAX + 1] = {};
  if (linkinfo == nullptr || nla_parse_nested(info, IFLA_INFO_MAX, linkinfo, nullptr) < 0 ||
      info[IFLA_INFO_KIND] == nullptr || info[IFLA_INFO_DATA] == nullptr) {
    return false;
  }
  const auto* kind = static_cast<const char*>(nla_data(info[IFLA_INFO_KIND]));
  const int kind_length = nla_len(info[IFLA_INFO_KIND]);
  if (std::string(kind, strnlen(kind, static_cast<size_t>(kind_length))) != "ipoib") {
    return false;
  }
  nlattr* data[IFLA_IPOIB_MAX + 1] = {};
  if (nla_parse_nested(data, IFLA_IPOIB_MAX, info[IFLA_INFO_DATA], nullptr) < 0 ||
      data[IFLA_IPOIB_PKEY] == nullptr || data[IFLA_IPOIB_MODE] == nullptr ||
      nla_len(data[IFLA_IPOIB_PKEY]) < 2 || nla_len(data[IFLA_IPOIB_MODE]) < 2) {
    return false;
  }
  n.pkey = nla_get_u16(data[IFLA_IPOIB_PKEY]);
  n.mode = Reading<IpoibMode>(nla_get_u16(data[IFLA_IPOIB_MODE]) == IPOIB_MODE_CONNECTED
                                  ? IpoibMode::connected
                                  : IpoibMode::datagram);
  if (data[IFLA_IPOIB_UMCAST] != nullptr && nla_len(data[IFLA_IPOIB_UMCAST]) >= 2) {
    n.umcast = nla_get_u16(data[IFLA_IPOIB_UMCAST]) != 0;
  }
  return true;
}

bool u32_of(nlattr* a, uint32_t& out)
{
  if (a == nullptr || nla_len(a) < 4) {
    return false;
  }
  out = nla_get_u32(a);
  return true;
}

}  // namespace

std::optional<NetdevReading> reading_of_link(const nlmsghdr* message)
{
  if (message->nlmsg_type != RTM_NEWLINK) {
    return std::nullopt;
  }
  nlattr* tb[IFLA_MAX + 1] = {};
  auto* header = const_cast<nlmsghdr*>(message);
  if (nlmsg_parse(header, sizeof(ifinfomsg), tb, IFLA_MAX, nullptr) < 0 ||
      tb[IFLA_IFNAME] == nullptr) {
    return std::nullopt;
  }
  const auto* ifi = static_cast<const ifinfomsg*>(nlmsg_data(header));
  NetdevReading out;
  Netdev& n = out.netdev;
  const auto* name = static_cast<const char*>(nla_data(tb[IFLA_IFNAME]));
  n.name.assign(name, strnlen(name, static_cast<size_t>(nla_len(tb[IFLA_IFNAME]))));
  if (n.name.empty()) {
    return std::nullopt;
  }
  n.type = ifi->ifi_type;
  n.ipoib = ifi->ifi_type == 32;  // ARPHRD_INFINIBAND
  n.ifindex = ifi->ifi_index;
  n.admin_up = (ifi->ifi_flags & IFF_UP) != 0U;
  uint32_t value = 0;
  if (u32_of(tb[IFLA_MTU], value)) {
    n.mtu = static_cast<int>(value);
  }
  if (tb[IFLA_OPERSTATE] != nullptr && nla_len(tb[IFLA_OPERSTATE]) >= 1) {
    n.operstate = operstate_name(nla_get_u8(tb[IFLA_OPERSTATE]));
  }
  // sysfs refuses `carrier` (EINVAL) while the netdev is down; the dump reports it anyway.
  if (*n.admin_up && tb[IFLA_CARRIER] != nullptr && nla_len(tb[IFLA_CARRIER]) >= 1) {
    n.carrier = nla_get_u8(tb[IFLA_CARRIER]) != 0;
  }
  if (tb[IFLA_ADDRESS] != nullptr && nla_len(tb[IFLA_ADDRESS]) > 0) {
    out.address = hex_address(static_cast<const unsigned char*>(nla_data(tb[IFLA_ADDRESS])),
                              static_cast<size_t>(nla_len(tb[IFLA_ADDRESS])));
  }
  if (n.ipoib) {
    out.ipoib_attributes = read_ipoib_info(tb[IFLA_LINKINFO], n);
    // IFLA_LINK is the parent's index on a child only (ipoib's ndo_get_iflink); veth and
    // others use it for their peer, so it is read only with the ipoib attributes.
    if (out.ipoib_attributes && u32_of(tb[IFLA_LINK], value) &&
        static_cast<int>(value) != ifi->ifi_index) {
      if (tb[IFLA_LINK_NETNSID] != nullptr) {
        out.ipoib_attributes = false;  // a parent in another namespace: sysfs names it
      } else {
        out.parent_index = static_cast<int>(value);
      }
    }
  }
  return out;
}

void name_parents(std::vector<NetdevReading>& links)
{
  std::map<int, std::string> names;
  for (const auto& l : links) {
    names[*l.netdev.ifindex] = l.netdev.name;
  }
  for (auto& l : links) {
    if (!l.parent_index) {
      continue;
    }
    const auto it = names.find(*l.parent_index);
    if (it != names.end()) {
      l.netdev.parent = it->second;
    } else {
      l.netdev.parent.reset();
      l.ipoib_attributes = false;  // let sysfs name it
    }
  }
}

}  // namespace detail

namespace {

int on_link(nl_msg* msg, void* arg)
{
  auto* out = static_cast<std::vector<NetdevReading>*>(arg);
  if (auto r = detail::reading_of_link(nlmsg_hdr(msg))) {
    out->push_back(std::move(*r));
  }
  return NL_OK;
}

// RTM_GETLINK dump without the statistics (RTEXT_FILTER_SKIP_STATS, as `ip link show` asks;
// a kernel older than 4.20 ignores the bit): most of each message is counters inspect never
// reads.
int send_dump_request(nl_sock* sock)
{
  nl_msg* msg = nlmsg_alloc_simple(RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP);
  if (msg == nullptr) {
    return -NLE_NOMEM;
  }
  ifinfomsg ifi{};
  ifi.ifi_family = AF_UNSPEC;
  int err = nlmsg_append(msg, &ifi, sizeof ifi, NLMSG_ALIGNTO);
  if (err == 0) {
    err = nla_put_u32(msg, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
  }
  if (err == 0) {
    err = nl_send_auto(sock, msg);
  }
  nlmsg_free(msg);
  return err < 0 ? err : 0;
}

class NetlinkNetdevs : public NetdevSource {
public:
  // The kernel marks a dump that links changed under (NLM_F_DUMP_INTR); it is read again.
  std::vector<NetdevReading> netdevs() override
  {
    for (int attempt = 1;; ++attempt) {
      std::vector<NetdevReading> out;
      const int err = dump(out);
      if (err == 0) {
        detail::name_parents(out);
        std::sort(out.begin(), out.end(), [](const NetdevReading& a, const NetdevReading& b) {
          return a.netdev.name < b.netdev.name;  // the order of the sysfs listing
        });
        return out;
      }
      if (err != -NLE_DUMP_INTR || attempt == 3) {
        throw EnvironmentError(std::string("netlink: cannot read the links: ") + nl_geterror(err));
      }
    }
  }

private:
  static int dump(std::vector<NetdevReading>& out)
  {
    nl_sock* sock = nl_socket_alloc();
    if (sock == nullptr) {
      return -NLE_NOMEM;
    }
    int err = nl_connect(sock, NETLINK_ROUTE);
    if (err == 0) {
      err = nl_socket_modify_cb(sock, NL_CB_VALID, NL_CB_CUSTOM, on_link, &out);
    }
    if (err == 0) {
      err = send_dump_request(sock);
    }
    if (err == 0) {
      err = nl_recvmsgs_default(sock);
    }
    nl_socket_free(sock);
    return err < 0 ? err : 0;
  }
};

}  // namespace

std::unique_ptr<NetdevSource> make_netlink_netdev_source()
{
  return std::make_unique<NetlinkNetdevs>();
}

}  // namespace ibsetup::inventory
