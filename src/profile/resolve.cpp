#include "os/hostname.hpp"
#include "profile/merge.hpp"

#include <ibsetup/error.hpp>

#include <climits>

namespace ibsetup::profile {

const char* to_string(Mode mode)
{
  return mode == Mode::datagram ? "datagram" : "connected";
}

const char* to_string(LinkType type)
{
  switch (type) {
  case LinkType::ib:
    return "ib";
  case LinkType::eth:
    return "eth";
  case LinkType::vpi:
  default:
    return "vpi";
  }
}

const char* to_string(Backend backend)
{
  switch (backend) {
  case Backend::networkmanager:
    return "networkmanager";
  case Backend::netlink:
    return "netlink";
  case Backend::automatic:
  default:
    return "auto";
  }
}

const char* to_string(PortState state)
{
  switch (state) {
  case PortState::down:
    return "down";
  case PortState::init:
    return "init";
  case PortState::armed:
    return "armed";
  case PortState::active_defer:
    return "active_defer";
  case PortState::active:
  default:
    return "active";
  }
}

const char* to_string(Membership membership)
{
  return membership == Membership::full ? "full" : "limited";
}

namespace detail {

const HostOverride* find_host_override(const Profile& profile, const std::string& host)
{
  if (profile.overrides.empty()) {
    return nullptr;
  }
  const auto o = profile.overrides.find(host);
  return o == profile.overrides.end() ? nullptr : &o->second;
}

const InterfaceSpec* find_override(const HostOverride* host, const std::string& name)
{
  if (host == nullptr) {
    return nullptr;
  }
  const auto i = host->interfaces.find(name);
  return i == host->interfaces.end() ? nullptr : &i->second;
}

std::string source_path(Source source, const InterfaceSpec* over, const InterfaceSpec& spec,
                        const char* key)
{
  switch (source) {
  case Source::host_override:
    return over->path + "." + key;
  case Source::group:
    return spec.path + "." + key;
  case Source::defaults:
    return std::string("defaults.") + key;
  case Source::none:
  default:
    return {};
  }
}

std::optional<IpPrefix> interface_address(const InterfaceSpec& spec, const InterfaceSpec* over,
                                          size_t position, bool v4)
{
  const auto& exact = v4 ? &InterfaceSpec::ipv4 : &InterfaceSpec::ipv6;
  const auto& offset_of = v4 ? &InterfaceSpec::ipv4_offset : &InterfaceSpec::ipv6_offset;
  if (over != nullptr && over->*exact) {
    return *(over->*exact);
  }
  const Setting<IpPrefix>& pool = spec.*exact;
  if (!pool) {
    return std::nullopt;
  }
  uint64_t extra = 0;
  if (over != nullptr && over->*offset_of) {
    extra = *(over->*offset_of);
  } else if (spec.*offset_of) {
    extra = *(spec.*offset_of);
  }
  if (extra > UINT64_MAX - position) {
    return std::nullopt;
  }
  return pool->nth(position + extra);
}

ResolvedInterface merge_interface(const Profile& profile, const InterfaceSpec& spec,
                                  const InterfaceSpec* over, size_t position)
{
  const Defaults& d = profile.defaults;
  ResolvedInterface r;
  r.name = spec.name ? *spec.name : std::string();
  r.path = spec.path;
  r.mark = spec.mark;
  if (spec.parent) {
    r.parent = *spec.parent;
  }
  if (spec.pkey) {
    r.pkey = *spec.pkey;
  }
  auto pick = [&](auto member, const auto* def) {
    return choose(over != nullptr ? &(over->*member) : nullptr, spec.*member, def);
  };
  if (auto c = pick(&InterfaceSpec::mode, &d.mode)) {
    r.mode = **c.setting;
  }
  if (auto c = pick(&InterfaceSpec::mtu, &d.mtu)) {
    r.mtu = **c.setting;
  }
  if (auto c = pick(&InterfaceSpec::backend, &d.backend)) {
    r.backend = **c.setting;
  }
  const Setting<std::string>* no_default_string = nullptr;
  if (auto c = pick(&InterfaceSpec::device, no_default_string)) {
    r.device = **c.setting;
  }
  const Setting<int>* no_default_int = nullptr;
  if (auto c = pick(&InterfaceSpec::port, no_default_int)) {
    r.port = **c.setting;
  }
  r.ipv4 = interface_address(spec, over, position, true);
  r.ipv6 = interface_address(spec, over, position, false);
  return r;
}

}  // namespace detail

namespace {

// The node without its peers (resolving a peer must not resolve the peer's peers).
ResolvedNode resolve_own(const Profile& profile, const std::string& host)
{
  const auto g = profile.group_of_host.find(host);
  if (g == profile.group_of_host.end()) {
    std::string groups;
    for (const auto& group : profile.groups) {
      groups += (groups.empty() ? "" : ", ") +
                (group.hosts_expression ? *group.hosts_expression : std::string("?"));
    }
    throw InputError(profile.file + ": host '" + host + "' is not in any node group (" + groups +
                     "); pass --node NAME to pick one");
  }
  // A Profile built by a library caller rather than load_profile may index past its groups.
  if (g->second >= profile.groups.size()) {
    throw InputError(profile.file + ": host '" + host + "' is mapped to node group " +
                     std::to_string(g->second + 1) + " of " +
                     std::to_string(profile.groups.size()) +
                     " (group_of_host does not match groups)");
  }
  const Group& group = profile.groups[g->second];
  ResolvedNode node;
  node.host = host;
  node.group = g->second;
  node.group_hosts = group.hosts_expression ? *group.hosts_expression : std::string();
  for (size_t i = 0; i < group.hosts.size(); ++i) {
    if (group.hosts[i] == host) {
      node.position = i + 1;
      break;
    }
  }
  node.hcas = group.hcas;
  for (const auto& d : group.check_disable) {
    node.checks.disable.push_back(*d);
  }
  for (const auto& w : group.check_warn) {
    node.checks.warn.push_back(*w);
  }
  for (const auto& c : group.counter_max) {
    node.checks.counter_max.emplace_back(*c.first, *c.second);
  }
  if (group.peer_timeout_ms) {
    node.checks.peer_timeout_ms = *group.peer_timeout_ms;
  }
  if (group.mpi_memlock_min_mib) {
    node.checks.mpi_memlock_min_kib =
        uint64_t{1024} * static_cast<uint64_t>(*group.mpi_memlock_min_mib);
  }
  if (group.mpi_register_mib) {
    node.checks.mpi_register_mib = *group.mpi_register_mib;
  }
  for (auto [from, to] :
       {std::make_pair(&group.bandwidth_min_fraction, &node.checks.bandwidth_min_fraction),
        std::make_pair(&group.bandwidth_min_gbps, &node.checks.bandwidth_min_gbps),
        std::make_pair(&group.latency_max_us, &node.checks.latency_max_us)}) {
    if (*from) {
      *to = **from;
    }
  }
  node.prune = profile.defaults.prune && *profile.defaults.prune;
  for (const auto& spec : group.interfaces) {
    const auto* over = detail::find_override(detail::find_host_override(profile, host),
                                             spec.name ? *spec.name : "");
    node.interfaces.push_back(detail::merge_interface(profile, spec, over, node.position));
  }
  return node;
}

}  // namespace

ResolvedNode resolve_node(const Profile& profile, const std::string& host)
{
  ResolvedNode node = resolve_own(profile, host);
  const Group& group = profile.groups[node.group];
  for (const auto& peer : group.peers) {
    const auto pg = profile.group_of_host.find(*peer);
    if (pg == profile.group_of_host.end() || *peer == host) {
      continue;
    }
    ResolvedPeer rp;
    rp.host = *peer;
    const ResolvedNode other = resolve_own(profile, *peer);
    for (const auto& mine : node.interfaces) {
      for (const auto& theirs : other.interfaces) {
        if (theirs.name != mine.name) {
          continue;
        }
        if (theirs.ipv4) {
          rp.addresses.emplace_back(theirs.name, *theirs.ipv4);
        }
        if (theirs.ipv6) {
          rp.addresses.emplace_back(theirs.name, *theirs.ipv6);
        }
      }
    }
    node.peers.push_back(std::move(rp));
  }
  return node;
}

std::string default_node_name()
{
  auto name = os::short_hostname();
  if (!name) {
    throw EnvironmentError("cannot read this machine's host name; pass --node NAME");
  }
  return *name;
}

}  // namespace ibsetup::profile
