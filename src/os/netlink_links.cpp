// Netdevs over rtnetlink: one RTM_GETLINK dump instead of about a dozen sysfs files per netdev.
// On a node with many netdevs (containers, VFs, bonds) the sysfs walk was most of what a
// no-op apply cost (issue 15: 1,046 openat calls for 64 netdevs).
#include "os/netlink_links.hpp"

#include "common/address_text.hpp"
#include "os/netlink_attrs.hpp"
#include "os/netlink_dump.hpp"

#include <ibsetup/error.hpp>

#include <linux/if.h>  // IFF_UP
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include <algorithm>
#include <cstring>
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

// IFLA_LINKINFO { IFLA_INFO_KIND "ipoib", IFLA_INFO_DATA { PKEY, MODE, UMCAST (u16 each) } }.
bool read_ipoib_info(const nlattr* linkinfo, Netdev& n)
{
  const nlattr* info[IFLA_INFO_MAX + 1] = {};
  if (linkinfo == nullptr) {
    return false;
  }
  os::nl::parse_nested(linkinfo, info, IFLA_INFO_MAX);
  if (info[IFLA_INFO_KIND] == nullptr || info[IFLA_INFO_DATA] == nullptr) {
    return false;
  }
  const auto* kind = static_cast<const char*>(os::nl::data(info[IFLA_INFO_KIND]));
  if (std::string(kind, strnlen(kind, os::nl::length(info[IFLA_INFO_KIND]))) != "ipoib") {
    return false;
  }
  const nlattr* data[IFLA_IPOIB_MAX + 1] = {};
  os::nl::parse_nested(info[IFLA_INFO_DATA], data, IFLA_IPOIB_MAX);
  if (data[IFLA_IPOIB_PKEY] == nullptr || data[IFLA_IPOIB_MODE] == nullptr ||
      os::nl::length(data[IFLA_IPOIB_PKEY]) < 2 || os::nl::length(data[IFLA_IPOIB_MODE]) < 2) {
    return false;
  }
  n.pkey = os::nl::get<uint16_t>(data[IFLA_IPOIB_PKEY]);
  n.mode = Reading<IpoibMode>(os::nl::get<uint16_t>(data[IFLA_IPOIB_MODE]) == IPOIB_MODE_CONNECTED
                                  ? IpoibMode::connected
                                  : IpoibMode::datagram);
  if (data[IFLA_IPOIB_UMCAST] != nullptr && os::nl::length(data[IFLA_IPOIB_UMCAST]) >= 2) {
    n.umcast = os::nl::get<uint16_t>(data[IFLA_IPOIB_UMCAST]) != 0;
  }
  return true;
}

bool u32_of(const nlattr* a, uint32_t& out)
{
  if (a == nullptr || os::nl::length(a) < 4) {
    return false;
  }
  out = os::nl::get<uint32_t>(a);
  return true;
}

}  // namespace

std::optional<NetdevReading> reading_of_link(const nlmsghdr* message)
{
  if (message->nlmsg_type != RTM_NEWLINK) {
    return std::nullopt;
  }
  const nlattr* tb[IFLA_MAX + 1] = {};
  if (!os::nl::parse_message(message, sizeof(ifinfomsg), tb, IFLA_MAX) ||
      tb[IFLA_IFNAME] == nullptr) {
    return std::nullopt;
  }
  ifinfomsg ifi{};
  std::memcpy(&ifi, reinterpret_cast<const char*>(message) + NLMSG_HDRLEN, sizeof ifi);
  NetdevReading out;
  Netdev& n = out.netdev;
  const auto* name = static_cast<const char*>(os::nl::data(tb[IFLA_IFNAME]));
  n.name.assign(name, strnlen(name, os::nl::length(tb[IFLA_IFNAME])));
  if (n.name.empty()) {
    return std::nullopt;
  }
  n.type = ifi.ifi_type;
  n.ipoib = ifi.ifi_type == 32;  // ARPHRD_INFINIBAND
  n.ifindex = ifi.ifi_index;
  n.admin_up = (ifi.ifi_flags & IFF_UP) != 0U;
  uint32_t value = 0;
  if (u32_of(tb[IFLA_MTU], value)) {
    n.mtu = static_cast<int>(value);
  }
  if (tb[IFLA_OPERSTATE] != nullptr && os::nl::length(tb[IFLA_OPERSTATE]) >= 1) {
    n.operstate = operstate_name(os::nl::get<uint8_t>(tb[IFLA_OPERSTATE]));
  }
  // sysfs refuses `carrier` (EINVAL) while the netdev is down; the dump reports it anyway.
  if (*n.admin_up && tb[IFLA_CARRIER] != nullptr && os::nl::length(tb[IFLA_CARRIER]) >= 1) {
    n.carrier = os::nl::get<uint8_t>(tb[IFLA_CARRIER]) != 0;
  }
  if (tb[IFLA_ADDRESS] != nullptr && os::nl::length(tb[IFLA_ADDRESS]) > 0) {
    out.address = util::hex_bytes(static_cast<const unsigned char*>(os::nl::data(tb[IFLA_ADDRESS])),
                                  os::nl::length(tb[IFLA_ADDRESS]));
  }
  if (n.ipoib) {
    out.ipoib_attributes = read_ipoib_info(tb[IFLA_LINKINFO], n);
    // IFLA_LINK is the parent's index on a child only (ipoib's ndo_get_iflink); veth and
    // others use it for their peer, so it is read only with the ipoib attributes.
    if (out.ipoib_attributes && u32_of(tb[IFLA_LINK], value) &&
        static_cast<int>(value) != ifi.ifi_index) {
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

class NetlinkNetdevs : public NetdevSource {
public:
  // The kernel marks a dump that links changed under (NLM_F_DUMP_INTR); it is read again.
  std::vector<NetdevReading> netdevs() override
  {
    for (int attempt = 1;; ++attempt) {
      std::vector<NetdevReading> out;
      const detail::DumpResult result = dump(out);
      if (result.ok()) {
        detail::name_parents(out);
        std::sort(out.begin(), out.end(), [](const NetdevReading& a, const NetdevReading& b) {
          return a.netdev.name < b.netdev.name;  // the order of the sysfs listing
        });
        return out;
      }
      if (result.error != 0 || attempt == 3) {
        throw EnvironmentError("netlink: cannot read the links: " + result.describe());
      }
    }
  }

private:
  // RTM_GETLINK dump without the statistics (RTEXT_FILTER_SKIP_STATS, as `ip link show` asks;
  // a kernel older than 4.20 ignores the bit): most of each message is counters inspect never
  // reads.
  static detail::DumpResult dump(std::vector<NetdevReading>& out)
  {
    struct {
      nlmsghdr header;
      ifinfomsg ifi;
      nlattr ext_mask_header;
      uint32_t ext_mask;
    } request{};
    static_assert(sizeof request == sizeof(nlmsghdr) + sizeof(ifinfomsg) + sizeof(nlattr) + 4,
                  "no padding in the request");
    request.header.nlmsg_len = sizeof request;
    request.header.nlmsg_type = RTM_GETLINK;
    request.ifi.ifi_family = AF_UNSPEC;
    request.ext_mask_header.nla_len = sizeof(nlattr) + sizeof request.ext_mask;
    request.ext_mask_header.nla_type = IFLA_EXT_MASK;
    request.ext_mask = RTEXT_FILTER_SKIP_STATS;
    return detail::netlink_dump(&request.header, [&out](const nlmsghdr* message) {
      if (auto r = detail::reading_of_link(message)) {
        out.push_back(std::move(*r));
      }
    });
  }
};

}  // namespace

std::unique_ptr<NetdevSource> make_netlink_netdev_source()
{
  return std::make_unique<NetlinkNetdevs>();
}

}  // namespace ibsetup::inventory
