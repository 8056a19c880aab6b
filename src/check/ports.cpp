// Port checks: state, physical state, rate, link layer, subnet manager, LID, P_Keys, counters.
#include "check/local_ports.hpp"

#include "common/strings.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace ibsetup::check::detail {

namespace {

struct Expect {
  std::string device;
  int port = 0;
  const profile::PortSpec* spec = nullptr;
  const profile::HcaSpec* hca = nullptr;
  bool ipoib = false;           // IPoIB interfaces are declared on it
  std::vector<uint16_t> pkeys;  // declared pkey children on it
};

std::string hex(uint16_t v)
{
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%04x", v);
  return buf;
}

std::string upper(std::string s)
{
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

inventory::PortState port_state(profile::PortState state)
{
  switch (state) {
  case profile::PortState::down:
    return inventory::PortState::down;
  case profile::PortState::init:
    return inventory::PortState::init;
  case profile::PortState::armed:
    return inventory::PortState::armed;
  case profile::PortState::active_defer:
    return inventory::PortState::active_defer;
  case profile::PortState::active:
  default:
    return inventory::PortState::active;
  }
}

bool is_pkey_child(const profile::ResolvedInterface& i)
{
  return i.parent && i.pkey;
}

Expect& expect_for(std::vector<Expect>& all, const std::string& device, int port)
{
  for (auto& e : all) {
    if (e.device == device && e.port == port) {
      return e;
    }
  }
  all.push_back({device, port, nullptr, nullptr, false, {}});
  return all.back();
}

std::vector<Expect> expectations(const profile::ResolvedNode& node, const inventory::Host& host)
{
  std::vector<Expect> all;
  for (const auto& hca : node.hcas) {
    const inventory::Device* d = find_device(host, hca);
    const std::string name = hca.device ? *hca.device : d ? d->name : std::string();
    if (name.empty()) {
      continue;  // hca.present already failed
    }
    for (const auto& p : hca.ports) {
      Expect& e = expect_for(all, name, p.port);
      e.spec = &p;
      e.hca = &hca;
    }
  }
  for (const auto& i : node.interfaces) {
    if (!i.parent && i.device && i.port) {
      expect_for(all, *i.device, *i.port).ipoib = true;
    }
  }
  for (const auto& i : node.interfaces) {
    if (!is_pkey_child(i)) {
      continue;
    }
    for (const auto& base : node.interfaces) {
      if (base.name == *i.parent && base.device && base.port) {
        expect_for(all, *base.device, *base.port).pkeys.push_back(*i.pkey);
      }
    }
  }
  return all;
}

const inventory::Port* find_port(const inventory::Host& host, const std::string& device, int port)
{
  for (const auto& d : host.devices) {
    if (d.name == device) {
      for (const auto& p : d.ports) {
        if (p.port == port) {
          return &p;
        }
      }
    }
  }
  return nullptr;
}

std::optional<profile::LinkType> wanted_link(const Expect& e)
{
  if (e.spec != nullptr && e.spec->link_type) {
    return *e.spec->link_type;
  }
  if (e.hca != nullptr && e.hca->link_type) {
    return *e.hca->link_type;
  }
  if (e.ipoib) {
    return profile::LinkType::ib;
  }
  return std::nullopt;
}

void check_one(const profile::ResolvedNode& node, const Expect& e, const inventory::Port& p,
               std::vector<Result>& out)
{
  const std::string s = e.device + "/" + std::to_string(e.port);
  const std::string state = p.state ? p.state->name() : "unknown";
  const auto wanted =
      e.spec != nullptr && e.spec->state ? *e.spec->state : profile::PortState::active;
  const std::string want_state = upper(profile::to_string(wanted));
  const bool state_ok = p.state == port_state(wanted);
  add(out, "port.state", s, state_ok, want_state, state,
      s + ": state " + state + (state_ok ? "" : ", expected " + want_state));
  const std::string phys = p.phys_state ? p.phys_state->name() : "unknown";
  if (wanted == profile::PortState::active || wanted == profile::PortState::armed ||
      wanted == profile::PortState::init) {
    const bool up = p.phys_state == inventory::PhysState::link_up;
    const std::string link_up = inventory::to_string(inventory::PhysState::link_up);
    add(out, "port.phys_state", s, up, link_up, phys,
        s + ": physical state " + phys + (up ? "" : ", expected " + link_up));
  }
  if (e.spec != nullptr && e.spec->rate) {
    const double want = *e.spec->rate;
    const std::string seen = p.rate_gbps
                                 ? util::format_number(*p.rate_gbps) + " Gb/s (" +
                                       p.width.value_or("?") + " " + p.speed.value_or("?") + ")"
                                 : std::string("unknown");
    const bool ok = p.rate_gbps && *p.rate_gbps + 1e-9 >= want;
    add(out, "port.rate", s, ok, "at least " + util::format_number(want) + " Gb/s", seen,
        s + ": rate " + seen + (ok ? "" : ", expected at least " + util::format_number(want)));
  }
  const std::string layer = p.link_layer ? p.link_layer->name() : "unknown";
  if (const auto link = wanted_link(e); link && *link != profile::LinkType::vpi) {
    const auto want_layer = *link == profile::LinkType::ib ? inventory::LinkLayer::infiniband
                                                           : inventory::LinkLayer::ethernet;
    const std::string w = inventory::to_string(want_layer);
    const bool layer_ok = p.link_layer == want_layer;
    add(out, "port.link_layer", s, layer_ok, w, layer,
        s + ": link layer " + layer + (layer_ok ? "" : ", expected " + w));
  }
  if (p.link_layer != inventory::LinkLayer::infiniband) {
    skip(out, "port.sm", s, "no subnet manager on a " + layer + " port");
    skip(out, "port.lid", s, "no LID on a " + layer + " port");
  } else {
    const int sm = p.sm_lid.value_or(0);
    add(out, "port.sm", s, sm != 0, "SM LID non-zero", "SM LID " + std::to_string(sm),
        sm != 0 ? s + ": subnet manager at LID " + std::to_string(sm)
                : s + ": no subnet manager seen (SM LID 0)");
    const int lid = p.lid.value_or(0);
    add(out, "port.lid", s, lid != 0, "LID assigned", "LID " + std::to_string(lid),
        lid != 0 ? s + ": LID " + std::to_string(lid) : s + ": no LID assigned (LID 0)");
  }
  for (uint16_t want : e.pkeys) {
    const auto same_partition = [want](uint16_t k) { return (k & 0x7fffU) == (want & 0x7fffU); };
    // Bit 15 is full membership: a limited member cannot talk to the other limited members,
    // so a declared full-member P_Key is not met by a limited entry.
    const bool full_wanted = (want & 0x8000U) != 0;
    const bool present = std::any_of(p.pkeys.begin(), p.pkeys.end(), same_partition);
    const bool ok = std::any_of(p.pkeys.begin(), p.pkeys.end(), [&](uint16_t k) {
      return same_partition(k) && (!full_wanted || (k & 0x8000U) != 0);
    });
    std::string table;
    for (uint16_t k : p.pkeys) {
      table += (table.empty() ? "" : " ") + hex(k);
    }
    add(out, "port.pkeys", s, ok, hex(want), table,
        s + ": P_Key " + hex(want) +
            (ok        ? " in the port's table"
             : present ? ": the port is only a limited member of the partition (" + table + ")"
                       : " not in the port's P_Key table (" + table + ")"));
  }
  if (!node.checks.counter_max.empty()) {
    if (p.counters.empty()) {
      skip(out, "port.counters", s, "no error counters read");
    }
    for (const auto& [name, max] : node.checks.counter_max) {
      const auto c = p.counters.find(name);
      if (c == p.counters.end()) {
        if (!p.counters.empty()) {
          skip(out, "port.counters", s + ":" + name, "no such counter on this port");
        }
        continue;
      }
      const bool saturated =
          std::find(p.saturated.begin(), p.saturated.end(), name) != p.saturated.end();
      const bool ok = !saturated && c->second <= max;
      add(out, "port.counters", s + ":" + name, ok, "at most " + std::to_string(max),
          std::to_string(c->second) + (saturated ? " (saturated)" : ""),
          s + ": " + name + " " + std::to_string(c->second) +
              (saturated ? " (saturated: the real count is higher; reset the counters)" : "") +
              (ok ? "" : ", expected at most " + std::to_string(max)));
    }
  }
}

}  // namespace

bool reads_pkey_tables(const profile::ResolvedNode& node)
{
  return std::any_of(node.interfaces.begin(), node.interfaces.end(), is_pkey_child);
}

void check_ports(const profile::ResolvedNode& node, const inventory::Host& host,
                 std::vector<Result>& out)
{
  for (const auto& e : expectations(node, host)) {
    const std::string s = e.device + "/" + std::to_string(e.port);
    const inventory::Port* p = find_port(host, e.device, e.port);
    if (p == nullptr) {
      const bool has_device = std::any_of(host.devices.begin(), host.devices.end(),
                                          [&](const auto& d) { return d.name == e.device; });
      if (has_device) {
        add(out, "port.state", s, false, "present", "absent", s + ": no such port");
      }
      continue;
    }
    check_one(node, e, *p, out);
  }
}

}  // namespace ibsetup::check::detail
