#include "profile/reader.hpp"

#include "common/strings.hpp"
#include "profile/reader_fields.hpp"

#include <map>

namespace ibsetup::profile::detail {

namespace {

constexpr EnumName<Mode> k_modes[] = {{"datagram", Mode::datagram}, {"connected", Mode::connected}};
constexpr EnumName<Backend> k_backends[] = {{"auto", Backend::automatic},
                                            {"networkmanager", Backend::networkmanager},
                                            {"netlink", Backend::netlink}};
const char* const k_interface_keys[] = {"name", "device", "port",        "parent",
                                        "pkey", "mode",   "mtu",         "backend",
                                        "ipv4", "ipv6",   "ipv4_offset", "ipv6_offset"};

std::vector<std::string> interface_keys(bool override)
{
  std::vector<std::string> keys;
  for (const char* k : k_interface_keys) {
    const std::string key = k;
    if (!override || (key != "name" && key != "parent" && key != "pkey")) {
      keys.push_back(key);
    }
  }
  return keys;
}

Setting<uint16_t> read_pkey(const Entry& e, Diagnostics& diags)
{
  const auto value = read_pkey_number(e, diags);
  if (!value) {
    return {};
  }
  const uint16_t pkey = *value;
  if ((pkey & 0x7fffU) == 0) {
    diags.error(e.value_mark, e.path,
                util::hex16(pkey) + " is not a usable P_Key (0x0000 and 0x8000 are invalid; " +
                    "partition numbers run from 0x0001 to 0x7fff)");
    return {};
  }
  if (pkey == 0xffff || pkey == 0x7fff) {
    diags.error(e.value_mark, e.path,
                util::hex16(pkey) + " is the default partition, which the base interface " +
                    "already uses; a pkey child needs another partition");
    return {};
  }
  if ((pkey & 0x8000U) == 0) {
    const auto full = static_cast<uint16_t>(pkey | 0x8000U);
    diags.warning(e.value_mark, e.path,
                  "P_Key " + util::hex16(pkey) + " lacks the full-membership bit 0x8000; using " +
                      util::hex16(full) + " as the kernel does");
    return {full, e.value_mark};
  }
  return {pkey, e.value_mark};
}

// A string that `problem` (interface_name_problem, device_name_problem) accepts.
Setting<std::string> read_name(const Entry& e, Diagnostics& diags,
                               std::string (*problem)(const std::string&))
{
  auto name = read_string(e, diags);
  if (!name) {
    return {};
  }
  const auto why = problem(*name);
  if (!why.empty()) {
    diags.error(e.value_mark, e.path, why);
    return {};
  }
  return name;
}

Setting<std::string> read_ifname(const Entry& e, Diagnostics& diags)
{
  return read_name(e, diags, interface_name_problem);
}

void read_interface(const Entry& item, bool override, InterfaceSpec& spec, Diagnostics& diags)
{
  spec.mark = item.value_mark;
  spec.path = item.path;
  MapReader m(item.value, item.path, item.value_mark, diags, interface_keys(override));
  if (const auto* e = m.get("name")) {
    spec.name = read_ifname(*e, diags);
    spec.broken = spec.broken || !spec.name;
  }
  if (const auto* e = m.get("device")) {
    spec.device = read_device_name(*e, diags);
  }
  if (const auto* e = m.get("port")) {
    spec.port = read_int(*e, 1, k_max_port, diags);
  }
  if (const auto* e = m.get("parent")) {
    spec.parent = read_ifname(*e, diags);
    spec.broken = spec.broken || !spec.parent;
  }
  if (const auto* e = m.get("pkey")) {
    spec.pkey = read_pkey(*e, diags);
    spec.broken = spec.broken || !spec.pkey;
  }
  if (const auto* e = m.get("mode")) {
    spec.mode = read_enum(*e, k_modes, diags);
  }
  if (const auto* e = m.get("mtu")) {
    spec.mtu = read_int(*e, k_mtu_min, k_connected_mtu_max, diags);
  }
  if (const auto* e = m.get("backend")) {
    spec.backend = read_enum(*e, k_backends, diags);
  }
  if (const auto* e = m.get("ipv4")) {
    spec.ipv4 = read_prefix(*e, Family::ipv4, diags);
  }
  if (const auto* e = m.get("ipv6")) {
    spec.ipv6 = read_prefix(*e, Family::ipv6, diags);
  }
  if (const auto* e = m.get("ipv4_offset")) {
    spec.ipv4_offset = read_u64(*e, diags);
  }
  if (const auto* e = m.get("ipv6_offset")) {
    spec.ipv6_offset = read_u64(*e, diags);
  }
}

void read_group(const Entry& item, Group& group, Diagnostics& diags)
{
  group.mark = item.value_mark;
  group.path = item.path;
  MapReader m(item.value, item.path, item.value_mark, diags,
              {"hosts", "hcas", "interfaces", "checks"});
  if (!m.is_map()) {
    return;
  }
  if (const auto* e = m.get("hosts")) {
    group.hosts_expression = read_string(*e, diags);
    group.hosts_quote = e->value.Tag() == "!" ? 1 : 0;
  } else {
    diags.error(item.value_mark, item.path,
                "missing required key 'hosts' (a hostlist such as cn[001-128])");
  }
  if (const auto* e = m.get("hcas")) {
    for (const auto& h : read_list(*e, diags)) {
      read_hca(h, group.hcas.emplace_back(), diags);
    }
  }
  if (const auto* e = m.get("interfaces")) {
    for (const auto& i : read_list(*e, diags)) {
      read_interface(i, false, group.interfaces.emplace_back(), diags);
    }
  }
  if (const auto* e = m.get("checks")) {
    MapReader checks(
        e->value, e->path, e->value_mark, diags,
        {"peers", "disable", "warn", "counters", "peer_timeout_ms", "mpi", "bandwidth", "latency"});
    const auto names = [&](const char* key, std::vector<Setting<std::string>>& out) {
      if (const auto* p = checks.get(key)) {
        for (const auto& listed : read_list(*p, diags)) {
          if (auto name = read_string(listed, diags)) {
            out.push_back(name);
          }
        }
      }
    };
    names("peers", group.peers);
    names("disable", group.check_disable);
    names("warn", group.check_warn);
    if (const auto* c = checks.get("counters")) {
      for (const auto& counter : read_named_map(c->value, c->path, c->value_mark, diags)) {
        if (auto max = read_u64(counter, diags)) {
          group.counter_max.emplace_back(Setting<std::string>{counter.key, counter.key_mark}, max);
        }
      }
    }
    if (const auto* t = checks.get("peer_timeout_ms")) {
      group.peer_timeout_ms = read_int(*t, 1, 600000, diags);
    }
    if (const auto* mpi = checks.get("mpi")) {
      read_mpi_checks(*mpi, group, diags);
    }
    read_perf_checks(checks.get("bandwidth"), checks.get("latency"), group, diags);
  }
}

void read_overrides(const Entry& item, Profile& profile, Diagnostics& diags)
{
  for (const auto& host : read_named_map(item.value, item.path, item.value_mark, diags)) {
    HostOverride& o = profile.overrides[host.key];
    o.host = host.key;
    o.mark = host.key_mark;
    MapReader m(host.value, host.path, host.value_mark, diags, {"interfaces"});
    if (const auto* e = m.get("interfaces")) {
      for (const auto& iface : read_named_map(e->value, e->path, e->value_mark, diags)) {
        if (const auto problem = interface_name_problem(iface.key); !problem.empty()) {
          diags.error(iface.key_mark, iface.path, problem);
          continue;
        }
        InterfaceSpec& spec = o.interfaces[iface.key];
        read_interface(iface, true, spec, diags);
        spec.name = {iface.key, iface.key_mark};
      }
    }
  }
}

}  // namespace

Setting<std::string> read_device_name(const Entry& e, Diagnostics& diags)
{
  return read_name(e, diags, device_name_problem);
}

void read_profile(const YamlNode& root, Profile& profile, Diagnostics& diags)
{
  const Mark top{1, 1};
  if (!root.IsMap()) {
    diags.error(mark_of(root, top), "",
                "a profile is a mapping with 'version' and 'nodes', got " + describe(root));
    return;
  }
  MapReader m(root, "", top, diags,
              {"version", "cluster", "defaults", "nodes", "hosts", "partitions"});
  if (const auto* e = m.get("cluster")) {
    if (auto name = read_string(*e, diags)) {
      profile.cluster = *name;
    }
  }
  if (const auto* e = m.get("version")) {
    const auto text = read_string(*e, diags);
    if (text && util::trim(*text) != "1") {
      diags.error(e->value_mark, e->path,
                  "unsupported version '" + *text + "'; this ibsetup reads version 1");
    } else if (text) {
      profile.version = 1;
    }
  } else {
    diags.error(top, "", "missing required key 'version' (add 'version: 1' at the top)");
  }
  if (const auto* e = m.get("defaults")) {
    MapReader d(e->value, e->path, e->value_mark, diags, {"mode", "mtu", "backend", "prune"});
    if (const auto* x = d.get("mode")) {
      profile.defaults.mode = read_enum(*x, k_modes, diags);
    }
    if (const auto* x = d.get("mtu")) {
      profile.defaults.mtu = read_int(*x, k_mtu_min, k_connected_mtu_max, diags);
    }
    if (const auto* x = d.get("backend")) {
      profile.defaults.backend = read_enum(*x, k_backends, diags);
    }
    if (const auto* x = d.get("prune")) {
      profile.defaults.prune = read_bool(*x, diags);
    }
  }
  if (const auto* e = m.get("nodes")) {
    for (const auto& g : read_list(*e, diags)) {
      read_group(g, profile.groups.emplace_back(), diags);
    }
    if (profile.groups.empty() && e->value.IsSequence()) {
      diags.error(e->value_mark, e->path, "no node groups; declare at least one");
    }
  } else {
    diags.error(top, "", "missing required key 'nodes' (the list of node groups)");
  }
  if (const auto* e = m.get("hosts")) {
    read_overrides(*e, profile, diags);
  }
  if (const auto* e = m.get("partitions")) {
    read_partitions(*e, profile, diags);
  }
}

}  // namespace ibsetup::profile::detail
