#include "common/strings.hpp"
#include "common/json.hpp"

#include <ibsetup/inventory.hpp>

#include <algorithm>

namespace ibsetup::inventory {

namespace {

template <class E>
std::optional<std::string> name_of(const std::optional<Reading<E>>& r)
{
  return r ? std::optional<std::string>(r->name()) : std::nullopt;
}

void pci_json(JsonWriter& j, const PciLink& pci)
{
  j.begin_object();
  j.key("address").value(pci.address);
  j.key("vendor").value(pci.vendor);
  j.key("device").value(pci.device);
  j.key("link_speed_gts").value(pci.link_speed_gts);
  j.key("link_width").value(pci.link_width);
  j.key("max_link_speed_gts").value(pci.max_link_speed_gts);
  j.key("max_link_width").value(pci.max_link_width);
  j.key("numa_node").value(pci.numa_node);
  j.key("bridge").value(pci.bridge);
  j.key("bridge_max_speed_gts").value(pci.bridge_max_speed_gts);
  j.key("bridge_max_width").value(pci.bridge_max_width);
  j.end_object();
}

void port_json(JsonWriter& j, const Port& p)
{
  j.begin_object();
  j.key("port").value(p.port);
  j.key("state").value(name_of(p.state));
  j.key("phys_state").value(name_of(p.phys_state));
  j.key("rate_gbps").value(p.rate_gbps);
  j.key("width").value(p.width);
  j.key("speed").value(p.speed);
  j.key("link_layer").value(name_of(p.link_layer));
  j.key("lid").value(p.lid);
  j.key("sm_lid").value(p.sm_lid);
  j.key("lmc").value(p.lmc);
  j.key("cap_mask").value(p.cap_mask);
  j.key("port_guid").value(p.port_guid);
  j.key("pkeys").begin_array();
  for (const auto k : p.pkeys) {
    j.value(util::hex16(k));
  }
  j.end_array();
  j.key("active_mtu").value(p.active_mtu);
  j.key("netdev").value(p.netdev);
  if (!p.counters.empty()) {
    j.key("counters").begin_object();
    for (const auto& [name, v] : p.counters) {
      j.key(name).value(v);
    }
    j.end_object();
    j.key("saturated_counters").begin_array();
    for (const auto& name : p.saturated) {
      j.value(name);
    }
    j.end_array();
  }
  j.end_object();
}

void netdev_json(JsonWriter& j, const Netdev& n)
{
  j.begin_object();
  j.key("name").value(n.name);
  j.key("ipoib").value(n.ipoib);
  j.key("device").value(n.device);
  j.key("port").value(n.port);
  j.key("mode").value(name_of(n.mode));
  j.key("pkey");
  if (n.pkey) {
    j.value(util::hex16(*n.pkey));
  } else {
    j.null();
  }
  j.key("parent").value(n.parent);
  j.key("umcast").value(n.umcast);
  j.key("mtu").value(n.mtu);
  j.key("operstate").value(n.operstate);
  j.key("admin_up").value(n.admin_up);
  j.key("carrier").value(n.carrier);
  j.key("addresses").begin_array();
  for (const auto& a : n.addresses) {
    j.value(a.str());
  }
  j.end_array();
  j.end_object();
}

// Values read from sysfs and netlink are outside text: escaped for the terminal.
std::string opt(const std::optional<std::string>& s, const char* none = "?")
{
  return s ? util::escape_text(*s) : none;
}

template <class E>
std::string opt(const std::optional<Reading<E>>& r)
{
  return opt(name_of(r));
}

std::string esc(const std::string& s)
{
  return util::escape_text(s);
}

template <class T>
std::string opt_num(const std::optional<T>& v)
{
  return v ? util::format_number(static_cast<double>(*v)) : "?";
}

// A PCIe link below what both ends support is degraded.
bool pci_degraded(const PciLink& pci)
{
  auto below = [](const auto& cur, const auto& card, const auto& bridge) {
    if (!cur || !card) {
      return false;
    }
    auto expected = *card;
    if (bridge && *bridge > 0) {  // 0: a conventional PCI bridge's (a VM's), not a limit
      expected = std::min(expected, *bridge);
    }
    return *cur < expected;
  };
  return below(pci.link_width, pci.max_link_width, pci.bridge_max_width) ||
         below(pci.link_speed_gts, pci.max_link_speed_gts, pci.bridge_max_speed_gts);
}

}  // namespace

std::string host_to_json(const Host& host)
{
  JsonWriter j;
  j.begin_object();
  j.key("host").value(host.host);
  j.key("devices").begin_array();
  for (const auto& d : host.devices) {
    j.begin_object();
    j.key("name").value(d.name);
    j.key("node_type").value(d.node_type);
    j.key("fw_ver").value(d.fw_ver);
    j.key("node_guid").value(d.node_guid);
    j.key("sys_image_guid").value(d.sys_image_guid);
    j.key("hca_type").value(d.hca_type);
    j.key("board_id").value(d.board_id);
    j.key("hw_rev").value(d.hw_rev);
    j.key("driver").value(d.driver);
    j.key("pci");
    if (d.pci) {
      pci_json(j, *d.pci);
    } else {
      j.null();
    }
    j.key("ports").begin_array();
    for (const auto& p : d.ports) {
      port_json(j, p);
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.key("netdevs").begin_array();
  for (const auto& n : host.netdevs) {
    netdev_json(j, n);
  }
  j.end_array();
  j.key("warnings").begin_array();
  for (const auto& w : host.warnings) {
    j.value(w);
  }
  j.end_array();
  j.end_object();
  return j.take_line();
}

std::string host_to_text(const Host& host)
{
  std::string out = "host " + esc(host.host) + ": " + std::to_string(host.devices.size()) +
                    (host.devices.size() == 1 ? " HCA" : " HCAs") + "\n";
  for (const auto& d : host.devices) {
    out += "\n" + esc(d.name) + "  " + opt(d.hca_type) + "  fw " + opt(d.fw_ver) + "  node " +
           opt(d.node_guid) + "  driver " + opt(d.driver) + "\n";
    if (d.pci) {
      const auto& p = *d.pci;
      out += std::string(pci_degraded(p) ? "! " : "  ") + "PCI " + esc(p.address) + "  " +
             opt_num(p.link_speed_gts) + " GT/s x" + opt_num(p.link_width) + " (card max " +
             opt_num(p.max_link_speed_gts) + " GT/s x" + opt_num(p.max_link_width);
      if (p.bridge) {
        out += ", bridge max " + opt_num(p.bridge_max_speed_gts) + " GT/s x" +
               opt_num(p.bridge_max_width);
      }
      out += ")  NUMA " + (p.numa_node ? std::to_string(*p.numa_node) : std::string("-")) +
             (pci_degraded(p) ? "  DEGRADED" : "") + "\n";
    } else {
      out += "  PCI -\n";
    }
    for (const auto& p : d.ports) {
      const bool ib = p.link_layer == LinkLayer::infiniband;
      const bool bad = p.state != PortState::active || (ib && p.sm_lid && *p.sm_lid == 0);
      out += std::string(bad ? "! " : "  ") + "port " + std::to_string(p.port) + "  " +
             opt(p.state) + "  " + opt(p.phys_state) + "  " + opt_num(p.rate_gbps) + " Gb/s (" +
             opt(p.width) + (p.speed ? " " + esc(*p.speed) : std::string()) + ")  " +
             opt(p.link_layer);
      if (ib) {
        out += "  LID " + opt_num(p.lid) + "  SM " + opt_num(p.sm_lid) +
               (p.sm_lid && *p.sm_lid == 0 ? " (no subnet manager)" : "");
      }
      if (p.active_mtu) {
        out += "  IB MTU " + std::to_string(*p.active_mtu);
      }
      out += "\n";
      for (const auto& n : host.netdevs) {
        if (n.device != d.name || n.port != p.port) {
          continue;
        }
        const bool down = !n.operstate || *n.operstate != "up";
        out += std::string(down ? "!   " : "    ") + esc(n.name);
        if (n.ipoib) {
          out += "  " + opt(n.mode) + "  pkey " + (n.pkey ? util::hex16(*n.pkey) : "?");
        }
        out += "  mtu " + opt_num(n.mtu) + "  " + opt(n.operstate);
        for (const auto& a : n.addresses) {
          out += "  " + esc(a.str());
        }
        out += "\n";
      }
    }
  }
  std::vector<const Netdev*> unbound;
  for (const auto& n : host.netdevs) {
    if (!n.device) {
      unbound.push_back(&n);
    }
  }
  if (!unbound.empty()) {
    out += "\nIPoIB netdevs on no known HCA port\n";
    for (const auto* n : unbound) {
      out += "! " + esc(n->name) + "  " + opt(n->mode) + "  mtu " + opt_num(n->mtu) + "\n";
    }
  }
  for (const auto& w : host.warnings) {
    out += "warning: " + esc(w) + "\n";
  }
  return out;
}

}  // namespace ibsetup::inventory
