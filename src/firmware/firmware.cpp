#include <ibsetup/firmware.hpp>
#include <ibsetup/render.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>

#include <unistd.h>

namespace ibsetup::firmware {

const char* const k_reboot_marker = "/run/ibsetup/reboot-required";

namespace {

std::optional<profile::LinkType> running_type(const std::optional<std::string>& link_layer)
{
  if (link_layer == "InfiniBand") {
    return profile::LinkType::ib;
  }
  if (link_layer == "Ethernet") {
    return profile::LinkType::eth;
  }
  return std::nullopt;
}

const inventory::Device* find_device(const inventory::Host& host, const profile::HcaSpec& hca)
{
  for (const auto& d : host.devices) {
    if (hca.device ? d.name == *hca.device : (hca.pci && d.pci && d.pci->address == *hca.pci)) {
      return &d;
    }
  }
  return nullptr;
}

// The HCA's ports and their desired link types: an HCA-wide link_type covers every port the
// host shows (and the ones the profile lists); a port's own link_type wins.
std::map<int, profile::LinkType> desired_ports(const profile::HcaSpec& hca,
                                               const inventory::Device& device)
{
  std::map<int, profile::LinkType> out;
  if (hca.link_type) {
    for (const auto& p : device.ports) {
      out[p.port] = *hca.link_type;
    }
    for (const auto& p : hca.ports) {
      out[p.port] = *hca.link_type;
    }
    if (out.empty()) {
      out[1] = *hca.link_type;
    }
  }
  for (const auto& p : hca.ports) {
    if (p.link_type) {
      out[p.port] = *p.link_type;
    }
  }
  return out;
}

// The HCA port an interface runs on: as declared, else where the host has the netdev (a
// child runs where its parent does).
std::optional<std::pair<std::string, int>> interface_port(const profile::ResolvedNode& node,
                                                          const inventory::Host& host,
                                                          const profile::ResolvedInterface& i)
{
  if (i.device && i.port) {
    return std::make_pair(*i.device, *i.port);
  }
  const std::string name = i.parent ? *i.parent : i.name;
  if (i.parent) {
    for (const auto& p : node.interfaces) {
      if (p.name == *i.parent && p.device && p.port) {
        return std::make_pair(*p.device, *p.port);
      }
    }
  }
  for (const auto& n : host.netdevs) {
    if (n.name == name && n.device && n.port) {
      return std::make_pair(*n.device, *n.port);
    }
  }
  return std::nullopt;
}

void warn_ipoib_on_ethernet(const profile::ResolvedNode& node, const inventory::Host& host,
                            State& state)
{
  for (const auto& i : node.interfaces) {
    const auto where = interface_port(node, host, i);
    if (!where) {
      continue;
    }
    for (const auto& d : state.devices) {
      for (const auto& p : d.ports) {
        if (d.device != where->first || p.port != where->second) {
          continue;
        }
        const std::string what = i.name + ": IPoIB is declared on " + d.device + " port " +
                                 std::to_string(p.port) + ", whose link type ";
        if (p.desired == profile::LinkType::eth) {
          state.warnings.push_back(what + "the profile sets to eth (IPoIB needs InfiniBand)");
        } else if (p.next_boot == profile::LinkType::eth) {
          state.warnings.push_back(what +
                                   "is ETH in the firmware for the next boot (IPoIB needs "
                                   "InfiniBand)");
        }
      }
    }
  }
}

}  // namespace

bool PortLinkType::reboot_pending() const
{
  if (!next_boot || *next_boot == profile::LinkType::vpi) {
    return false;
  }
  const auto running = running_type(link_layer);
  return running && *running != *next_boot;
}

bool DeviceLinkTypes::differs() const
{
  return std::any_of(ports.begin(), ports.end(), [](const auto& p) { return p.differs(); });
}

bool DeviceLinkTypes::reboot_pending() const
{
  return std::any_of(ports.begin(), ports.end(), [](const auto& p) { return p.reboot_pending(); });
}

bool Report::reboot_required() const
{
  return std::any_of(state.devices.begin(), state.devices.end(),
                     [](const auto& d) { return d.reboot_pending(); });
}

bool declares_link_type(const profile::ResolvedNode& node)
{
  for (const auto& h : node.hcas) {
    if (h.link_type) {
      return true;
    }
    for (const auto& p : h.ports) {
      if (p.link_type) {
        return true;
      }
    }
  }
  return false;
}

State query_state(const profile::ResolvedNode& node, const inventory::Host& host, Tool* tool)
{
  State state;
  state.host = node.host;
  state.declared = declares_link_type(node);
  // Every HCA is located and every query made before the caller may set anything, so a
  // problem with the second HCA leaves the first untouched.
  for (const auto& hca : node.hcas) {
    const std::string label = hca.device ? *hca.device : hca.pci ? *hca.pci : hca.path;
    const inventory::Device* device = find_device(host, hca);
    if (device == nullptr) {
      if (!hca.link_type && std::none_of(hca.ports.begin(), hca.ports.end(),
                                         [](const auto& p) { return bool(p.link_type); })) {
        continue;
      }
      throw InputError(hca.path + ": HCA " + label +
                       " is not on this host; its link_type cannot be checked");
    }
    const auto desired = desired_ports(hca, *device);
    if (desired.empty()) {
      continue;
    }
    DeviceLinkTypes d;
    d.device = device->name;
    if (device->pci) {
      d.pci = device->pci->address;
    } else if (hca.pci) {
      d.pci = *hca.pci;
    } else {
      throw EnvironmentError(hca.path + ": " + device->name +
                             " has no PCI address in sysfs (no 'device' link), and mstconfig "
                             "needs one; give the HCA's pci: in the profile");
    }
    for (const auto& [port, type] : desired) {
      PortLinkType p;
      p.port = port;
      p.desired = type;
      for (const auto& ip : device->ports) {
        if (ip.port == port) {
          p.link_layer = ip.link_layer;
        }
      }
      d.ports.push_back(p);
    }
    state.devices.push_back(std::move(d));
  }
  if (tool != nullptr) {
    state.queried = true;
    for (auto& d : state.devices) {
      std::vector<int> ports;
      for (const auto& p : d.ports) {
        ports.push_back(p.port);
      }
      for (const auto& [port, type] : tool->query(d.pci, ports)) {
        for (auto& p : d.ports) {
          if (p.port == port) {
            p.next_boot = type;
          }
        }
      }
    }
  }
  warn_ipoib_on_ethernet(node, host, state);
  return state;
}

Report apply_state(const State& state, Tool& tool)
{
  Report report;
  report.state = state;
  for (auto& d : report.state.devices) {
    if (!d.differs()) {
      continue;
    }
    std::vector<std::pair<int, profile::LinkType>> values;
    std::vector<int> ports;
    for (const auto& p : d.ports) {
      ports.push_back(p.port);
      if (p.differs()) {
        values.emplace_back(p.port, p.desired);
      }
    }
    const std::string where = d.device + " (" + d.pci + ")";
    try {
      tool.set(d.pci, values);
    } catch (const Error& e) {
      report.failure = where + ": " + e.what();
      return report;
    }
    std::vector<std::pair<int, profile::LinkType>> confirmed;
    try {
      confirmed = tool.query(d.pci, ports);
    } catch (const Error& e) {
      report.failure =
          where + ": mstconfig accepted the change but querying it again failed: " + e.what();
      return report;
    }
    for (auto& p : d.ports) {
      const auto before = p.next_boot;
      for (const auto& [port, type] : confirmed) {
        if (port == p.port) {
          p.next_boot = type;
        }
      }
      const bool wanted = std::any_of(values.begin(), values.end(),
                                      [&](const auto& v) { return v.first == p.port; });
      if (!wanted) {
        continue;
      }
      if (p.next_boot != p.desired) {
        report.failure = where + " port " + std::to_string(p.port) + ": mstconfig accepted " +
                         mst_name(p.desired) + " but the next boot still shows " +
                         (p.next_boot ? mst_name(*p.next_boot) : "nothing");
        return report;
      }
      report.done.push_back(Change{d.device, d.pci, p.port, before, p.desired});
    }
  }
  return report;
}

void update_reboot_marker(const std::string& path, const State& state)
{
  const std::filesystem::path target = std::filesystem::absolute(path);
  std::string lines;
  for (const auto& d : state.devices) {
    if (!d.reboot_pending()) {
      continue;
    }
    lines += d.device + " " + d.pci;
    for (const auto& p : d.ports) {
      if (p.reboot_pending()) {
        lines += " LINK_TYPE_P" + std::to_string(p.port) + "=" + mst_name(*p.next_boot) +
                 " (running " + p.link_layer.value_or("?") + ")";
      }
    }
    lines += "\n";
  }
  if (lines.empty()) {
    if (unlink(target.c_str()) != 0 && errno != ENOENT) {
      throw EnvironmentError(target.string() +
                             ": cannot remove the stale reboot marker: " + std::strerror(errno));
    }
    return;
  }
  render::RenderedFile file;
  file.path = target.relative_path().string();
  file.content = std::string(render::k_marker) + "\n" +
                 "# Firmware link types change at the next boot; reboot to load them.\n" + lines;
  file.mode = 0644;
  render::write_file("/", file);
}

}  // namespace ibsetup::firmware
