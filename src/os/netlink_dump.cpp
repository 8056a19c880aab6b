#include "os/netlink_dump.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

namespace ibsetup::inventory::detail {

namespace {

class Socket {
public:
  Socket() : m_fd(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE)) {}
  ~Socket()
  {
    if (m_fd >= 0) {
      close(m_fd);
    }
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return m_fd; }

private:
  int m_fd;
};

// The kernel fills a dump datagram up to the reader's buffer, capped at 32 KiB less the skb
// overhead (netlink_recvmsg), so a datagram never exceeds this; MSG_TRUNC says if one did.
constexpr size_t k_buffer_size = 32768;
// NLMSG_HDRLEN without its C cast (nlmsghdr is 16 bytes, already aligned).
constexpr size_t k_header_size = NLMSG_ALIGN(sizeof(nlmsghdr));

}  // namespace

std::string DumpResult::describe() const
{
  if (error != 0) {
    return std::strerror(-error);
  }
  return interrupted ? "the table changed during the dump, three times" : "success";
}

DumpResult netlink_dump(nlmsghdr* request, const std::function<void(const nlmsghdr*)>& each)
{
  DumpResult result;
  const Socket sock;
  if (sock.fd() < 0) {
    result.error = -errno;
    return result;
  }
  request->nlmsg_flags |= NLM_F_REQUEST | NLM_F_DUMP;
  request->nlmsg_seq = 1;
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (sendto(sock.fd(), request, request->nlmsg_len, 0, reinterpret_cast<sockaddr*>(&kernel),
             sizeof kernel) < 0) {
    result.error = -errno;
    return result;
  }
  alignas(nlmsghdr) std::array<char, k_buffer_size> buffer;
  for (;;) {
    const ssize_t got = recv(sock.fd(), buffer.data(), buffer.size(), MSG_TRUNC);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got < 0) {
      result.error = -errno;
      return result;
    }
    const auto length = static_cast<size_t>(got);
    if (length > buffer.size()) {
      result.error = -EMSGSIZE;
      return result;
    }
    for (size_t offset = 0; offset < length;) {
      const auto* message = reinterpret_cast<const nlmsghdr*>(buffer.data() + offset);
      if (length - offset < sizeof(nlmsghdr) || message->nlmsg_len < sizeof(nlmsghdr) ||
          message->nlmsg_len > length - offset) {
        result.error = -EBADMSG;
        return result;
      }
      const char* data = buffer.data() + offset + k_header_size;
      offset += NLMSG_ALIGN(message->nlmsg_len);
      if (message->nlmsg_seq != request->nlmsg_seq) {
        continue;  // not an answer to this request
      }
      if ((message->nlmsg_flags & NLM_F_DUMP_INTR) != 0) {
        result.interrupted = true;
      }
      const size_t payload = message->nlmsg_len - k_header_size;
      if (message->nlmsg_type == NLMSG_DONE) {
        // A dump that failed part way says so in NLMSG_DONE's payload (netlink_dump_done).
        int error = 0;
        if (payload >= sizeof error) {
          std::memcpy(&error, data, sizeof error);
        }
        result.error = error < 0 ? error : 0;
        return result;
      }
      if (message->nlmsg_type == NLMSG_ERROR) {
        nlmsgerr error{};
        if (payload < sizeof error) {
          result.error = -EBADMSG;
          return result;
        }
        std::memcpy(&error, data, sizeof error);
        if (error.error != 0) {
          result.error = error.error < 0 ? error.error : -EPROTO;
          return result;
        }
        continue;
      }
      if (message->nlmsg_type >= NLMSG_MIN_TYPE) {
        each(message);
      }
    }
  }
}

}  // namespace ibsetup::inventory::detail
