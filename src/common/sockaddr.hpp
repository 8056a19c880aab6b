// IP addresses as the socket API wants them: the one conversion the ICMP prober, the rdma_cm
// client and the responder share.
#pragma once

#include <ibsetup/address.hpp>

#include <sys/socket.h>

#include <cstdint>
#include <string>

namespace ibsetup {

// The address as a sockaddr_in or sockaddr_in6 with the port in network byte order (0 unless
// given).
sockaddr_storage to_sockaddr(const IpAddress& address, uint16_t port = 0);

// The length of the sockaddr_in or sockaddr_in6 that to_sockaddr() made, for sendto/bind.
socklen_t sockaddr_length(const sockaddr_storage& address);

// A socket address as text ("10.10.0.64", "fd00::40"); "?" for other families or null.
std::string sockaddr_text(const sockaddr* address);

}  // namespace ibsetup
