// One rtnetlink dump over a plain socket, read with a single recv per datagram: libnl peeks at
// every datagram first (MSG_PEEK, then the real read) and copies each message into an nl_msg,
// which a no-op apply paid for twice (links and addresses; issue 15).
#pragma once

#include <linux/netlink.h>

#include <functional>
#include <string>

namespace ibsetup::inventory::detail {

struct DumpResult {
  int error = 0;             // a negative errno: the socket's, or the kernel's NLMSG_ERROR
  bool interrupted = false;  // NLM_F_DUMP_INTR: the table changed under the dump; read again
  bool ok() const { return error == 0 && !interrupted; }
  std::string describe() const;
};

// Sends request (a header and its body; NLM_F_REQUEST | NLM_F_DUMP are added) and hands every
// answer that is not NLMSG_DONE/ERROR/NOOP to each. A datagram whose framing is broken (a length
// running past what was received) ends the dump with -EBADMSG; each's message is complete
// within its nlmsg_len, which each must check its own contents against.
DumpResult netlink_dump(nlmsghdr* request, const std::function<void(const nlmsghdr*)>& each);

}  // namespace ibsetup::inventory::detail
