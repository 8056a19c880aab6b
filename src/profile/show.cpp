#include "common/strings.hpp"
#include "common/json.hpp"

#include <ibsetup/profile.hpp>

#include <cstdio>

namespace ibsetup::profile {

namespace {

template <class T, class F>
void optional_value(JsonWriter& j, const Setting<T>& s, F convert)
{
  if (s) {
    j.value(convert(*s));
  } else {
    j.null();
  }
}

}  // namespace

std::string node_to_json(const ResolvedNode& node)
{
  JsonWriter j;
  j.begin_object();
  j.key("host").value(node.host);
  j.key("group").value(static_cast<uint64_t>(node.group));
  j.key("group_hosts").value(node.group_hosts);
  j.key("position").value(static_cast<uint64_t>(node.position));
  j.key("prune").value(node.prune);
  j.key("hcas").begin_array();
  const auto same = [](const auto& v) { return v; };
  for (const auto& h : node.hcas) {
    j.begin_object();
    j.key("device");
    optional_value(j, h.device, same);
    j.key("pci");
    optional_value(j, h.pci, same);
    j.key("link_type");
    optional_value(j, h.link_type, [](LinkType t) { return to_string(t); });
    j.key("firmware_min");
    optional_value(j, h.firmware_min, same);
    j.key("pcie").begin_object();
    j.key("width");
    optional_value(j, h.pcie_width, same);
    j.key("speed_gts");
    optional_value(j, h.pcie_speed, same);
    j.end_object();
    j.key("ports").begin_array();
    for (const auto& p : h.ports) {
      j.begin_object();
      j.key("port").value(p.port);
      j.key("link_type");
      optional_value(j, p.link_type, [](LinkType t) { return to_string(t); });
      j.key("rate_min_gbps");
      optional_value(j, p.rate, same);
      j.key("state");
      optional_value(j, p.state, [](PortState s) { return to_string(s); });
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.key("interfaces").begin_array();
  for (const auto& i : node.interfaces) {
    j.begin_object();
    j.key("name").value(i.name);
    j.key("parent").value(i.parent);
    j.key("pkey");
    if (i.pkey) {
      j.value(util::hex16(*i.pkey));
    } else {
      j.null();
    }
    j.key("mode");
    if (i.mode) {
      j.value(to_string(*i.mode));
    } else {
      j.null();
    }
    j.key("mtu").value(i.mtu);
    j.key("backend").value(to_string(i.backend));
    j.key("device").value(i.device);
    j.key("port").value(i.port);
    j.key("ipv4");
    if (i.ipv4) {
      j.value(i.ipv4->str());
    } else {
      j.null();
    }
    j.key("ipv6");
    if (i.ipv6) {
      j.value(i.ipv6->str());
    } else {
      j.null();
    }
    j.end_object();
  }
  j.end_array();
  j.key("peers").begin_array();
  for (const auto& p : node.peers) {
    j.begin_object();
    j.key("host").value(p.host);
    j.key("addresses").begin_array();
    for (const auto& [ifname, addr] : p.addresses) {
      j.begin_object().key("interface").value(ifname).key("address").value(addr.str());
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.take_line();
}

std::string node_to_text(const ResolvedNode& node)
{
  std::string out = "node " + node.host + " (group " + std::to_string(node.group) + ": " +
                    node.group_hosts + ", position " + std::to_string(node.position) + ")\n";
  if (!node.hcas.empty()) {
    out += "\nHCAs\n";
  }
  for (const auto& h : node.hcas) {
    // Names are checked when the profile is read; escaped all the same, as every text output
    // escapes what came from outside.
    out += "  " + util::escape_text(h.device ? *h.device : std::string("pci ") + *h.pci);
    if (h.device && h.pci) {
      out += " (" + *h.pci + ")";
    }
    if (h.link_type) {
      out += "  link_type " + std::string(to_string(*h.link_type));
    }
    if (h.firmware_min) {
      out += "  firmware >= " + *h.firmware_min;
    }
    if (h.pcie_width || h.pcie_speed) {
      out += "  pcie";
      out += h.pcie_width ? " x" + std::to_string(*h.pcie_width) : "";
      out += h.pcie_speed ? " " + util::format_number(*h.pcie_speed) + " GT/s" : "";
    }
    out += "\n";
    for (const auto& p : h.ports) {
      out += "    port " + std::to_string(p.port);
      out += p.link_type ? "  link_type " + std::string(to_string(*p.link_type)) : "";
      out += p.rate ? "  rate >= " + util::format_number(*p.rate) + " Gb/s" : "";
      out += p.state ? "  state " + std::string(to_string(*p.state)) : "";
      out += "\n";
    }
  }
  out += "\nInterfaces\n";
  char line[512];
  std::snprintf(line, sizeof line, "  %-15s %-15s %-9s %-6s %-15s %-18s %s\n", "NAME",
                "PARENT/PKEY", "MODE", "MTU", "HCA PORT", "IPV4", "IPV6");
  out += line;
  for (const auto& i : node.interfaces) {
    const std::string child =
        i.parent ? *i.parent + "/" + util::hex16(i.pkey.value_or(0)) : std::string("-");
    const std::string hca = i.device ? util::escape_text(*i.device) +
                                           (i.port ? "/" + std::to_string(*i.port) : std::string())
                                     : "-";
    std::snprintf(line, sizeof line, "  %-15s %-15s %-9s %-6s %-15s %-18s %s\n", i.name.c_str(),
                  child.c_str(), i.mode ? to_string(*i.mode) : "(kernel)",
                  i.mtu ? std::to_string(*i.mtu).c_str() : "(max)", hca.c_str(),
                  i.ipv4 ? i.ipv4->str().c_str() : "-", i.ipv6 ? i.ipv6->str().c_str() : "-");
    out += line;
  }
  if (!node.peers.empty()) {
    out += "\nPeers\n";
    for (const auto& p : node.peers) {
      out += "  " + p.host;
      for (const auto& [ifname, addr] : p.addresses) {
        out += "  " + ifname + " " + addr.address.str();
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace ibsetup::profile
