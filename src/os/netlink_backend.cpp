// Links and addresses over rtnetlink with libnl: the only apply code that includes libnl.
// libnl 3.7 has no ipoib link module, so pkey children and modes are built with its generic
// message API: IFLA_LINKINFO { IFLA_INFO_KIND "ipoib", IFLA_INFO_DATA { IFLA_IPOIB_PKEY,
// IFLA_IPOIB_MODE } } (linux/if_link.h), as `ip link add ... type ipoib` sends.
#include "inventory/netdev_source.hpp"
#include "os/netlink_addresses.hpp"
#include "os/netlink_messages.hpp"
#include "os/nl_dl.hpp"

#include <ibsetup/apply.hpp>

#include <netlink/msg.h>
#include <netlink/netlink.h>

#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <map>

namespace ibsetup::apply {

namespace {

struct AckState {
  int error = 0;
};

int on_error(sockaddr_nl* /*who*/, nlmsgerr* err, void* arg)
{
  static_cast<AckState*>(arg)->error = err->error;
  return NL_STOP;
}

int on_ack(nl_msg* /*msg*/, void* /*arg*/)
{
  return NL_STOP;
}

class NetlinkBackend : public LinkBackend {
public:
  NetlinkBackend() = default;

  ~NetlinkBackend() override
  {
    if (m_sock != nullptr) {
      nl_socket_free(m_sock);
    }
  }

  NetlinkBackend(const NetlinkBackend&) = delete;
  NetlinkBackend& operator=(const NetlinkBackend&) = delete;

  void create_child(const std::string& parent, const std::string& name, uint16_t pkey,
                    std::optional<profile::Mode> mode) override
  {
    connect();
    const std::string what = "create " + name + " (pkey 0x" + hex(pkey) + " on " + parent + ")";
    const Msg msg(detail::ipoib_child_request(name, index_of(parent, what), pkey, mode));
    m_index.erase(name);
    send(msg, what, "is ib_ipoib loaded, and is the parent an IPoIB interface?");
  }

  void delete_link(const std::string& name) override
  {
    connect();
    const std::string what = "delete " + name;
    Msg msg(RTM_DELLINK, 0, index_of(name, what));
    m_index.erase(name);
    send(msg, what, "");
  }

  void set_mode(const std::string& name, profile::Mode mode) override
  {
    connect();
    const std::string what = name + ": set mode " + profile::to_string(mode);
    const Msg msg(detail::ipoib_mode_request(index_of(name, what), mode));
    try {
      send(msg, what, "");
    } catch (const BackendError& netlink_error) {
      // Kernels before IPoIB's rtnl_link_ops changes only take the mode through sysfs.
      std::ofstream out("/sys/class/net/" + name + "/mode");
      out << profile::to_string(mode) << '\n';
      out.flush();
      if (!out) {
        throw BackendError(std::string(netlink_error.what()) + "; writing /sys/class/net/" + name +
                           "/mode failed too");
      }
    }
  }

  void set_mtu(const std::string& name, int mtu) override
  {
    connect();
    const std::string what = name + ": set mtu " + std::to_string(mtu);
    Msg msg(RTM_NEWLINK, 0, index_of(name, what));
    nla_put_u32(msg.get(), IFLA_MTU, static_cast<uint32_t>(mtu));
    send(msg, what, "");
  }

  void set_up(const std::string& name, bool up) override
  {
    connect();
    const std::string what = name + (up ? ": set up" : ": set down");
    Msg msg(RTM_NEWLINK, 0, index_of(name, what));
    auto* ifi = static_cast<ifinfomsg*>(nlmsg_data(nlmsg_hdr(msg.get())));
    ifi->ifi_change = IFF_UP;
    ifi->ifi_flags = up ? IFF_UP : 0;
    send(msg, what, "");
  }

  void add_address(const std::string& name, const IpPrefix& address) override
  {
    address_request(name, address, true);
  }

  void remove_address(const std::string& name, const IpPrefix& address) override
  {
    address_request(name, address, false);
  }

private:
  // An RTM_*LINK request with its ifinfomsg header.
  class Msg {
  public:
    Msg(int type, int flags, int ifindex) : m_msg(detail::link_request(type, flags, ifindex)) {}
    explicit Msg(nl_msg* adopt) : m_msg(adopt) {}
    ~Msg() { nlmsg_free(m_msg); }
    Msg(const Msg&) = delete;
    Msg& operator=(const Msg&) = delete;
    nl_msg* get() const { return m_msg; }

  private:
    nl_msg* m_msg = nullptr;
  };

  static std::string hex(uint16_t v)
  {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%04x", v);
    return buf;
  }

  // Interface indexes, from one link dump the first time one is needed: if_nametoindex is a
  // socket, an ioctl and a close for each of the hundreds of changes a large node applies.
  // A name the dump did not have (a child made since) is looked up on its own.
  int index_of(const std::string& name, const std::string& what)
  {
    if (!m_indexed) {
      m_indexed = true;
      try {
        for (const auto& r : inventory::make_netlink_netdev_source()->netdevs()) {
          m_index[r.netdev.name] = *r.netdev.ifindex;
        }
      } catch (const EnvironmentError&) {
        // if_nametoindex below answers, or names the interface that is missing.
      }
    }
    const auto it = m_index.find(name);
    if (it != m_index.end()) {
      return it->second;
    }
    const unsigned index = if_nametoindex(name.c_str());
    if (index == 0 && errno != ENODEV) {
      // Not a missing interface (ENODEV): if_nametoindex could not open its socket, and glibc
      // leaves the errno of its last attempt (ENOENT). A socket of our own says why (EMFILE).
      int why = errno;
      const int probe = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      if (probe < 0) {
        why = errno;
      } else {
        close(probe);
      }
      throw BackendError(what + ": cannot look up interface " + name + ": " + std::strerror(why));
    }
    if (index == 0) {
      throw BackendError(what + ": no interface " + name);
    }
    m_index[name] = static_cast<int>(index);
    return static_cast<int>(index);
  }

  // Sends the request and waits for the kernel's answer; throws with its errno text, and the
  // hint when the kernel's errno is one of hint_errors.
  void send(const Msg& msg, const std::string& what, const std::string& hint,
            std::initializer_list<int> hint_errors = {EOPNOTSUPP, ENODEV})
  {
    send_with(
        msg, what, [&hint] { return hint; }, hint_errors);
  }

  // The same, with a hint worked out only when the kernel refuses (it may read files).
  void send_with(const Msg& msg, const std::string& what,
                 const std::function<std::string()>& make_hint,
                 std::initializer_list<int> hint_errors)
  {
    const int refused = exchange(msg, what);
    if (refused != 0) {
      std::string message = what + ": the kernel refused: " + std::strerror(refused);
      if (std::find(hint_errors.begin(), hint_errors.end(), refused) != hint_errors.end()) {
        const std::string hint = make_hint();
        if (!hint.empty()) {
          message += " (" + hint + ")";
        }
      }
      throw BackendError(message);
    }
  }

  // Sends the request and waits for the answer: the kernel's errno when it refused, else 0.
  // Throws when the socket fails.
  int exchange(const Msg& msg, const std::string& what)
  {
    int err = nl_send_auto(m_sock, msg.get());
    if (err < 0) {
      throw BackendError(what + ": netlink send failed: " + nl_geterror(err));
    }
    AckState state;
    nl_cb* cb = nl_cb_alloc(NL_CB_DEFAULT);
    if (cb == nullptr) {
      throw BackendError(what + ": netlink: out of memory for the answer's callbacks");
    }
    nl_cb_err(cb, NL_CB_CUSTOM, on_error, &state);
    nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &state);
    err = nl_recvmsgs(m_sock, cb);
    nl_cb_put(cb);
    if (state.error != 0) {
      return -state.error;
    }
    if (err < 0) {
      throw BackendError(what + ": netlink: " + nl_geterror(err));
    }
    return 0;
  }

  void address_request(const std::string& name, const IpPrefix& address, bool add)
  {
    connect();
    const std::string what = name + (add ? ": add " : ": remove ") + address.str();
    const int index = index_of(name, what);
    const Msg msg(detail::address_request(add, index, address));
    if (!add && address.address.family == Family::ipv4) {
      send_with(msg, what, [&] { return peer_hint(name, index, address); }, {EADDRNOTAVAIL});
    } else if (add && address.address.family == Family::ipv6) {
      // The kernel answers a bare EACCES when IPv6 is switched off on the interface.
      send_with(msg, what, [&name] { return ipv6_disabled_hint(name); },
                {EACCES, EPERM, EAFNOSUPPORT});
    } else {
      send(msg, what, "");
    }
  }

  // Why the kernel found no such address: a point-to-point one (`ip address add L peer P`, by
  // a VPN or by hand) is found only by its peer, so the delete named the wrong address. It is
  // not removed by its peer: the rollback (LinkBackend::add_address) could not put the peer
  // back, and the kernel deletes the addresses of the peer's network with it (as secondaries),
  // which the plan does not know. Whoever set it up removes it; the apply changes nothing.
  static std::string peer_hint(const std::string& name, int index, const IpPrefix& address)
  {
    inventory::detail::Ipv4Bytes local{};
    std::copy_n(address.address.bytes.begin(), local.size(), local.begin());
    const auto peer = inventory::detail::ipv4_peer(index, local, address.length);
    if (!peer) {
      return "";
    }
    IpAddress p{};
    std::copy(peer->begin(), peer->end(), p.bytes.begin());
    return "a point-to-point address with peer " + p.str() +
           ", which ibsetup does not remove since a rollback could not restore its peer; remove "
           "it with: ip address del " +
           address.address.str() + " peer " + p.str() + "/" + std::to_string(address.length) +
           " dev " + name;
  }

  static std::string ipv6_disabled_hint(const std::string& name)
  {
    std::ifstream all("/proc/sys/net/ipv6/conf/all/disable_ipv6");
    if (!all) {
      return "IPv6 is disabled in this kernel (ipv6.disable=1 on the kernel command line?); "
             "declare no ipv6 for " +
             name;
    }
    // sysctl(8) writes the dot of a child's name (ib0.8001) as a slash.
    std::string key = name;
    std::replace(key.begin(), key.end(), '.', '/');
    key = "net.ipv6.conf." + key + ".disable_ipv6";
    std::ifstream own("/proc/sys/net/ipv6/conf/" + name + "/disable_ipv6");
    int disabled = 0;
    if (own >> disabled && disabled != 0) {
      return "IPv6 is disabled on " + name + ": sysctl " + key +
             " is 1; set it to 0 or declare no ipv6 for " + name;
    }
    return "is IPv6 disabled? see sysctl " + key;
  }

  // Every change starts here, before its message is built: the first one loads libnl-3
  // (nl_dl.hpp) and connects, so that an empty plan does neither. It is the first step of any
  // apply, so a failure here still changed nothing; it is an EnvironmentError, which
  // apply_plan passes on without a rollback.
  void connect()
  {
    if (m_sock != nullptr) {
      return;
    }
    if (const std::string why = os::nl_load_error(); !why.empty()) {
      throw EnvironmentError("netlink: " + why + " (nothing was changed)");
    }
    m_sock = nl_socket_alloc();
    if (m_sock == nullptr) {
      throw EnvironmentError("netlink: cannot allocate a socket (nothing was changed)");
    }
    const int err = nl_connect(m_sock, NETLINK_ROUTE);
    if (err < 0) {
      nl_socket_free(m_sock);
      m_sock = nullptr;
      throw EnvironmentError(std::string("netlink: cannot connect: ") + nl_geterror(err) +
                             " (nothing was changed)");
    }
    // An ack is far smaller than a page: without this libnl peeks at every answer first,
    // two recvmsg calls per change.
    nl_socket_disable_msg_peek(m_sock);
  }

  nl_sock* m_sock = nullptr;
  bool m_indexed = false;
  std::map<std::string, int> m_index;
};

}  // namespace

std::unique_ptr<LinkBackend> make_netlink_backend()
{
  return std::make_unique<NetlinkBackend>();
}

}  // namespace ibsetup::apply
