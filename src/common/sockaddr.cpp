#include "common/sockaddr.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>

namespace ibsetup {

sockaddr_storage to_sockaddr(const IpAddress& address, uint16_t port)
{
  sockaddr_storage ss{};
  if (address.family == Family::ipv4) {
    auto* sin = reinterpret_cast<sockaddr_in*>(&ss);
    sin->sin_family = AF_INET;
    sin->sin_port = htons(port);
    std::memcpy(&sin->sin_addr, address.bytes.data(), 4);
  } else {
    auto* sin6 = reinterpret_cast<sockaddr_in6*>(&ss);
    sin6->sin6_family = AF_INET6;
    sin6->sin6_port = htons(port);
    std::memcpy(&sin6->sin6_addr, address.bytes.data(), 16);
  }
  return ss;
}

socklen_t sockaddr_length(const sockaddr_storage& address)
{
  return address.ss_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
}

std::string sockaddr_text(const sockaddr* address)
{
  char buf[INET6_ADDRSTRLEN] = "?";
  if (address == nullptr) {
    return buf;
  }
  if (address->sa_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(address)->sin_addr, buf, sizeof buf);
  } else if (address->sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr, buf,
              sizeof buf);
  }
  return buf;
}

}  // namespace ibsetup
