#include "inventory/read.hpp"

#include "inventory/parse.hpp"

#include "common/strings.hpp"

#include <algorithm>

namespace ibsetup::inventory {

namespace {

bool is_pci_address(const std::string& s)
{
  // Anything else in a device link is not a PCI function, and its name would reach mstconfig's
  // argv and the reboot marker. The kernel writes the full form.
  return s.size() == 12 && util::pci_address(s).has_value();
}

std::string last_component(const std::string& path)
{
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string parent_of(const std::string& path)
{
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

std::optional<PciLink> read_pci(const Reader& r, const std::string& device_link)
{
  const auto dir = r.fs().resolve(device_link);
  if (!dir || !is_pci_address(last_component(*dir))) {
    return std::nullopt;
  }
  PciLink pci;
  pci.address = last_component(*dir);
  const std::string d = *dir + "/";
  pci.vendor = r.text(d + "vendor");
  pci.device = r.text(d + "device");
  pci.link_speed_gts =
      r.parsed<double>(d + "current_link_speed", parse_pci_speed, "'N GT/s', at most 1000");
  pci.link_width = r.parsed<int>(d + "current_link_width", parse_lane_count, "0 to 63 lanes");
  pci.max_link_speed_gts =
      r.parsed<double>(d + "max_link_speed", parse_pci_speed, "'N GT/s', at most 1000");
  pci.max_link_width = r.parsed<int>(d + "max_link_width", parse_lane_count, "0 to 63 lanes");
  pci.numa_node = r.parsed<int>(d + "numa_node", parse_decimal_int, "a number");
  if (pci.numa_node && *pci.numa_node < 0) {
    pci.numa_node.reset();
  }
  const std::string bridge = parent_of(*dir);
  if (is_pci_address(last_component(bridge))) {
    pci.bridge = last_component(bridge);
    pci.bridge_max_speed_gts =
        r.parsed<double>(bridge + "/max_link_speed", parse_pci_speed, "'N GT/s', at most 1000");
    pci.bridge_max_width =
        r.parsed<int>(bridge + "/max_link_width", parse_lane_count, "0 to 63 lanes");
  }
  return pci;
}

bool all_digits(const std::string& s)
{
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string> numeric_entries(const SysfsReader& fs, const std::string& dir)
{
  auto entries = fs.list(dir);
  entries.erase(std::remove_if(entries.begin(), entries.end(),
                               [](const std::string& e) { return !all_digits(e); }),
                entries.end());
  std::sort(entries.begin(), entries.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  return entries;
}

// Whether a counter sits at its maximum, where it stays instead of wrapping. The widths are
// the kernel's (drivers/infiniband/core/sysfs.c, PORT_PMA_ATTR): 16 bits for symbol_error
// is not stuck at 255, and a 4-bit local_link_integrity_errors is at 15. The data and packet
// counters are 32 bits, or 64 where the HCA has the extended set (PORT_PMA_ATTR_EXT), which
// sysfs does not show: both maxima count. A name not listed (a driver's own): any of them.
bool saturated(const std::string& name, uint64_t v)
{
  constexpr uint64_t k_all = ~uint64_t{0};
  static const std::pair<const char*, int> widths[] = {
      {"symbol_error", 16},
      {"link_error_recovery", 8},
      {"link_downed", 8},
      {"port_rcv_errors", 16},
      {"port_rcv_remote_physical_errors", 16},
      {"port_rcv_switch_relay_errors", 16},
      {"port_xmit_discards", 16},
      {"port_xmit_constraint_errors", 8},
      {"port_rcv_constraint_errors", 8},
      {"local_link_integrity_errors", 4},
      {"excessive_buffer_overrun_errors", 4},
      {"VL15_dropped", 16},
      {"port_xmit_wait", 32},
      {"port_xmit_data", 0},  // 0: 32 or 64
      {"port_rcv_data", 0},
      {"port_xmit_packets", 0},
      {"port_rcv_packets", 0},
      {"unicast_xmit_packets", 64},
      {"unicast_rcv_packets", 64},
      {"multicast_xmit_packets", 64},
      {"multicast_rcv_packets", 64},
  };
  for (const auto& [counter, bits] : widths) {
    if (name == counter) {
      if (bits == 0) {
        return v == 0xffffffffULL || v == k_all;
      }
      return v == (bits == 64 ? k_all : (uint64_t{1} << bits) - 1);
    }
  }
  return v == 0xffULL || v == 0xffffULL || v == 0xffffffffULL || v == k_all;
}

Port read_port(const Reader& r, const std::string& base, int number, const ReadScope& scope)
{
  Port p;
  p.port = number;
  const std::string d = base + "/";
  if (auto s = r.parsed<CodeName>(d + "state", parse_port_state, "'N: NAME'")) {
    p.state_code = s->code;
    p.state = reading_of<PortState>(s->name);
  }
  if (auto s = r.parsed<CodeName>(d + "phys_state", parse_phys_state, "'N: Name'")) {
    p.phys_state_code = s->code;
    p.phys_state = reading_of<PhysState>(s->name);
  }
  if (auto rate = r.parsed<Rate>(d + "rate", parse_rate, "'N Gb/sec (WX SPEED)'")) {
    p.rate_gbps = rate->gbps;
    p.width = rate->width;
    p.speed = rate->speed;
  }
  if (auto layer = r.text(d + "link_layer")) {
    p.link_layer = reading_of<LinkLayer>(*layer);
  }
  p.lid = r.parsed<int>(d + "lid", parse_hex_int, "a hex LID");
  p.sm_lid = r.parsed<int>(d + "sm_lid", parse_hex_int, "a hex LID");
  p.lmc = r.parsed<int>(d + "lid_mask_count", parse_decimal_int, "a number");
  p.cap_mask = r.parsed<std::string>(d + "cap_mask", parse_cap_mask, "a hex mask");
  p.port_guid = r.parsed<std::string>(d + "gids/0", guid_of_gid, "a GID");
  if (p.link_layer == LinkLayer::ethernet) {
    // A RoCE port names its netdev in its GID table (what `rdma link` shows).
    p.netdev = r.text(d + "gid_attrs/ndevs/0");
  }
  // The kernel numbers P_Key entries 0 .. table length - 1; reading until the first missing
  // index saves listing the (large) directory.
  const auto pkeys = scope.pkey_tables ? r.fs().resolve(d + "pkeys") : std::nullopt;
  size_t malformed = 0;  // the first is quoted, the others counted
  for (int index = 0; pkeys && index < 0x10000; ++index) {
    const std::string entry = std::to_string(index);
    const auto raw = r.fs().read_in(*pkeys, entry);
    if (!raw) {
      r.warn_unreadable(d + "pkeys/" + entry);
      break;
    }
    const auto pkey = parse_pkey(*raw);
    if (!pkey) {
      if (malformed++ == 0) {
        r.warn(d + "pkeys/" + entry, *raw, "0xNNNN");
      }
    } else if (*pkey != 0) {
      p.pkeys.push_back(*pkey);
    }
  }
  if (malformed > 1) {
    r.warn_about(d + "pkeys",
                 std::to_string(malformed - 1) + " more entries that are not 0xNNNN, left out");
  }
  if (scope.counters) {
    for (const auto& name : r.fs().list(d + "counters")) {
      if (auto v = r.parsed<int64_t>(
              d + "counters/" + name,
              [](const std::string& t) -> std::optional<int64_t> {
                const auto u = util::parse_unsigned(util::trim(t));
                return u ? std::optional<int64_t>(static_cast<int64_t>(*u)) : std::nullopt;
              },
              "a number")) {
        p.counters[name] = static_cast<uint64_t>(*v);
        if (saturated(name, static_cast<uint64_t>(*v))) {
          p.saturated.push_back(name);
        }
      }
    }
  }
  return p;
}

}  // namespace

void prefer_own_name(std::string& chosen, const std::string& name, const std::string& dir)
{
  const auto own = [&dir](const std::string& n) {
    return dir.size() > n.size() && dir[dir.size() - n.size() - 1] == '/' &&
           dir.compare(dir.size() - n.size(), n.size(), n) == 0;
  };
  if (chosen.empty() || (own(name) && !own(chosen))) {
    chosen = name;
  }
}

Device read_device(const Reader& r, const std::string& name, const ReadScope& scope)
{
  Device dev;
  dev.name = name;
  const std::string base = "class/infiniband/" + name;
  const std::string d = base + "/";
  if (auto t = r.text(d + "node_type")) {
    const auto colon = t->find(':');
    dev.node_type = std::string(util::trim(colon == std::string::npos ? *t : t->substr(colon + 1)));
  }
  dev.fw_ver = r.text(d + "fw_ver");
  dev.node_guid = r.parsed<std::string>(d + "node_guid", parse_guid, "a GUID");
  dev.sys_image_guid = r.parsed<std::string>(d + "sys_image_guid", parse_guid, "a GUID");
  dev.hca_type = r.text(d + "hca_type");
  dev.board_id = r.text(d + "board_id");
  dev.hw_rev = r.text(d + "hw_rev");
  dev.driver = r.fs().link_name(d + "device/driver");
  dev.pci = read_pci(r, d + "device");
  // A captured tree's ports/3 -> 1 would read port 1's directory again (and its P_Key table):
  // the kernel makes each port a directory of its own, and of several names for one, the one
  // the directory has is read.
  const auto entries = numeric_entries(r.fs(), d + "ports");
  std::map<std::string, std::string> kept;  // resolved directory -> entry
  for (const auto& p : entries) {
    if (const auto dir = r.fs().resolve(d + "ports/" + p)) {
      prefer_own_name(kept[*dir], p, *dir);
    }
  }
  for (const auto& p : entries) {
    // The kernel names a CA's ports 1, 2, ... and a switch's management port 0: "01" (read as a
    // second port 1, after the real one, which is the one a check judged) or a CA's "0" is not
    // one of its names.
    const auto number = util::parse_unsigned(p);
    const bool switch_port0 = p == "0" && dev.node_type && *dev.node_type == "switch";
    if (!number || *number > 255 || (p[0] == '0' && !switch_port0)) {
      r.warn_about(d + "ports/" + p,
                   "not a port (the kernel names ports 1 to 255, and a "
                   "switch's port 0, without leading zeros); left out");
      continue;
    }
    const auto dir = r.fs().resolve(d + "ports/" + p);
    if (dir && kept[*dir] != p) {
      r.warn_about(d + "ports/" + p, "the directory of port " + kept[*dir] + "; left out");
      continue;
    }
    dev.ports.push_back(read_port(r, d + "ports/" + p, static_cast<int>(*number), scope));
  }
  return dev;
}

Netdev read_netdev(const Reader& r, const std::string& name)
{
  Netdev n;
  n.name = name;
  const std::string d = "class/net/" + name + "/";
  n.type = r.parsed<int>(d + "type", parse_decimal_int, "a number");
  n.ipoib = n.type && *n.type == 32;
  n.ifindex = r.parsed<int>(d + "ifindex", parse_decimal_int, "a number");
  n.mtu = r.parsed<int>(d + "mtu", parse_mtu, "a number, 0 or more");
  n.operstate = r.text(d + "operstate");
  if (auto flags = r.parsed<int>(d + "flags", parse_hex_int, "a hex number")) {
    n.admin_up = (*flags & 0x1) != 0;  // IFF_UP
  }
  if (auto c = r.text(d + "carrier")) {
    n.carrier = *c == "1";
  }
  if (n.ipoib) {
    read_ipoib_attributes(r, n);
  }
  return n;
}

void read_ipoib_attributes(const Reader& r, Netdev& n)
{
  const std::string d = "class/net/" + n.name + "/";
  if (auto mode = r.text(d + "mode")) {
    n.mode = reading_of<IpoibMode>(*mode);
  }
  n.pkey = r.parsed<uint16_t>(d + "pkey", parse_pkey, "0xNNNN");
  n.parent = r.text(d + "parent");
  if (auto u = r.text(d + "umcast")) {
    n.umcast = *u == "1";
  }
}

void bind_netdevs(const Reader& r, Host& host,
                  const std::map<std::string, std::optional<std::string>>& ipoib_guids)
{
  if (host.devices.empty()) {
    return;  // nothing to bind to; resolving each netdev's device link costs three syscalls
  }
  for (auto& n : host.netdevs) {
    const std::string d = "class/net/" + n.name + "/";
    if (n.ipoib) {
      const auto found = ipoib_guids.find(n.name);
      const auto guid = found != ipoib_guids.end() ? found->second : std::nullopt;
      for (const auto& dev : host.devices) {
        for (const auto& p : dev.ports) {
          if (guid && p.port_guid && *guid == *p.port_guid) {
            n.device = dev.name;
            n.port = p.port;
          }
        }
      }
      if (n.device) {
        continue;
      }
    }
    const auto netdev_pci = r.fs().resolve(d + "device");
    if (!netdev_pci) {
      continue;
    }
    for (const auto& dev : host.devices) {
      if (r.fs().resolve("class/infiniband/" + dev.name + "/device") != netdev_pci) {
        continue;
      }
      const char* source = "dev_port";
      auto dev_port = r.parsed<int>(d + source, parse_decimal_int, "a number");
      if (!dev_port) {
        source = "dev_id";
        dev_port = r.parsed<int>(d + source, parse_hex_int, "a hex number");
      }
      // The kernel's dev_port and dev_id count a device's ports from 0; a captured tree's
      // 2147483647 would overflow the port number.
      if (dev_port && (*dev_port < 0 || *dev_port > 254)) {
        r.warn_about(d + source, "port index " + std::to_string(*dev_port) +
                                     " not 0 to 254; not bound to a port");
        continue;
      }
      const int port = dev_port ? *dev_port + 1 : 1;
      const bool has_port = std::any_of(dev.ports.begin(), dev.ports.end(),
                                        [&](const Port& p) { return p.port == port; });
      if (has_port) {
        n.device = dev.name;
        n.port = port;
      }
    }
  }
  for (auto& dev : host.devices) {
    for (auto& p : dev.ports) {
      for (const auto& n : host.netdevs) {
        const bool base = !n.parent && (!n.pkey || (*n.pkey & 0x7fffU) == 0x7fffU);
        if (n.device == dev.name && n.port == p.port && base && !p.netdev) {
          p.netdev = n.name;
        }
      }
    }
  }
}

}  // namespace ibsetup::inventory
