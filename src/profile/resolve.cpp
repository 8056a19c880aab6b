#include "profile/merge.hpp"

#include <ibsetup/error.hpp>

#include <unistd.h>

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

namespace detail {

const InterfaceSpec* find_override(const Profile& profile, const std::string& host,
                                   const std::string& name)
{
  const auto o = profile.overrides.find(host);
  if (o == profile.overrides.end()) {
    return nullptr;
  }
  const auto i = o->second.interfaces.find(name);
  return i == o->second.interfaces.end() ? nullptr : &i->second;
}

namespace {

std::optional<IpPrefix> address_for(const Setting<IpPrefix>* over, const Setting<IpPrefix>& pool,
                                    const Setting<uint64_t>* over_offset,
                                    const Setting<uint64_t>& offset, size_t position)
{
  if (over != nullptr && *over) {
    return **over;
  }
  if (!pool) {
    return std::nullopt;
  }
  uint64_t extra = 0;
  if (over_offset != nullptr && *over_offset) {
    extra = **over_offset;
  } else if (offset) {
    extra = *offset;
  }
  if (extra > UINT64_MAX - position) {
    return std::nullopt;
  }
  return pool->nth(position + extra);
}

}  // namespace

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
    const auto* o = over != nullptr ? &(over->*member) : nullptr;
    return choose(o, over != nullptr ? over->path : std::string(), spec.*member, spec.path, def,
                  "");
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
  const Setting<std::string>* none_s = nullptr;
  if (auto c = pick(&InterfaceSpec::device, none_s)) {
    r.device = **c.setting;
  }
  const Setting<int>* none_i = nullptr;
  if (auto c = pick(&InterfaceSpec::port, none_i)) {
    r.port = **c.setting;
  }
  r.ipv4 = address_for(over != nullptr ? &over->ipv4 : nullptr, spec.ipv4,
                       over != nullptr ? &over->ipv4_offset : nullptr, spec.ipv4_offset, position);
  r.ipv6 = address_for(over != nullptr ? &over->ipv6 : nullptr, spec.ipv6,
                       over != nullptr ? &over->ipv6_offset : nullptr, spec.ipv6_offset, position);
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
  for (const auto& spec : group.interfaces) {
    const auto* over = detail::find_override(profile, host, spec.name ? *spec.name : "");
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
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) {
    throw EnvironmentError("cannot read this machine's host name; pass --node NAME");
  }
  std::string name = buf;
  return name.substr(0, name.find('.'));
}

}  // namespace ibsetup::profile
