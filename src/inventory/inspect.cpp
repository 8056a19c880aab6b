// Inspecting a host: which devices and netdevs to read, on which threads, and the live sources
// (netlink addresses, verbs) on this machine's own /sys.
#include "inventory/inspect_scope.hpp"
#include "inventory/netdev_source.hpp"
#include "inventory/parse.hpp"
#include "inventory/read.hpp"
#include "inventory/reader_tables.hpp"
#include "os/cpus.hpp"
#include "os/hostname.hpp"
#include "os/spent_fds.hpp"
#include "os/sysfs.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/inventory.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace ibsetup::inventory {

namespace {

std::atomic<bool> g_private_reader_tables{false};

// A node's own sysfs gives a few warnings; a damaged or hostile captured tree can give one per
// file (each P_Key entry of every port). Past k_max_warnings the rest are counted, not kept.
constexpr size_t k_max_warnings = 200;

// The entries of class/infiniband to read, in order. A captured tree's second link to one
// device would read it (its ports, its P_Key tables) again: the kernel links each device once,
// under its directory's name, which is the name kept.
std::vector<std::string> device_names(const SysfsReader& fs, std::vector<std::string>& warnings)
{
  std::vector<std::pair<std::string, std::string>> entries;  // name, resolved directory
  std::map<std::string, std::string> kept;                   // directory -> name
  for (const auto& name : fs.list("class/infiniband")) {
    const std::string rel = "class/infiniband/" + name;
    const auto dir = fs.is_dir(rel) ? fs.resolve(rel) : std::nullopt;
    if (!dir) {
      warnings.push_back(fs.root() + "/" + rel + ": dangling link, skipped");
      continue;
    }
    entries.emplace_back(name, *dir);
    prefer_own_name(kept[*dir], name, *dir);
  }
  std::vector<std::string> names;
  for (const auto& [name, dir] : entries) {
    const std::string& chosen = kept[dir];
    if (chosen == name) {
      names.push_back(name);
    } else {
      warnings.push_back(fs.root() + "/class/infiniband/" + name + ": the same device as " +
                         chosen + ", skipped");
    }
  }
  return names;
}

void cap_warnings(std::vector<std::string>& warnings)
{
  if (warnings.size() > k_max_warnings) {
    const size_t more = warnings.size() - k_max_warnings;
    warnings.resize(k_max_warnings);
    warnings.push_back(std::to_string(more) + " more warnings left out");
  }
}

// Reads the devices on worker threads, each with its own reader, while the calling thread first
// runs `alongside` (the netdevs) and then helps. A port's 128-entry P_Key table is
// 128 files, so an 8-HCA node means thousands of open/read/close calls; bench/ measures it.
void read_devices(const ReadScope& scope, const SysfsReader& caller_fs,
                  const std::vector<std::string>& names, Host& host,
                  const std::function<void()>& alongside)
{
  // One worker per free CPU while the caller reads the netdevs and then helps: measured on 2
  // idle CPUs, 8 HCAs, this beat one worker plus the caller by about a sixth.
  const size_t workers = reader_workers(names.size(), usable_cpus(), other_runnable_tasks());
  std::vector<Device> devices(names.size());
  std::vector<std::vector<std::string>> warnings(names.size());
  std::atomic<size_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr failed;  // the first error that is not one device's own
  const auto keep_error = [&] {
    const std::lock_guard<std::mutex> hold(error_mutex);
    if (!failed) {
      failed = std::current_exception();
    }
  };
  // A worker has its own reader (a reader is not thread-safe); the caller goes on with its own,
  // so that it holds one reader's cached directories, not two.
  auto work = [&](bool worker) {
    // Nothing may escape a thread (it would terminate the process): errors are kept and
    // rethrown once every thread has been joined.
    try {
      std::optional<SysfsReader> own;
      if (worker) {
        if (private_reader_tables()) {
          own_descriptor_table();  // reader_tables.hpp says why and when
        }
        own.emplace(caller_fs.root(), caller_fs.live());
      }
      const SysfsReader& fs = worker ? *own : caller_fs;
      for (size_t i = next++; i < names.size(); i = next++) {
        Reader r(fs, warnings[i]);
        try {
          devices[i] = read_device(r, names[i], scope);
        } catch (const std::exception& e) {
          devices[i] = Device{};
          devices[i].name = names[i];
          warnings[i].push_back(fs.root() + "/class/infiniband/" + names[i] +
                                ": cannot be read: " + e.what());
        }
      }
    } catch (...) {
      keep_error();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers);  // no reallocation (and so no throw) once a thread runs
  try {
    for (size_t t = 0; t < workers; ++t) {
      pool.emplace_back(work, true);
    }
  } catch (...) {
    // No thread to be had (EAGAIN): the threads that started and this one do the work.
  }
  try {
    if (alongside) {
      alongside();
    }
  } catch (...) {
    keep_error();
  }
  work(false);
  for (auto& t : pool) {
    t.join();
  }
  if (failed) {
    std::rethrow_exception(failed);
  }
  for (size_t i = 0; i < names.size(); ++i) {
    host.devices.push_back(std::move(devices[i]));
    host.warnings.insert(host.warnings.end(), warnings[i].begin(), warnings[i].end());
  }
}

bool same_names(const std::vector<NetdevReading>& readings, std::vector<std::string> listed)
{
  std::vector<std::string> dumped;
  dumped.reserve(readings.size());
  for (const auto& r : readings) {
    dumped.push_back(r.netdev.name);
  }
  std::sort(dumped.begin(), dumped.end());
  std::sort(listed.begin(), listed.end());
  return dumped == listed;
}

}  // namespace

void set_private_reader_tables(bool on)
{
  g_private_reader_tables.store(on, std::memory_order_relaxed);
}

bool private_reader_tables()
{
  return g_private_reader_tables.load(std::memory_order_relaxed);
}

bool is_live_root(const std::string& root)
{
  struct stat a {};
  struct stat b {};
  return stat(root.c_str(), &a) == 0 && stat("/sys", &b) == 0 && a.st_dev == b.st_dev &&
         a.st_ino == b.st_ino;
}

Host inspect(const Options& options)
{
  return inspect(options, nullptr);
}

Host inspect(const Options& options, NetdevSource* netdevs, bool pkey_tables)
{
  // This machine's own /sys is trusted to hold only attribute files; a captured tree is not.
  const bool live = is_live_root(options.sysfs_root);
  SysfsReader fs(options.sysfs_root, live);
  if (!fs.is_dir("")) {
    throw EnvironmentError(options.sysfs_root + ": cannot read the sysfs root");
  }
  Host host;
  host.host = os::short_hostname().value_or("localhost");
  Reader r(fs, host.warnings);
  const std::vector<std::string> names = device_names(fs, host.warnings);
  // Netdevs and addresses are read while the devices are; their warnings follow the devices'.
  std::vector<std::string> netdev_warnings;
  const Reader nr(fs, netdev_warnings);
  const bool have_hcas = !names.empty();
  std::map<std::string, std::optional<std::string>> ipoib_guids;
  std::map<int, std::vector<std::string>> by_index;
  bool names_differ = false;                // netlink's netdevs are not the ones /sys lists
  std::map<int, std::string> dumped_names;  // then: netlink's name for each index
  // Netlink's name for n's index, when the names differ; null when netlink has none.
  const auto netlink_name = [&dumped_names](const Netdev& n) -> const std::string* {
    const auto named = n.ifindex ? dumped_names.find(*n.ifindex) : dumped_names.end();
    return named == dumped_names.end() ? nullptr : &named->second;
  };
  const auto agrees = [&netlink_name](const Netdev& n) {
    const std::string* name = netlink_name(n);
    return name != nullptr && *name == n.name;
  };
  read_devices({options.counters, pkey_tables}, fs, names, host, [&] {
    const auto keep = [&](Netdev n, const std::optional<std::string>& address) {
      const bool named = std::find(options.netdev_names.begin(), options.netdev_names.end(),
                                   n.name) != options.netdev_names.end();
      if (n.ipoib) {
        ipoib_guids[n.name] = address ? guid_of_ipoib_address(*address) : std::nullopt;
      }
      if (n.ipoib || have_hcas || named) {
        host.netdevs.push_back(std::move(n));
      }
    };
    std::vector<NetdevReading> readings;
    if (netdevs != nullptr) {
      readings = netdevs->netdevs();
      if (!same_names(readings, fs.list("class/net"))) {
        // This /sys belongs to another network namespace (`unshare -n` without a remount of
        // sysfs, or a captured tree mounted over /sys), or a netdev was renamed, created or
        // deleted in between: read it as before, whole, and bind an address only to the netdev
        // netlink names for its index.
        for (const auto& reading : readings) {
          if (reading.netdev.ifindex) {
            dumped_names[*reading.netdev.ifindex] = reading.netdev.name;
          }
        }
        readings.clear();
        netdevs = nullptr;
        names_differ = true;
      }
    }
    if (netdevs != nullptr) {
      for (auto& reading : readings) {
        if (reading.netdev.ipoib && !reading.ipoib_attributes) {
          read_ipoib_attributes(nr, reading.netdev);
        }
        keep(std::move(reading.netdev), reading.address);
      }
    } else {
      for (const auto& name : fs.list("class/net")) {
        Netdev n = read_netdev(nr, name);
        const auto address = n.ipoib ? nr.text("class/net/" + name + "/address") : std::nullopt;
        keep(std::move(n), address);
      }
    }
    // With no netdev named as netlink names its index, the dump could bind nothing.
    const bool any_agrees =
        !names_differ || std::any_of(host.netdevs.begin(), host.netdevs.end(), agrees);
    if (options.addresses != nullptr && any_agrees) {
      by_index = options.addresses->addresses();
    } else if (options.addresses != nullptr && !host.netdevs.empty()) {
      netdev_warnings.push_back(fs.root() +
                                "/class/net: no netdev has the name netlink gives its interface "
                                "index (another network namespace?): addresses not read");
    }
  });
  host.warnings.insert(host.warnings.end(), netdev_warnings.begin(), netdev_warnings.end());
  bind_netdevs(r, host, ipoib_guids);
  host.netdevs.erase(std::remove_if(host.netdevs.begin(), host.netdevs.end(),
                                    [&options](const Netdev& n) {
                                      return !n.ipoib && !n.device &&
                                             std::find(options.netdev_names.begin(),
                                                       options.netdev_names.end(),
                                                       n.name) == options.netdev_names.end();
                                    }),
                     host.netdevs.end());
  for (auto& n : host.netdevs) {
    const auto it = n.ifindex ? by_index.find(*n.ifindex) : by_index.end();
    if (it == by_index.end()) {
      continue;
    }
    if (names_differ && !agrees(n)) {
      // In another namespace an index is another netdev's: an address would land on whichever
      // netdev of this /sys shares its number.
      const std::string* name = netlink_name(n);
      host.warnings.push_back(
          "netlink: " + n.name + ": interface index " + std::to_string(*n.ifindex) +
          " is another netdev's in netlink's namespace (" +
          (name == nullptr ? std::string("none") : *name) + "): its addresses are not read");
      continue;
    }
    for (const auto& text : it->second) {
      if (auto a = parse_address(text)) {
        n.addresses.push_back(*a);
      } else {
        // The planner always ignored such an address; now the user hears of it.
        host.warnings.push_back("netlink: " + n.name + ": cannot parse the address '" + text +
                                "' (expected ADDRESS/LENGTH), ignored");
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
  cap_warnings(host.warnings);
  return host;
}

Host inspect_host(Options options)
{
  return inspect_host(std::move(options), true);
}

Host inspect_host(Options options, bool pkey_tables)
{
  std::unique_ptr<AddressSource> addresses;
  std::unique_ptr<VerbsSource> verbs;
  std::unique_ptr<NetdevSource> netdevs;
  if (is_live_root(options.sysfs_root)) {
    addresses = make_netlink_address_source();
    verbs = make_verbs_source();
    netdevs = make_netlink_netdev_source();
    options.addresses = addresses.get();
    options.verbs = verbs.get();
  }
  return inspect(options, netdevs.get(), pkey_tables);
}

}  // namespace ibsetup::inventory
