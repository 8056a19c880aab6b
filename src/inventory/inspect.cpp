#include "inventory/parse.hpp"
#include "inventory/sysfs.hpp"

#include "common/strings.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/inventory.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <thread>
#include <cstdio>

namespace ibsetup::inventory {

namespace {

bool is_pci_address(const std::string& s)
{
  // dddd:bb:dd.f
  return s.size() == 12 && s[4] == ':' && s[7] == ':' && s[10] == '.';
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

// Reads one attribute and parses it; warns (naming the file) when present but malformed.
class Reader {
public:
  Reader(const SysfsReader& fs, std::vector<std::string>& warnings) : m_fs(fs), m_warnings(warnings)
  {
  }

  std::optional<std::string> text(const std::string& rel) const
  {
    auto v = m_fs.read(rel);
    if (v && v->empty()) {
      return std::nullopt;
    }
    return v;
  }

  template <class T, class F>
  std::optional<T> parsed(const std::string& rel, F parse, const char* expected) const
  {
    const auto raw = m_fs.read(rel);
    if (!raw) {
      return std::nullopt;
    }
    auto value = parse(*raw);
    if (!value) {
      warn(rel, *raw, expected);
    }
    return value;
  }

  void warn(const std::string& rel, const std::string& raw, const char* expected) const
  {
    m_warnings.push_back(m_fs.root() + "/" + rel + ": cannot parse '" + raw + "' (expected " +
                         expected + ")");
  }

  const SysfsReader& fs() const { return m_fs; }

private:
  const SysfsReader& m_fs;
  std::vector<std::string>& m_warnings;
};

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
  pci.link_speed_gts = r.parsed<double>(d + "current_link_speed", parse_pci_speed, "'N GT/s'");
  pci.link_width = r.parsed<int>(d + "current_link_width", parse_decimal_int, "a number");
  pci.max_link_speed_gts = r.parsed<double>(d + "max_link_speed", parse_pci_speed, "'N GT/s'");
  pci.max_link_width = r.parsed<int>(d + "max_link_width", parse_decimal_int, "a number");
  pci.numa_node = r.parsed<int>(d + "numa_node", parse_decimal_int, "a number");
  if (pci.numa_node && *pci.numa_node < 0) {
    pci.numa_node.reset();
  }
  const std::string bridge = parent_of(*dir);
  if (is_pci_address(last_component(bridge))) {
    pci.bridge = last_component(bridge);
    pci.bridge_max_speed_gts =
        r.parsed<double>(bridge + "/max_link_speed", parse_pci_speed, "'N GT/s'");
    pci.bridge_max_width = r.parsed<int>(bridge + "/max_link_width", parse_decimal_int, "a number");
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

// Counters the kernel keeps in 8, 16 or 32 bits saturate instead of wrapping.
bool saturated(uint64_t v)
{
  return v == 255 || v == 65535 || v == 4294967295ULL;
}

Port read_port(const Reader& r, const std::string& base, int number, bool counters)
{
  Port p;
  p.port = number;
  const std::string d = base + "/";
  if (auto s = r.parsed<CodeName>(d + "state", parse_port_state, "'N: NAME'")) {
    p.state_code = s->code;
    p.state = s->name;
  }
  if (auto s = r.parsed<CodeName>(d + "phys_state", parse_phys_state, "'N: Name'")) {
    p.phys_state_code = s->code;
    p.phys_state = s->name;
  }
  if (auto rate = r.parsed<Rate>(d + "rate", parse_rate, "'N Gb/sec (WX SPEED)'")) {
    p.rate_gbps = rate->gbps;
    p.width = rate->width;
    p.speed = rate->speed;
  }
  p.link_layer = r.text(d + "link_layer");
  p.lid = r.parsed<int>(d + "lid", parse_hex_int, "a hex LID");
  p.sm_lid = r.parsed<int>(d + "sm_lid", parse_hex_int, "a hex LID");
  p.lmc = r.parsed<int>(d + "lid_mask_count", parse_decimal_int, "a number");
  p.cap_mask = r.parsed<std::string>(d + "cap_mask", parse_cap_mask, "a hex mask");
  p.port_guid = r.parsed<std::string>(d + "gids/0", guid_of_gid, "a GID");
  if (p.link_layer && *p.link_layer == "Ethernet") {
    // A RoCE port names its netdev in its GID table (what `rdma link` shows).
    p.netdev = r.text(d + "gid_attrs/ndevs/0");
  }
  // The kernel numbers P_Key entries 0 .. table length - 1; reading until the first missing
  // index saves listing the (large) directory.
  for (int index = 0; index < 0x10000; ++index) {
    const std::string rel = d + "pkeys/" + std::to_string(index);
    const auto raw = r.fs().read(rel);
    if (!raw) {
      break;
    }
    const auto pkey = parse_pkey(*raw);
    if (!pkey) {
      r.warn(rel, *raw, "0xNNNN");
    } else if (*pkey != 0) {
      p.pkeys.push_back(*pkey);
    }
  }
  if (counters) {
    for (const auto& name : r.fs().list(d + "counters")) {
      if (auto v = r.parsed<int64_t>(
              d + "counters/" + name,
              [](const std::string& t) -> std::optional<int64_t> {
                const auto u = util::parse_unsigned(util::trim(t));
                return u ? std::optional<int64_t>(static_cast<int64_t>(*u)) : std::nullopt;
              },
              "a number")) {
        p.counters[name] = static_cast<uint64_t>(*v);
        if (saturated(static_cast<uint64_t>(*v))) {
          p.saturated.push_back(name);
        }
      }
    }
  }
  return p;
}

Device read_device(const Reader& r, const std::string& name, bool counters)
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
  for (const auto& p : numeric_entries(r.fs(), d + "ports")) {
    const auto number = util::parse_unsigned(p);
    if (!number || *number > 255) {
      r.warn(d + "ports/" + p, p, "a port number from 1 to 255");
      continue;
    }
    dev.ports.push_back(read_port(r, d + "ports/" + p, static_cast<int>(*number), counters));
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
  n.mtu = r.parsed<int>(d + "mtu", parse_decimal_int, "a number");
  n.operstate = r.text(d + "operstate");
  if (auto flags = r.parsed<int>(d + "flags", parse_hex_int, "a hex number")) {
    n.admin_up = (*flags & 0x1) != 0;  // IFF_UP
  }
  if (auto c = r.text(d + "carrier")) {
    n.carrier = *c == "1";
  }
  if (n.ipoib) {
    n.mode = r.text(d + "mode");
    n.pkey = r.parsed<uint16_t>(d + "pkey", parse_pkey, "0xNNNN");
    n.parent = r.text(d + "parent");
    if (auto u = r.text(d + "umcast")) {
      n.umcast = *u == "1";
    }
  }
  return n;
}

// Binds netdevs to HCA ports: by port GUID in the IPoIB hardware address (as ibdev2netdev
// does), else by PCI device and dev_port.
void bind_netdevs(const Reader& r, Host& host)
{
  for (auto& n : host.netdevs) {
    const std::string d = "class/net/" + n.name + "/";
    if (n.ipoib) {
      const auto addr = r.text(d + "address");
      const auto guid = addr ? guid_of_ipoib_address(*addr) : std::nullopt;
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
      auto dev_port = r.parsed<int>(d + "dev_port", parse_decimal_int, "a number");
      if (!dev_port) {
        dev_port = r.parsed<int>(d + "dev_id", parse_hex_int, "a hex number");
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

// Reads the devices on up to k_max_threads threads, each with its own reader. A port's
// 128-entry P_Key table is 128 files, so an 8-HCA node means thousands of open/read/close
// calls; two threads cut that wall time by about a third here (measured, bench/).
void read_devices(const Options& options, const std::vector<std::string>& names, Host& host,
                  bool live)
{
  constexpr size_t k_max_threads = 4;
  const size_t threads =
      std::min({names.size(), k_max_threads,
                static_cast<size_t>(std::max(1U, std::thread::hardware_concurrency()))});
  std::vector<Device> devices(names.size());
  std::vector<std::vector<std::string>> warnings(names.size());
  auto work = [&](size_t first) {
    SysfsReader fs(options.sysfs_root, live);
    for (size_t i = first; i < names.size(); i += threads) {
      Reader r(fs, warnings[i]);
      // Nothing may escape a worker thread (it would terminate the process).
      try {
        devices[i] = read_device(r, names[i], options.counters);
      } catch (const std::exception& e) {
        devices[i] = Device{};
        devices[i].name = names[i];
        warnings[i].push_back(fs.root() + "/class/infiniband/" + names[i] +
                              ": cannot be read: " + e.what());
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) {
    pool.emplace_back(work, t);
  }
  work(0);
  for (auto& t : pool) {
    t.join();
  }
  for (size_t i = 0; i < names.size(); ++i) {
    host.devices.push_back(std::move(devices[i]));
    host.warnings.insert(host.warnings.end(), warnings[i].begin(), warnings[i].end());
  }
}

std::string short_hostname()
{
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) {
    return "localhost";
  }
  std::string name = buf;
  return name.substr(0, name.find('.'));
}

}  // namespace

bool is_live_root(const std::string& root)
{
  struct stat a {};
  struct stat b {};
  return stat(root.c_str(), &a) == 0 && stat("/sys", &b) == 0 && a.st_dev == b.st_dev &&
         a.st_ino == b.st_ino;
}

Host inspect(const Options& options)
{
  // This machine's own /sys is trusted to hold only attribute files; a captured tree is not.
  const bool live = is_live_root(options.sysfs_root);
  SysfsReader fs(options.sysfs_root, live);
  if (!fs.is_dir("")) {
    throw EnvironmentError(options.sysfs_root + ": cannot read the sysfs root");
  }
  Host host;
  host.host = short_hostname();
  Reader r(fs, host.warnings);
  std::vector<std::string> names;
  for (const auto& name : fs.list("class/infiniband")) {
    if (fs.is_dir("class/infiniband/" + name)) {
      names.push_back(name);
    } else {
      host.warnings.push_back(fs.root() + "/class/infiniband/" + name + ": dangling link, skipped");
    }
  }
  read_devices(options, names, host, live);
  const bool have_hcas = !host.devices.empty();
  for (const auto& name : fs.list("class/net")) {
    Netdev n = read_netdev(r, name);
    const bool named = std::find(options.netdev_names.begin(), options.netdev_names.end(), name) !=
                       options.netdev_names.end();
    if (n.ipoib || have_hcas || named) {
      host.netdevs.push_back(std::move(n));
    }
  }
  bind_netdevs(r, host);
  host.netdevs.erase(std::remove_if(host.netdevs.begin(), host.netdevs.end(),
                                    [&options](const Netdev& n) {
                                      return !n.ipoib && !n.device &&
                                             std::find(options.netdev_names.begin(),
                                                       options.netdev_names.end(),
                                                       n.name) == options.netdev_names.end();
                                    }),
                     host.netdevs.end());
  if (options.addresses != nullptr) {
    const auto by_index = options.addresses->addresses();
    for (auto& n : host.netdevs) {
      const auto it = n.ifindex ? by_index.find(*n.ifindex) : by_index.end();
      if (it != by_index.end()) {
        n.addresses = it->second;
      }
    }
  }
  if (options.verbs != nullptr) {
    for (auto& dev : host.devices) {
      for (auto& p : dev.ports) {
        p.active_mtu = options.verbs->active_mtu(dev.name, p.port);
      }
    }
  }
  return host;
}

Host inspect_host(Options options)
{
  std::unique_ptr<AddressSource> addresses;
  std::unique_ptr<VerbsSource> verbs;
  if (is_live_root(options.sysfs_root)) {
    addresses = make_netlink_address_source();
    verbs = make_verbs_source();
    options.addresses = addresses.get();
    options.verbs = verbs.get();
  }
  return inspect(options);
}

}  // namespace ibsetup::inventory
