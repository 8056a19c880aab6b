#include "common/strings.hpp"
#include "profile/validate.hpp"

#include <ibsetup/hostlist.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace ibsetup::profile::detail {

namespace {

// The partition numbers (without the membership bit) the groups' interfaces use.
std::set<uint16_t> used_pkeys(const Profile& profile)
{
  std::set<uint16_t> used;
  for (const auto& g : profile.groups) {
    for (const auto& spec : g.interfaces) {
      if (spec.pkey) {
        used.insert(static_cast<uint16_t>(*spec.pkey & 0x7fffU));
      }
    }
  }
  return used;
}

void expand_limited(const Profile& profile, PartitionSpec& spec, const Limits& limits,
                    std::vector<std::string>& all_hosts, Diagnostics& diags)
{
  const Mark m = spec.limited.mark;
  const std::string path = spec.path + ".limited";
  try {
    spec.limited_hosts = expand_hostlist(*spec.limited, limits.max_hosts);
  } catch (const HostlistError& e) {
    const Mark at{m.line, m.column + static_cast<int>(e.offset())};
    diags.error(at, path, "malformed hostlist '" + *spec.limited + "': " + e.what());
    return;
  }
  std::vector<std::string> unknown;
  for (const auto& host : spec.limited_hosts) {
    if (profile.group_of_host.count(host) == 0) {
      unknown.push_back(host);
    }
  }
  if (unknown.empty()) {
    return;
  }
  if (all_hosts.empty()) {
    for (const auto& [h, gi] : profile.group_of_host) {
      all_hosts.push_back(h);
    }
    std::sort(all_hosts.begin(), all_hosts.end());  // the same suggestion on every run
  }
  const auto near = util::closest_match(unknown.front(), all_hosts);
  std::string names = fold_hostlist(unknown);
  diags.error(
      m, path,
      std::string(unknown.size() == 1 ? "host " : "hosts ") + names +
          (unknown.size() == 1 ? " is" : " are") +
          " in no node group; a limited member's port GUID comes from its inventory, "
          "so it must be a host of this file" +
          (near.empty() || unknown.size() != 1 ? std::string() : "; did you mean '" + near + "'?"));
}

// A declared name may be the one another partition gets when the profile does not name it:
// both would carry it in partitions.conf.
void check_generated_names(const std::set<uint16_t>& used,
                           const std::map<uint16_t, const PartitionSpec*>& by_pkey,
                           const std::map<std::string, const PartitionSpec*>& by_name,
                           Diagnostics& diags)
{
  std::set<uint16_t> all = used;
  for (const auto& entry : by_pkey) {
    all.insert(entry.first);
  }
  for (const uint16_t pkey : all) {
    const auto declared = by_pkey.find(pkey);
    if (declared != by_pkey.end() && declared->second->name) {
      continue;
    }
    const std::string name = generated_partition_name(pkey);
    const auto clash = by_name.find(name);
    if (clash == by_name.end()) {
      continue;
    }
    const PartitionSpec& spec = *clash->second;
    diags.error(spec.name.mark, spec.path + ".name",
                "partition name '" + name + "' of partition " + util::hex16(*spec.pkey) +
                    " is the name partition " + util::hex16(pkey) +
                    " gets when it is not named: both would carry it in partitions.conf; name " +
                    util::hex16(pkey) + " under partitions.pkeys or choose another name");
  }
}

}  // namespace

std::string generated_partition_name(uint16_t pkey)
{
  return "ib_" + util::hex16(static_cast<uint16_t>(pkey | 0x8000U)).substr(2);
}

void check_partitions(Profile& profile, const Limits& limits, Diagnostics& diags)
{
  if (!profile.partitions.declared) {
    return;
  }
  const auto used = used_pkeys(profile);
  std::vector<std::string> all_hosts;  // sorted, built on the first unknown host
  std::map<uint16_t, const PartitionSpec*> by_pkey;
  std::map<std::string, const PartitionSpec*> by_name;
  for (auto& spec : profile.partitions.pkeys) {
    if (spec.limited) {
      expand_limited(profile, spec, limits, all_hosts, diags);
    }
    if (!spec.pkey) {
      continue;
    }
    const uint16_t pkey = *spec.pkey;
    const auto [it, fresh] = by_pkey.emplace(pkey, &spec);
    if (!fresh) {
      diags.error(spec.pkey.mark, spec.path + ".pkey",
                  "partition " + util::hex16(pkey) + " is declared twice (first at " +
                      where(it->second->path, it->second->mark) +
                      "); 0x8001 and 0x0001 are the same partition");
      continue;
    }
    if (spec.name) {
      const auto [n, new_name] = by_name.emplace(*spec.name, &spec);
      if (!new_name) {
        diags.error(spec.name.mark, spec.path + ".name",
                    "partition name '" + *spec.name + "' is also used at " +
                        where(n->second->path, n->second->mark) +
                        "; OpenSM logs by name, so each partition has its own");
      }
    }
    if (used.count(pkey) == 0) {
      diags.warning(spec.pkey.mark, spec.path + ".pkey",
                    "no interface uses partition " + util::hex16(pkey) +
                        (spec.limited_hosts.empty()
                             ? "; its partition has no members"
                             : "; its partition has only limited members, which cannot reach "
                               "each other"));
      // partitions.conf carries mtu and rate only with the ipoib flag (opensm.cpp).
      const std::string why = "no IPoIB interface uses partition " + util::hex16(pkey) +
                              ", so it has no IPoIB broadcast group, which mtu and rate set: "
                              "not written";
      if (spec.mtu) {
        diags.warning(spec.mtu.mark, spec.path + ".mtu", why);
      }
      if (spec.rate) {
        diags.warning(spec.rate.mark, spec.path + ".rate", why);
      }
    }
  }
  check_generated_names(used, by_pkey, by_name, diags);
}

}  // namespace ibsetup::profile::detail
