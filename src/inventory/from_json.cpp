#include "inventory/parse.hpp"

#include "common/json_read.hpp"
#include "common/strings.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/inventory.hpp>

#include <algorithm>
#include <climits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ibsetup::inventory {

namespace {

// An integer member within [min, max], or null. What the kernel never prints (a negative
// width, an MTU below zero) is refused, naming the member, rather than shown as `x-16`.
std::optional<int> int_within(const json::View& v, int min, int max)
{
  const auto n = v.opt_int();
  if (n && (*n < min || *n > max)) {
    throw InputError(v.path() + ": " + std::to_string(*n) + " is out of range (" +
                     std::to_string(min) + " to " + std::to_string(max) + ")");
  }
  return n;
}

// A PCIe speed in GT/s: 2.5 to 64 today; anything from 0 to 1000 is taken, as by inspect.
std::optional<double> speed_within(const json::View& v)
{
  const auto n = v.opt_number();
  if (n && !(*n >= 0 && *n <= k_max_pci_speed_gts)) {
    throw InputError(v.path() + ": " + util::format_number(*n) +
                     " GT/s is no PCIe link's speed (0 to 1000)");
  }
  return n;
}

PciLink pci_from(const json::View& j)
{
  // Lanes: x1 to x32, 0 when the link is down, 63 (all ones) for a card gone from the bus, as
  // inspect reads them; NUMA node -1 when the platform has none.
  constexpr int k_max_width = k_max_pci_width;
  constexpr int k_max_numa = 1 << 16;
  PciLink p;
  p.address = j["address"].as_string();
  p.vendor = j["vendor"].opt_string();
  p.device = j["device"].opt_string();
  p.link_speed_gts = speed_within(j["link_speed_gts"]);
  p.link_width = int_within(j["link_width"], 0, k_max_width);
  p.max_link_speed_gts = speed_within(j["max_link_speed_gts"]);
  p.max_link_width = int_within(j["max_link_width"], 0, k_max_width);
  p.numa_node = int_within(j["numa_node"], -1, k_max_numa);
  p.bridge = j["bridge"].opt_string();
  p.bridge_max_speed_gts = speed_within(j["bridge_max_speed_gts"]);
  p.bridge_max_width = int_within(j["bridge_max_width"], 0, k_max_width);
  return p;
}

Port port_from(const json::View& j, std::vector<std::string>& warnings)
{
  Port p;
  p.port = j["port"].as_int();
  if (p.port < 0 || p.port > 255) {
    throw InputError(j["port"].path() + ": " + std::to_string(p.port) +
                     " is not a port number (1 to 255, or a switch's 0)");
  }
  // The JSON carries the kernel's names, not its codes ("4: ACTIVE"); the metrics give the
  // codes, and a saved inventory read back must give the same as the sysfs it was taken from.
  // The enumerators are in the kernel's order: PortState from 0 (NOP), PhysState from 1.
  if (auto s = j["state"].opt_string()) {
    p.state = reading_of<PortState>(*s);
    if (p.state->value != PortState::other) {
      p.state_code = static_cast<int>(p.state->value);
    }
  }
  if (auto s = j["phys_state"].opt_string()) {
    p.phys_state = reading_of<PhysState>(*s);
    if (p.phys_state->value != PhysState::other) {
      p.phys_state_code = static_cast<int>(p.phys_state->value) + 1;
    }
  }
  p.rate_gbps = j["rate_gbps"].opt_number();
  // Far above any link (XDR is 800 Gb/s); 1e308 passed every minimum and made metrics +Inf.
  constexpr double k_max_rate_gbps = 1e6;
  if (p.rate_gbps && !(*p.rate_gbps >= 0 && *p.rate_gbps <= k_max_rate_gbps)) {
    throw InputError(j["rate_gbps"].path() + ": " + util::format_number(*p.rate_gbps) +
                     " Gb/s is no link's rate (0 to 1000000)");
  }
  p.width = j["width"].opt_string();
  p.speed = j["speed"].opt_string();
  if (auto s = j["link_layer"].opt_string()) {
    p.link_layer = reading_of<LinkLayer>(*s);
  }
  // Never negative, and no wider than the sysfs reader reads them (the kernel prints a 32-bit
  // LID: OPA's extended LIDs pass 0xffff); the LMC is 3 bits.
  const auto bounded = [&j](const char* key, int max) {
    const auto v = j[key].opt_int();
    if (v && (*v < 0 || *v > max)) {
      throw InputError(j[key].path() + ": " + std::to_string(*v) + " is out of range (0 to " +
                       std::to_string(max) + ")");
    }
    return v;
  };
  p.lid = bounded("lid", 0x7fffffff);
  p.sm_lid = bounded("sm_lid", 0x7fffffff);
  p.lmc = bounded("lmc", 7);
  p.cap_mask = j["cap_mask"].opt_string();
  p.port_guid = j["port_guid"].opt_string();
  if (!j["pkeys"].is_null()) {
    for (const auto& k : j["pkeys"].items()) {
      if (auto v = parse_pkey(k.as_string())) {
        p.pkeys.push_back(*v);
      } else {
        warnings.push_back(k.path() + ": cannot parse the P_Key '" + k.as_string() +
                           "' (expected 0xNNNN), ignored");
      }
    }
  }
  p.active_mtu = j["active_mtu"].opt_int();
  // The IB MTU is one of five sizes (ibv_mtu); another made check expect an IPoIB MTU of
  // that size less 4.
  if (p.active_mtu && *p.active_mtu != 256 && *p.active_mtu != 512 && *p.active_mtu != 1024 &&
      *p.active_mtu != 2048 && *p.active_mtu != 4096) {
    throw InputError(j["active_mtu"].path() + ": " + std::to_string(*p.active_mtu) +
                     " is not an IB MTU (256, 512, 1024, 2048 or 4096)");
  }
  p.netdev = j["netdev"].opt_string();
  return p;
}

// Records that list[i] is named name, refusing a second entry of the same name.
void name_once(std::map<std::string, size_t>& seen, const char* list, size_t i,
               const std::string& name)
{
  // A name sysfs cannot have: an empty one made an HCA declared by PCI address lose every
  // port check, and its rows had no subject.
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos) {
    throw InputError(std::string(list) + "[" + std::to_string(i) + "].name: '" +
                     util::escape_text(name) + "' is not a name sysfs can give");
  }
  const auto [first, added] = seen.emplace(name, i);
  if (!added) {
    throw InputError(std::string(list) + "[" + std::to_string(i) + "].name: " + name +
                     " is listed twice (" + list + "[" + std::to_string(first->second) + "])");
  }
}

// What inspect itself never writes and the planner and checks rely on: names given once, and a
// netdev bound only to a port its HCA lists. A hand-edited or foreign inventory that breaks
// this is refused, naming the place.
void check_references(const Host& h)
{
  // Sets, not pairwise loops: a 16 MiB inventory may list hundreds of thousands of entries.
  std::map<std::string, size_t> devices;
  for (size_t i = 0; i < h.devices.size(); ++i) {
    const auto& d = h.devices[i];
    const std::string at = "devices[" + std::to_string(i) + "]";
    name_once(devices, "devices", i, d.name);
    std::set<int> ports;
    for (size_t p = 0; p < d.ports.size(); ++p) {
      if (d.ports[p].port == 0 && (!d.node_type || *d.node_type != "switch")) {
        throw InputError(at + ".ports[" + std::to_string(p) + "].port: 0 is a switch's port, and " +
                         d.name + " is not a switch");
      }
      if (!ports.insert(d.ports[p].port).second) {
        throw InputError(at + ".ports[" + std::to_string(p) + "].port: " + d.name + " port " +
                         std::to_string(d.ports[p].port) + " is listed twice");
      }
    }
  }
  std::map<std::string, size_t> netdevs;
  for (size_t i = 0; i < h.netdevs.size(); ++i) {
    const auto& n = h.netdevs[i];
    const std::string at = "netdevs[" + std::to_string(i) + "]";
    name_once(netdevs, "netdevs", i, n.name);
    if (!n.device && !n.port) {
      continue;
    }
    if (!n.device || !n.port) {
      throw InputError(at + ": " + n.name + " has " +
                       (n.device ? "a device but no port" : "a port but no device"));
    }
    const auto dev = devices.find(*n.device);
    if (dev == devices.end()) {
      throw InputError(at + ".device: " + n.name + " is on " + *n.device +
                       ", which the inventory does not list");
    }
    const auto& ports = h.devices[dev->second].ports;
    if (std::none_of(ports.begin(), ports.end(),
                     [&](const Port& p) { return p.port == *n.port; })) {
      throw InputError(at + ".port: " + n.name + " is on " + *n.device + " port " +
                       std::to_string(*n.port) + ", which the inventory does not list");
    }
  }
}

}  // namespace

Host host_from_json(const std::string& text)
{
  const json::Json doc = json::parse(text);
  const json::View j(doc, "");
  Host h;
  std::vector<std::string> read_warnings;
  h.host = j["host"].as_string();
  for (const auto& d : j["devices"].items()) {
    Device dev;
    dev.name = d["name"].as_string();
    dev.node_type = d["node_type"].opt_string();
    dev.fw_ver = d["fw_ver"].opt_string();
    dev.node_guid = d["node_guid"].opt_string();
    dev.sys_image_guid = d["sys_image_guid"].opt_string();
    dev.hca_type = d["hca_type"].opt_string();
    dev.board_id = d["board_id"].opt_string();
    dev.hw_rev = d["hw_rev"].opt_string();
    dev.driver = d["driver"].opt_string();
    if (!d["pci"].is_null()) {
      dev.pci = pci_from(d["pci"]);
    }
    for (const auto& p : d["ports"].items()) {
      dev.ports.push_back(port_from(p, read_warnings));
    }
    h.devices.push_back(std::move(dev));
  }
  for (const auto& n : j["netdevs"].items()) {
    Netdev nd;
    nd.name = n["name"].as_string();
    nd.ipoib = n["ipoib"].as_bool();
    nd.device = n["device"].opt_string();
    nd.port = n["port"].opt_int();
    if (auto s = n["mode"].opt_string()) {
      nd.mode = reading_of<IpoibMode>(*s);
    }
    if (auto k = n["pkey"].opt_string()) {
      nd.pkey = parse_pkey(*k);
    }
    nd.parent = n["parent"].opt_string();
    nd.umcast = n["umcast"].opt_bool();
    nd.mtu = int_within(n["mtu"], 0, INT_MAX);
    nd.operstate = n["operstate"].opt_string();
    nd.admin_up = n["admin_up"].opt_bool();
    nd.carrier = n["carrier"].opt_bool();
    for (const auto& a : n["addresses"].items()) {
      const std::string address = a.as_string();
      if (auto prefix = parse_address(address)) {
        nd.addresses.push_back(*prefix);
      } else {
        // The planner always ignored such an address; now the user hears of it.
        read_warnings.push_back(a.path() + ": cannot parse the address '" + address +
                                "' (expected ADDRESS/LENGTH), ignored");
      }
    }
    h.netdevs.push_back(std::move(nd));
  }
  for (const auto& w : j["warnings"].items()) {
    h.warnings.push_back(w.as_string());
  }
  h.warnings.insert(h.warnings.end(), read_warnings.begin(), read_warnings.end());
  check_references(h);
  return h;
}

}  // namespace ibsetup::inventory
