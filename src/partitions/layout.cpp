#include "partitions/layout.hpp"

#include "partitions/inventories.hpp"
#include "partitions/port_resolve.hpp"

#include "common/strings.hpp"
#include "os/hostname.hpp"
#include "profile/merge.hpp"
#include "profile/validate.hpp"

#include <ibsetup/hostlist.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace ibsetup::partitions {

namespace {

using profile::PartitionSpec;
using profile::ResolvedInterface;

constexpr uint16_t k_default_pkey = 0x7fff;

// What one partition collects while the hosts are walked.
struct Collected {
  Partition partition;
  const PartitionSpec* spec = nullptr;
  std::map<int, std::vector<std::string>> needs;  // mtu code -> hosts that need it
  std::map<std::string, Member> members;          // by GUID: sorted, each port once
  std::set<std::string> duplicates;               // Partition::duplicates
};

class Builder {
public:
  Builder(const profile::Profile& profile, const Inventories& inventories)
      : m_profile(profile), m_inventories(inventories)
  {
    for (const auto& entry : m_profile.group_of_host) {
      ++m_short_names[os::short_name(entry.first)];
    }
  }

  Layout build();

private:
  Collected& partition(uint16_t pkey);
  void walk_host(const profile::Group& group, size_t index);
  void add_member(Collected& c, const std::string& host, const InventoryPort& port, bool full,
                  const std::string& why);
  void missing(const std::string& host, const std::string& what, uint16_t pkey);
  void finish(Collected& c, Layout& out);
  void report_inventories(Layout& out) const;

  const InventoryHost* inventory_of(const std::string& host) const;

  const profile::Profile& m_profile;
  const Inventories& m_inventories;
  // How many of the profile's hosts have each short name: an inventory under a short name
  // (the readers shorten every name) is a full-named host's only when it is the only one.
  std::map<std::string, int> m_short_names;
  std::map<uint16_t, Collected> m_partitions;
  std::map<std::string, std::vector<const PartitionSpec*>> m_limited;  // host -> partitions
  std::map<std::string, Member> m_ports;                               // Layout::ports by GUID
  std::map<std::pair<std::string, std::string>, std::set<uint16_t>> m_missing;
  std::vector<std::string> m_not_needed;  // hosts without inventory that no partition needs
  std::vector<std::string> m_warnings;
};

std::string partition_label(const Partition& p)
{
  return util::hex16(p.pkey) + " (" + p.name + ")";
}

}  // namespace

std::string port_name(const std::string& device, int port)
{
  return device + "/" + std::to_string(port);
}

std::optional<int> ib_mtu_code(int bytes)
{
  for (int code = 1; code <= 5; ++code) {
    if (bytes == (128 << code)) {
      return code;
    }
  }
  return std::nullopt;
}

std::optional<int> rate_code(double gbps)
{
  static const std::pair<double, int> k_codes[] = {
      {2.5, 2},  {5, 5},    {10, 3},   {14, 11},  {20, 6},   {25, 15},  {28, 19},  {30, 4},
      {40, 7},   {50, 20},  {56, 12},  {60, 8},   {80, 9},   {100, 16}, {112, 13}, {120, 10},
      {168, 14}, {200, 17}, {300, 18}, {400, 21}, {600, 22}, {800, 23}};
  for (const auto& [rate, code] : k_codes) {
    if (std::fabs(rate - gbps) < 1e-9) {
      return code;
    }
  }
  return std::nullopt;
}

int needed_mtu_code(std::optional<profile::Mode> mode, std::optional<int> mtu)
{
  if ((mode && *mode == profile::Mode::connected) || !mtu || *mtu > profile::k_datagram_mtu_max) {
    return 5;
  }
  int code = 1;
  while (code < 5 && (128 << code) < *mtu + 4) {
    ++code;
  }
  return code;
}

Collected& Builder::partition(uint16_t pkey)
{
  auto [it, fresh] = m_partitions.try_emplace(pkey);
  if (fresh) {
    Partition& p = it->second.partition;
    p.pkey = pkey;
    p.ipoib = pkey == k_default_pkey;
    p.name = pkey == k_default_pkey ? "Default" : profile::detail::generated_partition_name(pkey);
  }
  return it->second;
}

void Builder::missing(const std::string& host, const std::string& what, uint16_t pkey)
{
  m_missing[{host, what}].insert(pkey);
}

void Builder::add_member(Collected& c, const std::string& host, const InventoryPort& port,
                         bool full, const std::string& why)
{
  auto [it, fresh] = c.members.try_emplace(port.guid);
  Member& m = it->second;
  if (fresh) {
    m = Member{host, port.device, port.port, port.guid, full};
    return;
  }
  if (m.host != host) {
    // The same GUID on two hosts: reported once as a duplicate GUID, and in the partition.
    c.duplicates.insert(host + " " + port_name(port.device, port.port) + " (" + port.guid +
                        ", as " + m.host + " " + port_name(m.device, m.port) + ")");
    return;
  }
  if (m.full != full) {
    m_warnings.push_back(host + " " + port_name(port.device, port.port) + " is a full member of " +
                         partition_label(c.partition) + " and listed in its limited members (" +
                         why + "); written as full");
    m.full = true;
  }
}

const InventoryHost* Builder::inventory_of(const std::string& host) const
{
  const auto it = m_short_names.find(os::short_name(host));
  if (it != m_short_names.end() && it->second > 1) {
    // cn01 and cn01.site are two hosts: each takes only an inventory given under its own name.
    const auto same = m_inventories.hosts.find(it->first);
    return same != m_inventories.hosts.end() && same->second.given == host ? &same->second
                                                                           : nullptr;
  }
  return find_inventory(m_inventories, host);
}

void Builder::walk_host(const profile::Group& group, size_t index)
{
  const std::string& host = group.hosts[index];
  const InventoryHost* inv = inventory_of(host);
  const auto* over = profile::detail::find_host_override(m_profile, host);
  std::vector<ResolvedInterface> ifaces;
  ifaces.reserve(group.interfaces.size());
  for (const auto& spec : group.interfaces) {
    if (spec.name) {
      ifaces.push_back(profile::detail::merge_interface(
          m_profile, spec, profile::detail::find_override(over, *spec.name), index + 1));
    }
  }
  if (inv != nullptr) {
    for (const auto& ri : ifaces) {
      std::string why;
      const InventoryPort* port = ri.pkey ? nullptr : resolve_port(*inv, ri, why);
      if (port != nullptr) {
        m_ports.try_emplace(port->guid, Member{host, port->device, port->port, port->guid, true});
      }
    }
  }
  const auto limited = m_limited.find(host);
  bool needed = limited != m_limited.end();
  for (const auto& ri : ifaces) {
    const uint16_t pkey = ri.pkey ? static_cast<uint16_t>(*ri.pkey & 0x7fffU) : k_default_pkey;
    Collected& c = partition(pkey);
    c.needs[needed_mtu_code(ri.mode, ri.mtu)].push_back(host);
    if (!ri.pkey) {
      continue;  // the Default partition names no ports
    }
    c.partition.ipoib = true;
    needed = true;
    if (inv == nullptr) {
      missing(host, "no inventory", pkey);
      continue;
    }
    const auto parent = std::find_if(ifaces.begin(), ifaces.end(), [&](const auto& b) {
      return ri.parent && b.name == *ri.parent;
    });
    if (parent == ifaces.end()) {  // validation requires the parent: reported all the same
      missing(host, ri.name + "'s parent is not declared", pkey);
      continue;
    }
    std::string why;
    const InventoryPort* port = resolve_port(*inv, *parent, why);
    if (port == nullptr) {
      // Named after the parent: its children on other partitions share the one problem.
      missing(host, "no port for " + parent->name + ": " + why, pkey);
    } else {
      add_member(c, host, *port, true, ri.name);
    }
  }
  if (limited != m_limited.end()) {
    // A limited member has no interface on the partition: its base interfaces' ports join.
    std::vector<const ResolvedInterface*> bases;
    for (const auto& ri : ifaces) {
      if (!ri.pkey) {
        bases.push_back(&ri);
      }
    }
    ResolvedInterface any;  // no base interface declared: the host's only InfiniBand port
    any.name = "its base interface";
    if (bases.empty()) {
      bases.push_back(&any);
    }
    for (const auto* spec : limited->second) {
      Collected& c = partition(*spec->pkey);
      for (const auto* base : bases) {
        std::string why;
        const InventoryPort* port = inv == nullptr ? nullptr : resolve_port(*inv, *base, why);
        if (inv == nullptr) {
          missing(host, "no inventory", *spec->pkey);
        } else if (port == nullptr) {
          missing(host, "no port for " + base->name + ": " + why, *spec->pkey);
        } else {
          add_member(c, host, *port, false, spec->path + ".limited");
        }
      }
    }
  }
  if (inv == nullptr && !needed) {
    m_not_needed.push_back(host);
  }
}

void Builder::finish(Collected& c, Layout& out)
{
  Partition& p = c.partition;
  const PartitionSpec* spec = c.spec;
  if (spec != nullptr && spec->name) {
    p.name = *spec->name;  // before the warnings below, which name the partition
  }
  const int largest = c.needs.empty() ? 0 : c.needs.rbegin()->first;
  if (spec != nullptr && spec->mtu) {
    p.mtu_code = ib_mtu_code(*spec->mtu);
    if (p.mtu_code && *p.mtu_code < largest) {
      out.warnings.push_back(
          "partition " + partition_label(p) + ": mtu " + std::to_string(*spec->mtu) + " (" +
          spec->path + ".mtu) is below the " + std::to_string(128 << largest) + " that " +
          fold_hostlist(c.needs.rbegin()->second) + " need; their IPoIB cannot join it");
    }
  } else if (largest > 0 && p.ipoib) {
    p.mtu_code = largest;
    if (c.needs.size() > 1) {
      std::string parts;
      for (auto it = c.needs.rbegin(); it != c.needs.rend(); ++it) {
        parts += (parts.empty() ? "" : ", ") + fold_hostlist(it->second) +
                 " need mtu=" + std::to_string(it->first) + " (" +
                 std::to_string(128 << it->first) + ")";
      }
      out.warnings.push_back("partition " + partition_label(p) +
                             ": its interfaces need different IB MTUs (" + parts +
                             "); writing the largest, mtu=" + std::to_string(largest));
    }
  }
  if (spec != nullptr) {
    if (spec->rate) {
      p.rate_code = rate_code(*spec->rate);
    }
    if (spec->sl) {
      p.sl = *spec->sl;
    }
  }
  if (p.pkey == k_default_pkey) {
    const bool limited =
        spec != nullptr && spec->membership && *spec->membership == profile::Membership::limited;
    p.all_full = !limited;
    p.all_limited = limited;
  }
  p.duplicates.assign(c.duplicates.begin(), c.duplicates.end());
  p.members.reserve(c.members.size());
  for (auto& entry : c.members) {
    p.members.push_back(std::move(entry.second));
  }
  out.partitions.push_back(std::move(p));
}

void Builder::report_inventories(Layout& out) const
{
  std::map<std::string, std::string> first;  // GUID -> "host dev/port"
  for (const auto& [host, inv] : m_inventories.hosts) {
    const auto shared = m_short_names.find(host);
    if (m_profile.group_of_host.count(host) == 0 &&
        (shared == m_short_names.end() || shared->second != 1)) {
      out.unknown_hosts.push_back(host);
    }
    for (const auto& p : inv.ports) {
      if (p.guid.empty()) {
        continue;
      }
      const std::string here = host + " " + port_name(p.device, p.port);
      const auto [it, fresh] = first.emplace(p.guid, here);
      // Two ports of one host with one GUID are as wrong as two hosts with it: the subnet
      // manager would see one port.
      if (!fresh) {
        out.duplicate_guids.push_back(p.guid + " on " + it->second + " and " + here);
      }
    }
  }
}

Layout Builder::build()
{
  Layout out;
  const auto& section = m_profile.partitions;
  partition(k_default_pkey).spec = section.declared ? &section.default_partition : nullptr;
  for (const auto& spec : section.pkeys) {
    if (!spec.pkey) {
      continue;
    }
    partition(*spec.pkey).spec = &spec;
    for (const auto& host : spec.limited_hosts) {
      m_limited[host].push_back(&spec);
    }
  }
  for (const auto& group : m_profile.groups) {
    for (size_t i = 0; i < group.hosts.size(); ++i) {
      walk_host(group, i);
    }
  }
  if (m_partitions.size() == 1) {
    // Not an error (Default alone is a valid file), but most likely not what was meant.
    out.warnings.push_back("the profile declares no pkey: only the Default partition");
  }
  // Default first, as OpenSM's documentation writes it, then by pkey.
  finish(m_partitions.at(k_default_pkey), out);
  for (auto& [pkey, c] : m_partitions) {
    if (pkey != k_default_pkey) {
      finish(c, out);
    }
  }
  for (auto& entry : m_ports) {
    out.ports.push_back(std::move(entry.second));
  }
  for (auto& [key, pkeys] : m_missing) {
    out.missing.push_back(Missing{key.first, key.second, {pkeys.begin(), pkeys.end()}});
  }
  if (!m_not_needed.empty()) {
    out.warnings.push_back("no inventory for " + fold_hostlist(m_not_needed) +
                           " (not needed: in no partition besides Default)");
  }
  out.warnings.insert(out.warnings.end(), m_warnings.begin(), m_warnings.end());
  report_inventories(out);
  return out;
}

Layout build_layout(const profile::Profile& profile, const Inventories& inventories)
{
  return Builder(profile, inventories).build();
}

}  // namespace ibsetup::partitions
