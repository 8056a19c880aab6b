#include "plan/addresses.hpp"

#include <algorithm>
#include <iterator>

namespace ibsetup::plan::detail {

using inventory::Netdev;
using profile::ResolvedInterface;

bool is_link_local(const IpPrefix& p)
{
  return p.address.family == Family::ipv6 && p.address.bytes[0] == 0xfe &&
         (p.address.bytes[1] & 0xc0U) == 0x80U;
}

std::vector<IpPrefix> global_ipv6(const Netdev* n)
{
  std::vector<IpPrefix> out;
  if (n != nullptr) {
    std::copy_if(
        n->addresses.begin(), n->addresses.end(), std::back_inserter(out),
        [](const IpPrefix& h) { return h.address.family == Family::ipv6 && !is_link_local(h); });
  }
  return out;
}

// The global IPv6 addresses an interface holds when it goes up: a rollback that takes it
// down again makes the kernel flush them (keep_addr_on_down is 0 by default), so they are
// added back after, those it had before apply and those apply added alike.
std::vector<IpPrefix> ipv6_before_up(const std::vector<Action>& planned, const std::string& ifname,
                                     const Netdev* n)
{
  std::vector<IpPrefix> out = global_ipv6(n);
  for (const auto& a : planned) {
    if (a.ifname != ifname || !a.address || a.address->address.family != Family::ipv6) {
      continue;
    }
    if (a.kind == ActionKind::remove_address) {
      out.erase(std::remove(out.begin(), out.end(), *a.address), out.end());
    } else if (a.kind == ActionKind::add_address) {
      out.push_back(*a.address);
    }
  }
  return out;
}

std::vector<Action> address_actions(const ResolvedInterface& d, const Netdev* n)
{
  std::vector<Action> out;
  std::vector<IpPrefix> wanted;
  for (const auto& a : {d.ipv4, d.ipv6}) {
    if (a) {
      wanted.push_back(*a);
    }
  }
  const std::vector<IpPrefix> have = n != nullptr ? n->addresses : std::vector<IpPrefix>();
  std::vector<bool> removed(have.size());
  for (size_t i = 0; i < have.size(); ++i) {
    // A family the profile gives no address for is left alone: nothing outside the profile
    // is touched. IPv6 link-local addresses belong to the kernel.
    const auto& h = have[i];
    const bool managed = h.address.family == Family::ipv4 ? d.ipv4.has_value() : d.ipv6.has_value();
    removed[i] =
        managed && !is_link_local(h) && std::find(wanted.begin(), wanted.end(), h) == wanted.end();
  }
  // The kernel lists a subnet's primary IPv4 address before its secondaries, and deleting the
  // primary deletes them too (promote_secondaries is 0 by default). So removals go in reverse,
  // secondaries before their primary (a rollback then adds them back in the kernel's order),
  // and a wanted secondary of a primary that goes is removed and added back: left in place
  // it would vanish with the primary.
  std::vector<bool> secondary(have.size());
  std::vector<IpPrefix> readd;
  for (size_t i = 0; i < have.size(); ++i) {
    for (size_t j = 0; j < i && have[i].address.family == Family::ipv4; ++j) {
      if (have[j].address.family == Family::ipv4 && !secondary[j] &&
          have[j].length == have[i].length && have[j].network() == have[i].network()) {
        secondary[i] = true;
        if (removed[j] && !removed[i]) {
          removed[i] = true;
          readd.push_back(have[i]);
        }
        break;
      }
    }
  }
  for (size_t i = have.size(); i-- > 0;) {
    if (removed[i]) {
      Action a;
      a.kind = ActionKind::remove_address;
      a.ifname = d.name;
      a.address = have[i];
      out.push_back(std::move(a));
    }
  }
  for (const auto& w : wanted) {
    if (std::find(have.begin(), have.end(), w) == have.end() ||
        std::find(readd.begin(), readd.end(), w) != readd.end()) {
      Action a;
      a.kind = ActionKind::add_address;
      a.ifname = d.name;
      a.address = w;
      out.push_back(std::move(a));
    }
  }
  return out;
}

}  // namespace ibsetup::plan::detail
