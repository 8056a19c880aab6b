// Interface addresses over rtnetlink (libnl-route): the only inventory code that includes libnl.
#include <ibsetup/error.hpp>
#include <ibsetup/inventory.hpp>

#include <netlink/cache.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>

namespace ibsetup::inventory {

namespace {

class NetlinkAddresses : public AddressSource {
public:
  std::map<int, std::vector<std::string>> addresses() override
  {
    std::map<int, std::vector<std::string>> out;
    nl_sock* sock = nl_socket_alloc();
    if (sock == nullptr) {
      throw EnvironmentError("netlink: cannot allocate a socket");
    }
    nl_cache* cache = nullptr;
    int err = nl_connect(sock, NETLINK_ROUTE);
    if (err == 0) {
      err = rtnl_addr_alloc_cache(sock, &cache);
    }
    if (err < 0) {
      nl_socket_free(sock);
      throw EnvironmentError(std::string("netlink: cannot read addresses: ") + nl_geterror(err));
    }
    for (nl_object* obj = nl_cache_get_first(cache); obj != nullptr; obj = nl_cache_get_next(obj)) {
      auto* addr = reinterpret_cast<rtnl_addr*>(obj);
      nl_addr* local = rtnl_addr_get_local(addr);
      if (local == nullptr) {
        continue;
      }
      char buf[128];
      std::string text = nl_addr2str(local, buf, sizeof buf);
      if (text.find('/') == std::string::npos) {
        text += "/" + std::to_string(rtnl_addr_get_prefixlen(addr));
      }
      out[rtnl_addr_get_ifindex(addr)].push_back(text);
    }
    nl_cache_free(cache);
    nl_socket_free(sock);
    return out;
  }
};

}  // namespace

std::unique_ptr<AddressSource> make_netlink_address_source()
{
  return std::make_unique<NetlinkAddresses>();
}

}  // namespace ibsetup::inventory
