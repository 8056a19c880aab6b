// The cluster-wide address rules. This walks every interface of every host (40,000 for a
// 10,000-node profile), so it keeps per-host work free of string building: owners are
// pointers, and messages are only made for problems.
#include "profile/merge.hpp"
#include "profile/validate.hpp"

#include <unordered_map>
#include <vector>

namespace ibsetup::profile::detail {

namespace {

struct Owner {
  const std::string* host = nullptr;
  const InterfaceSpec* spec = nullptr;
  const InterfaceSpec* over = nullptr;  // set when the address came from a host override
  bool v4 = true;

  const char* key() const { return v4 ? "ipv4" : "ipv6"; }
  const InterfaceSpec& origin() const { return over != nullptr ? *over : *spec; }
  std::string path() const { return origin().path + "." + key(); }
  Mark mark() const { return (v4 ? origin().ipv4 : origin().ipv6).mark; }
  std::string where_from() const { return where(path(), mark()); }
};

struct AddressHash {
  size_t operator()(const IpAddress& a) const
  {
    size_t h = static_cast<size_t>(a.family);
    for (const auto b : a.bytes) {
      h = h * 131 + b;
    }
    return h;
  }
};

constexpr size_t k_max_duplicate_reports = 20;

class AddressChecker {
public:
  AddressChecker(const Profile& profile, Diagnostics& diags) : m_profile(profile), m_diags(diags) {}

  void run()
  {
    size_t total = 0;
    for (const auto& g : m_profile.groups) {
      total += g.hosts.size() * g.interfaces.size();
    }
    m_owners.reserve(total);
    check_defaults();
    for (const auto& g : m_profile.groups) {
      for (const auto& spec : g.interfaces) {
        check_mtu(m_profile, spec, nullptr, m_mtu_reported, m_diags);
      }
      for (size_t pos = 1; pos <= g.hosts.size(); ++pos) {
        check_host(g, g.hosts[pos - 1], pos);
      }
    }
    if (m_duplicates > k_max_duplicate_reports) {
      m_diags.error({}, "",
                    std::to_string(m_duplicates - k_max_duplicate_reports) +
                        " more duplicate addresses not shown (groups sharing a pool need " +
                        "distinct ipv4_offset/ipv6_offset values)");
    }
  }

private:
  void check_defaults()
  {
    const Defaults& d = m_profile.defaults;
    if (d.mode && *d.mode == Mode::datagram && d.mtu && *d.mtu > k_datagram_mtu_max) {
      m_mtu_reported.insert(
          {d.mtu.mark.line, d.mtu.mark.column, d.mode.mark.line, d.mode.mark.column});
      m_diags.error(d.mtu.mark, "defaults.mtu",
                    std::to_string(*d.mtu) + " is above " + std::to_string(k_datagram_mtu_max) +
                        ", the datagram-mode maximum (4K IB MTU - 4); defaults.mode is datagram");
    }
  }

  void check_host(const Group& g, const std::string& host, size_t pos)
  {
    const HostOverride* overrides = find_host_override(m_profile, host);
    m_mine.clear();
    for (const auto& spec : g.interfaces) {
      if (!spec.name) {
        continue;
      }
      const InterfaceSpec* over = find_override(overrides, *spec.name);
      if (over != nullptr) {
        check_mtu(m_profile, spec, over, m_mtu_reported, m_diags);
      }
      for (const bool v4 : {true, false}) {
        const auto addr = interface_address(spec, over, pos, v4);
        if (!addr) {
          continue;
        }
        const bool from_override = over != nullptr && (v4 ? over->ipv4 : over->ipv6);
        const Owner me{&host, &spec, from_override ? over : nullptr, v4};
        check_unique(*addr, me);
        check_overlap(*addr, me);
        m_mine.emplace_back(*addr, me);
      }
    }
  }

  void check_unique(const IpPrefix& addr, const Owner& me)
  {
    const auto [it, fresh] = m_owners.emplace(addr.address, me);
    if (fresh || ++m_duplicates > k_max_duplicate_reports) {
      return;
    }
    const Owner& first = it->second;
    m_diags.error(me.mark(), me.path(),
                  addr.address.str() + " for " + *me.host + " " + *me.spec->name +
                      " is also assigned to " + *first.host + " " + *first.spec->name + " (" +
                      first.where_from() + ")");
  }

  void check_overlap(const IpPrefix& addr, const Owner& me)
  {
    for (const auto& [other, who] : m_mine) {
      if (other.address.family != addr.address.family || !other.overlaps(addr)) {
        continue;
      }
      const Mark a = who.mark();
      const Mark b = me.mark();
      if (!m_overlap_reported.insert({a.line, a.column, b.line, b.column}).second) {
        continue;
      }
      m_diags.error(b, me.path(),
                    *me.host + ": " + *me.spec->name + " " + addr.str() + " overlaps " +
                        *who.spec->name + " " + other.str() + " (" + who.where_from() +
                        "); two interfaces of one host need separate subnets");
    }
  }

  const Profile& m_profile;
  Diagnostics& m_diags;
  std::unordered_map<IpAddress, Owner, AddressHash> m_owners;
  std::vector<std::pair<IpPrefix, Owner>> m_mine;  // this host's addresses so far
  std::set<MarkKey> m_overlap_reported;
  std::set<MarkKey> m_mtu_reported;
  size_t m_duplicates = 0;
};

}  // namespace

std::string unusable_range(const IpPrefix& prefix, bool pool)
{
  if (prefix.length == 0) {
    return "is a /0: the whole address space, not a subnet of host addresses";
  }
  struct Range {
    Family family;
    const char* text;
    const char* what;
    IpPrefix prefix;
  };
  // Ranges that never hold a unicast host address on an IPoIB interface: the kernel or
  // NetworkManager refuses them, or they would not route. Parsed once: this runs for every
  // address of the profile.
  static const std::vector<Range> k_ranges = [] {
    std::vector<Range> ranges = {
        {Family::ipv4, "0.0.0.0/8", "unspecified (\"this network\")", {}},
        {Family::ipv4, "127.0.0.0/8", "loopback", {}},
        {Family::ipv4, "169.254.0.0/16", "link-local", {}},
        {Family::ipv4, "224.0.0.0/4", "multicast", {}},
        {Family::ipv6, "::/128", "unspecified", {}},
        {Family::ipv6, "::1/128", "loopback", {}},
        {Family::ipv6, "fe80::/10", "link-local", {}},
        {Family::ipv6, "ff00::/8", "multicast", {}},
    };
    for (auto& r : ranges) {
      r.prefix = *IpPrefix::parse(r.text, r.family, nullptr);
    }
    return ranges;
  }();
  for (const auto& r : k_ranges) {
    if (r.family != prefix.address.family) {
      continue;
    }
    // A pool must stay clear of the range; an exact address must only lie outside it.
    const bool hit = pool ? r.prefix.overlaps(prefix) : r.prefix.contains(prefix.address);
    if (hit) {
      return std::string(pool ? "overlaps " : "is in ") + r.text + ", the " + r.what +
             " range; host addresses cannot come from it";
    }
  }
  return {};
}

void check_addresses(const Profile& profile, Diagnostics& diags)
{
  AddressChecker(profile, diags).run();
}

}  // namespace ibsetup::profile::detail
