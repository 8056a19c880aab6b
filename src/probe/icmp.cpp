// IP connectivity to peers: ICMP echo to each peer's address on each shared interface, sent
// out of that interface (SO_BINDTODEVICE, so a reply through another rail does not count),
// all probes in parallel in one poll loop, each with its own deadline. No ping process.
#include "common/sockaddr.hpp"

#include <ibsetup/check.hpp>

#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace ibsetup::check {

namespace {

using Clock = std::chrono::steady_clock;

struct Probe {
  std::string peer;
  std::string ifname;
  IpAddress address;
  int fd = -1;
  bool raw = false;
  uint16_t id = 0;
  uint16_t seq = 0;
  bool done = false;
  Clock::time_point sent;
  Clock::time_point first_sent;
  std::vector<Clock::time_point> sends;  // by sequence number - 1: a late reply's own RTT
};

uint16_t checksum(const unsigned char* data, size_t len)
{
  uint32_t sum = 0;
  for (size_t i = 0; i + 1 < len; i += 2) {
    sum += static_cast<uint32_t>(data[i] << 8U | data[i + 1]);
  }
  if (len % 2 != 0) {
    sum += static_cast<uint32_t>(data[len - 1] << 8U);
  }
  while (sum >> 16U != 0) {
    sum = (sum & 0xffffU) + (sum >> 16U);
  }
  return static_cast<uint16_t>(~sum);
}

std::string open_socket(Probe& p)
{
  const bool v6 = p.address.family == Family::ipv6;
  const int domain = v6 ? AF_INET6 : AF_INET;
  const int proto = v6 ? static_cast<int>(IPPROTO_ICMPV6) : static_cast<int>(IPPROTO_ICMP);
  // Unprivileged ping sockets when net.ipv4.ping_group_range allows, raw sockets otherwise.
  p.fd = socket(domain, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);
  if (p.fd < 0) {
    p.fd = socket(domain, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);
    p.raw = true;
  }
  if (p.fd < 0) {
    return std::string("cannot open an ICMP socket: ") + std::strerror(errno) +
           " (needs CAP_NET_RAW or net.ipv4.ping_group_range)";
  }
  if (setsockopt(p.fd, SOL_SOCKET, SO_BINDTODEVICE, p.ifname.c_str(),
                 static_cast<socklen_t>(p.ifname.size())) != 0) {
    const bool perm = errno == EPERM;
    return "cannot send through " + p.ifname + ": " + std::strerror(errno) +
           (perm ? " (before Linux 5.7 binding to an interface needs CAP_NET_RAW: run check as "
                   "root)"
                 : "");
  }
  return "";
}

std::string send_echo(Probe& p)
{
  unsigned char pkt[24] = {};
  const bool v6 = p.address.family == Family::ipv6;
  pkt[0] = v6 ? ICMP6_ECHO_REQUEST : ICMP_ECHO;
  pkt[4] = static_cast<unsigned char>(p.id >> 8U);
  pkt[5] = static_cast<unsigned char>(p.id & 0xffU);
  ++p.seq;
  pkt[6] = static_cast<unsigned char>(p.seq >> 8U);
  pkt[7] = static_cast<unsigned char>(p.seq & 0xffU);
  std::memcpy(pkt + 8, "ibsetup check   ", 16);
  if (!v6) {
    const uint16_t sum = checksum(pkt, sizeof pkt);
    pkt[2] = static_cast<unsigned char>(sum >> 8U);
    pkt[3] = static_cast<unsigned char>(sum & 0xffU);
  }
  const sockaddr_storage to = to_sockaddr(p.address);
  const socklen_t len = sockaddr_length(to);
  p.sent = Clock::now();
  p.sends.push_back(p.sent);
  if (sendto(p.fd, pkt, sizeof pkt, 0, reinterpret_cast<const sockaddr*>(&to), len) < 0 &&
      errno != EAGAIN) {
    return std::strerror(errno);
  }
  return "";
}

std::string ms(Clock::duration d)
{
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", std::chrono::duration<double, std::milli>(d).count());
  return buf;
}

// The sequence number of the echo reply to p read from p.fd, or 0 when the datagram is
// something else (or nothing was queued).
uint16_t read_reply(Probe& p)
{
  unsigned char buf[1500];
  sockaddr_storage from{};
  socklen_t from_len = sizeof from;
  const ssize_t n =
      recvfrom(p.fd, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &from_len);
  if (n <= 0) {
    return 0;
  }
  size_t off = 0;
  const bool v6 = p.address.family == Family::ipv6;
  if (p.raw && !v6) {
    off = static_cast<size_t>(buf[0] & 0x0fU) * 4;  // raw IPv4 sockets include the IP header
  }
  if (static_cast<size_t>(n) < off + 8) {
    return 0;
  }
  const unsigned char* icmp = buf + off;
  if (icmp[0] != (v6 ? ICMP6_ECHO_REPLY : ICMP_ECHOREPLY)) {
    return 0;
  }
  const std::string text = sockaddr_text(reinterpret_cast<const sockaddr*>(&from));
  const uint16_t id = static_cast<uint16_t>(icmp[4] << 8U | icmp[5]);
  const uint16_t seq = static_cast<uint16_t>(icmp[6] << 8U | icmp[7]);
  // Ping sockets rewrite the identifier and demultiplex by it; raw ones see every reply.
  const bool ours = p.address.str() == text && (!p.raw || id == p.id);
  return ours && seq >= 1 && seq <= p.seq ? seq : 0;
}

// Marks p answered when a reply to it is queued; the RTT is that of the request answered.
bool take_reply(Probe& p, Result& result, const std::string& expected)
{
  uint16_t seq = 0;
  // Several datagrams may be queued (a raw socket sees every echo reply on the interface).
  for (int k = 0; k < 16 && seq == 0; ++k) {
    errno = 0;
    seq = read_reply(p);
    if (seq == 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return false;
    }
  }
  if (seq == 0) {
    return false;
  }
  p.done = true;
  const auto sent = seq <= p.sends.size() ? p.sends[seq - 1] : p.sent;
  const std::string rtt = ms(Clock::now() - sent);
  result = {"ip.peer",
            p.peer,
            Status::pass,
            expected,
            "reply in " + rtt + " via " + p.ifname,
            p.peer + ": " + p.address.str() + " via " + p.ifname + " replied in " + rtt,
            {},
            {}};
  return true;
}

}  // namespace

std::vector<Result> check_ip_peers(const profile::ResolvedNode& node, int deadline_ms)
{
  std::vector<Probe> probes;
  std::vector<Result> unprobed;
  for (const auto& peer : node.peers) {
    if (peer.addresses.empty()) {
      // Asked for and not checked must not look like checked: most likely the profile gives
      // the two hosts no IPoIB network in common.
      unprobed.push_back({"ip.peer",
                          peer.host,
                          Status::warn,
                          "an interface in common",
                          "none",
                          peer.host + ": no IPoIB interface with an address in common with " +
                              node.host + "; nothing to probe",
                          {},
                          {}});
    }
    for (const auto& [ifname, prefix] : peer.addresses) {
      Probe p;
      p.peer = peer.host;
      p.ifname = ifname;
      p.address = prefix.address;
      p.id = static_cast<uint16_t>((getpid() + probes.size()) & 0xffffU);
      probes.push_back(std::move(p));
    }
  }
  std::vector<Result> out(probes.size());
  const auto deadline = std::chrono::milliseconds(deadline_ms);
  const auto resend = deadline / 4;
  const std::string expected = "echo reply within " + std::to_string(deadline_ms) + " ms";
  for (size_t i = 0; i < probes.size(); ++i) {
    Probe& p = probes[i];
    out[i] = {"ip.peer", p.peer, Status::fail, expected, "", "", {}, {}};
    std::string error = open_socket(p);
    p.first_sent = Clock::now();
    if (error.empty()) {
      error = send_echo(p);
    }
    if (!error.empty()) {
      out[i].observed = error;
      out[i].message = p.peer + ": " + p.address.str() + " via " + p.ifname + ": " + error;
      p.done = true;
    }
  }
  const auto start = Clock::now();
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<size_t> which;
    for (size_t i = 0; i < probes.size(); ++i) {
      if (!probes[i].done) {
        fds.push_back({probes[i].fd, POLLIN, 0});
        which.push_back(i);
      }
    }
    const auto now = Clock::now();
    if (fds.empty() || now - start >= deadline) {
      break;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - (now - start));
    const auto wait = std::min(left, std::chrono::duration_cast<std::chrono::milliseconds>(resend));
    poll(fds.data(), fds.size(), static_cast<int>(wait.count()) + 1);
    for (size_t k = 0; k < fds.size(); ++k) {
      Probe& p = probes[which[k]];
      const bool answered =
          (fds[k].revents & POLLIN) != 0 && take_reply(p, out[which[k]], expected);
      if (!answered && Clock::now() - p.sent >= resend) {
        send_echo(p);
      }
    }
  }
  for (size_t i = 0; i < probes.size(); ++i) {
    Probe& p = probes[i];
    if (!p.done && p.fd >= 0) {
      take_reply(p, out[i], expected);  // a reply that arrived just as the deadline passed
    }
    if (!p.done) {
      out[i].observed = "no reply";
      out[i].message = p.peer + ": no echo reply from " + p.address.str() + " via " + p.ifname +
                       " within " + std::to_string(deadline_ms) + " ms";
    }
    if (p.fd >= 0) {
      close(p.fd);
    }
  }
  out.insert(out.end(), unprobed.begin(), unprobed.end());
  return out;
}

}  // namespace ibsetup::check
