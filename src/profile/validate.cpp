#include "profile/validate.hpp"

#include "common/strings.hpp"
#include "profile/merge.hpp"
#include "profile/reader.hpp"

#include <ibsetup/hostlist.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_map>
#include <set>
#include <tuple>

namespace ibsetup::profile::detail {

namespace {

std::string at_line(Mark m)
{
  return m.line > 0 ? " (line " + std::to_string(m.line) + ")" : std::string();
}

// Adds size to the profile's running totals; false (with an error at the group) when that
// goes over the limits.
bool within_limits(const HostlistSize& size, unsigned long long& hosts, unsigned long long& bytes,
                   const Limits& limits, const std::string& path, Mark m, Diagnostics& diags)
{
  const auto count = [](unsigned long long n) {
    return n == ~0ULL ? std::string("more than 18446744073709551614") : std::to_string(n);
  };
  const auto before = [&](unsigned long long n, const char* what) {
    return n == 0 ? std::string() : " after " + count(n) + " " + what + " in the groups before it";
  };
  const unsigned long long new_hosts = size.hosts > ~0ULL - hosts ? ~0ULL : hosts + size.hosts;
  const unsigned long long new_bytes = size.bytes > ~0ULL - bytes ? ~0ULL : bytes + size.bytes;
  if (new_hosts > limits.max_hosts) {
    diags.error(m, path,
                "expands to " + count(size.hosts) + " hosts" + before(hosts, "hosts") +
                    "; a profile lists at most " + std::to_string(limits.max_hosts) +
                    " hosts in all its groups");
    return false;
  }
  if (new_bytes > limits.max_host_bytes) {
    diags.error(m, path,
                "expands to host names of " + count(size.bytes) + " bytes" +
                    before(bytes, "bytes") + "; a profile's host names hold at most " +
                    std::to_string(limits.max_host_bytes >> 20U) + " MiB in all its groups");
    return false;
  }
  hosts = new_hosts;
  bytes = new_bytes;
  return true;
}

void expand_groups(Profile& profile, const Limits& limits, Diagnostics& diags)
{
  unsigned long long hosts = 0;  // of the groups so far, against the limits
  unsigned long long bytes = 0;
  bool over_limit = false;  // reported once; later groups are not expanded
  std::unordered_map<std::string, std::pair<size_t, Mark>> first_seen;
  for (size_t gi = 0; gi < profile.groups.size(); ++gi) {
    std::map<size_t, std::vector<std::string>> clashes;  // other group -> shared hosts
    Group& g = profile.groups[gi];
    if (!g.hosts_expression) {
      continue;
    }
    const Mark m = g.hosts_expression.mark;
    const std::string& expression = *g.hosts_expression;
    // A long expression is shown cut short: the message is about its start.
    const std::string shown =
        expression.size() <= 80 ? expression : expression.substr(0, 60) + "...";
    try {
      // Measured before anything is expanded: the limits are for the whole profile.
      const HostlistSize size = measure_hostlist(expression);
      if (!over_limit) {
        over_limit = !within_limits(size, hosts, bytes, limits, g.path + ".hosts", m, diags);
      }
      if (over_limit) {
        continue;
      }
      g.hosts = expand_hostlist(expression, limits.max_hosts);
    } catch (const HostlistError& e) {
      const Mark at{m.line, m.column + g.hosts_quote + static_cast<int>(e.offset())};
      diags.error(at, g.path + ".hosts", "malformed hostlist '" + shown + "': " + e.what());
      continue;
    }
    for (const auto& host : g.hosts) {
      auto [it, fresh] = first_seen.emplace(host, std::make_pair(gi, m));
      if (fresh) {
        profile.group_of_host.emplace(host, gi);
      } else if (it->second.first == gi) {
        diags.error(m, g.path + ".hosts", "host '" + host + "' is listed twice in this group");
      } else {
        clashes[it->second.first].push_back(host);
      }
    }
    for (const auto& [other_index, shared] : clashes) {
      const Group& other = profile.groups[other_index];
      std::string names;
      for (size_t i = 0; i < shared.size() && i < 3; ++i) {
        names += (i > 0 ? ", " : "") + shared[i];
      }
      if (shared.size() > 3) {
        names += " and " + std::to_string(shared.size() - 3) + " more";
      }
      diags.error(m, g.path + ".hosts",
                  std::string(shared.size() == 1 ? "host " : "hosts ") + names +
                      (shared.size() == 1 ? " is" : " are") + " also in " + other.path + " ('" +
                      where(*other.hosts_expression + "'", other.hosts_expression.mark) +
                      "); a host belongs to exactly one group");
    }
  }
}

// Four hex digits after the last dot, as in ib0.8001.
bool looks_like_child(const std::string& name, std::string* parent, std::string* suffix)
{
  const auto dot = name.rfind('.');
  if (dot == std::string::npos || dot == 0 || name.size() - dot - 1 != 4) {
    return false;
  }
  for (size_t i = dot + 1; i < name.size(); ++i) {
    if (std::isxdigit(static_cast<unsigned char>(name[i])) == 0) {
      return false;
    }
  }
  *parent = name.substr(0, dot);
  *suffix = name.substr(dot + 1);
  return true;
}

void check_interface_names(Group& g, Diagnostics& diags)
{
  for (auto& spec : g.interfaces) {
    if (spec.broken) {
      continue;
    }
    if (spec.pkey && !spec.parent) {
      diags.error(spec.pkey.mark, spec.path + ".pkey",
                  "a pkey child needs 'parent' (the base interface, e.g. ib0)");
      continue;
    }
    if (spec.parent && !spec.pkey) {
      diags.error(spec.parent.mark, spec.path + ".parent",
                  "a pkey child needs 'pkey' (e.g. 0x8001) besides its parent");
      continue;
    }
    if (spec.parent && spec.pkey) {
      const std::string expected = *spec.parent + "." + util::hex16(*spec.pkey).substr(2);
      if (!spec.name) {
        const auto problem = interface_name_problem(expected);
        if (!problem.empty()) {
          diags.error(spec.mark, spec.path, "derived child name: " + problem);
          continue;
        }
        spec.name = {expected, spec.mark};
      } else if (util::to_lower(*spec.name) != expected) {
        diags.error(spec.name.mark, spec.path + ".name",
                    "'" + *spec.name + "' disagrees with parent " + *spec.parent + " and pkey " +
                        util::hex16(*spec.pkey) + "; the child is named '" + expected + "'");
      } else {
        spec.name.value = expected;
      }
      continue;
    }
    if (!spec.name) {
      diags.error(spec.mark, spec.path,
                  "an interface needs 'name' (or 'parent' and 'pkey' for a pkey child)");
      continue;
    }
    std::string parent;
    std::string suffix;
    if (looks_like_child(*spec.name, &parent, &suffix)) {
      diags.error(spec.name.mark, spec.path + ".name",
                  "'" + *spec.name + "' looks like a pkey child; declare parent: " + parent +
                      " and pkey: 0x" + util::to_lower(suffix));
    }
  }
  std::map<std::string, const InterfaceSpec*> by_name;
  for (const auto& spec : g.interfaces) {
    if (!spec.name) {
      continue;
    }
    auto [it, fresh] = by_name.emplace(*spec.name, &spec);
    if (!fresh) {
      diags.error(spec.name.mark, spec.path + ".name",
                  "interface '" + *spec.name + "' is declared twice on these nodes (first at " +
                      where(it->second->path, it->second->mark) + ")");
    }
  }
  for (const auto& spec : g.interfaces) {
    if (!spec.parent || !spec.pkey) {
      continue;
    }
    const auto p = by_name.find(*spec.parent);
    if (p == by_name.end()) {
      diags.error(spec.parent.mark, spec.path + ".parent",
                  "parent '" + *spec.parent + "' is not declared in " + g.path +
                      ".interfaces; declare it too");
    } else if (p->second->pkey) {
      diags.error(spec.parent.mark, spec.path + ".parent",
                  "parent '" + *spec.parent +
                      "' is itself a pkey child; children hang off a base interface");
    }
  }
}

}  // namespace

void check_mtu(const Profile& profile, const InterfaceSpec& spec, const InterfaceSpec* over,
               std::set<MarkKey>& reported, Diagnostics& diags)
{
  const auto mode =
      choose(over != nullptr ? &over->mode : nullptr, spec.mode, &profile.defaults.mode);
  const auto mtu = choose(over != nullptr ? &over->mtu : nullptr, spec.mtu, &profile.defaults.mtu);
  // IPv6 needs an MTU of 1280 (RFC 8200): below it the kernel refuses the address, and takes
  // IPv6 off the interface altogether.
  const auto& ipv6 = over != nullptr && over->ipv6 ? over->ipv6 : spec.ipv6;
  if (mtu && ipv6 && **mtu.setting < k_ipv6_min_mtu) {
    const Mark a = mtu.setting->mark;
    if (reported.insert({a.line, a.column, ipv6.mark.line, ipv6.mark.column}).second) {
      diags.error(a, source_path(mtu.source, over, spec, "mtu"),
                  (spec.name ? "interface " + *spec.name + ": " : std::string()) +
                      std::to_string(**mtu.setting) + " is below " +
                      std::to_string(k_ipv6_min_mtu) + ", the IPv6 minimum, and ipv6 is set" +
                      at_line(ipv6.mark) + ": the kernel would refuse the address");
    }
  }
  if (!mode || !mtu || **mode.setting != Mode::datagram || **mtu.setting <= k_datagram_mtu_max) {
    return;
  }
  const Mark a = mtu.setting->mark;
  const Mark b = mode.setting->mark;
  if (!reported.insert({a.line, a.column, b.line, b.column}).second) {
    return;
  }
  std::string msg = std::to_string(**mtu.setting) + " is above " +
                    std::to_string(k_datagram_mtu_max) +
                    ", the datagram-mode maximum (4K IB MTU - 4)";
  if (mode.source != Source::group || over != nullptr) {
    msg +=
        "; mode datagram comes from " + source_path(mode.source, over, spec, "mode") + at_line(b);
  }
  if (spec.name) {
    msg = "interface " + *spec.name + ": " + msg;
  }
  diags.error(a, source_path(mtu.source, over, spec, "mtu"), msg);
}

namespace {

void check_pools(const Group& g, Diagnostics& diags)
{
  for (const auto& spec : g.interfaces) {
    for (const auto* pool : {&spec.ipv4, &spec.ipv6}) {
      if (!*pool) {
        continue;
      }
      const bool v4 = pool == &spec.ipv4;
      const std::string key = v4 ? ".ipv4" : ".ipv6";
      if (!(*pool)->host_bits_zero()) {
        diags.error(pool->mark, spec.path + key,
                    (*pool)->str() + " has host bits set; a group's address is a pool, " +
                        "written as its network (" + (*pool)->network().str() + "/" +
                        std::to_string((*pool)->length) + ") with an optional " +
                        (v4 ? "ipv4_offset" : "ipv6_offset"));
        continue;
      }
      if (const auto why = unusable_range(**pool, true); !why.empty()) {
        diags.error(pool->mark, spec.path + key, "pool " + (*pool)->str() + " " + why);
        continue;
      }
      const auto& offset = v4 ? spec.ipv4_offset : spec.ipv6_offset;
      const uint64_t extra = offset ? *offset : 0;
      const uint64_t capacity = (*pool)->capacity();
      if (capacity < g.hosts.size() || capacity - g.hosts.size() < extra) {
        diags.error(pool->mark, spec.path + key,
                    "pool " + (*pool)->str() + " has " + std::to_string(capacity) +
                        (capacity == 1 ? " usable address" : " usable addresses") +
                        "; its group of " + std::to_string(g.hosts.size()) + " hosts needs " +
                        std::to_string(g.hosts.size()) +
                        (extra > 0 ? " after offset " + std::to_string(extra) : std::string()));
      }
    }
  }
}

void check_overrides(Profile& profile, Diagnostics& diags)
{
  for (auto& [host, o] : profile.overrides) {
    const auto g = profile.group_of_host.find(host);
    if (g == profile.group_of_host.end()) {
      std::vector<std::string> all;
      for (const auto& [h, gi] : profile.group_of_host) {
        all.push_back(h);
      }
      std::sort(all.begin(), all.end());  // a stable suggestion among equally close names
      const auto near = util::closest_match(host, all);
      diags.error(o.mark, "hosts." + host,
                  "host '" + host + "' is not in any node group" +
                      (near.empty() ? std::string() : "; did you mean '" + near + "'?"));
      continue;
    }
    const Group& group = profile.groups[g->second];
    for (auto& [name, spec] : o.interfaces) {
      bool found = false;
      std::vector<std::string> names;
      for (const auto& gi : group.interfaces) {
        found = found || (gi.name && *gi.name == name);
        if (gi.name) {
          names.push_back(*gi.name);
        }
      }
      if (!found) {
        diags.error(
            spec.name.mark, spec.path,
            "interface '" + name + "' is not declared for " + host + " (" + group.path +
                " declares " +
                (names.empty() ? std::string("none") : util::join_alternatives(names, ", ")) + ")");
        continue;
      }
      for (const auto* addr : {&spec.ipv4, &spec.ipv6}) {
        if (!*addr) {
          continue;
        }
        const std::string key = spec.path + (addr == &spec.ipv4 ? ".ipv4" : ".ipv6");
        if (const auto why = unusable_range(**addr, false); !why.empty()) {
          diags.error(addr->mark, key, (*addr)->str() + " " + why);
        } else if ((*addr)->is_network_or_broadcast()) {
          diags.error(addr->mark, key,
                      (*addr)->str() +
                          " is the network or broadcast address of its subnet, not a host address");
        }
      }
    }
  }
}

}  // namespace

std::string where(const std::string& path, Mark m)
{
  return m.line > 0 ? path + ", line " + std::to_string(m.line) : path;
}

void validate_profile(Profile& profile, const Limits& limits, Diagnostics& diags)
{
  expand_groups(profile, limits, diags);
  for (auto& g : profile.groups) {
    check_interface_names(g, diags);
    check_pools(g, diags);
  }
  check_overrides(profile, diags);
  check_backends(profile, diags);
  check_checks(profile, diags);
  check_addresses(profile, diags);
  check_partitions(profile, limits, diags);
}

}  // namespace ibsetup::profile::detail
