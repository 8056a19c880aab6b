#include "os/netlink_attrs.hpp"

namespace ibsetup::os::nl {

void parse(const void* head, size_t length, const nlattr** table, int max_type)
{
  const auto* p = static_cast<const char*>(head);
  size_t remaining = length;
  while (remaining >= sizeof(nlattr)) {
    nlattr a;
    std::memcpy(&a, p, sizeof a);
    if (a.nla_len < sizeof(nlattr) || a.nla_len > remaining) {
      return;
    }
    const int type = a.nla_type & NLA_TYPE_MASK;
    if (type <= max_type) {
      table[type] = reinterpret_cast<const nlattr*>(p);
    }
    const size_t step = NLA_ALIGN(a.nla_len);
    if (step >= remaining) {
      return;
    }
    p += step;
    remaining -= step;
  }
}

bool parse_message(const nlmsghdr* message, size_t header_size, const nlattr** table, int max_type)
{
  if (message->nlmsg_len < NLMSG_LENGTH(header_size)) {
    return false;
  }
  const size_t offset = NLMSG_HDRLEN + NLMSG_ALIGN(header_size);
  if (message->nlmsg_len > offset) {
    parse(reinterpret_cast<const char*>(message) + offset, message->nlmsg_len - offset, table,
          max_type);
  }
  return true;
}

void parse_nested(const nlattr* nested, const nlattr** table, int max_type)
{
  parse(data(nested), length(nested), table, max_type);
}

}  // namespace ibsetup::os::nl
