// Reading one device or netdev from sysfs, with warnings that name the file; inspect.cpp
// decides which to read, on which thread, and puts the host together.
#pragma once

#include "common/strings.hpp"
#include "os/sysfs.hpp"

#include <ibsetup/inventory.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ibsetup::inventory {

// Reads one attribute and parses it; warns (naming the file) when present but malformed.
class Reader {
public:
  Reader(const SysfsReader& fs, std::vector<std::string>& warnings) : m_fs(fs), m_warnings(warnings)
  {
  }

  std::optional<std::string> text(const std::string& rel) const
  {
    auto v = m_fs.read(rel);
    if (!v) {
      warn_unreadable(rel);
    } else if (v->empty()) {
      return std::nullopt;
    }
    return v;
  }

  template <class T, class F>
  std::optional<T> parsed(const std::string& rel, F parse, const char* expected) const
  {
    const auto raw = m_fs.read(rel);
    if (!raw) {
      warn_unreadable(rel);
      return std::nullopt;
    }
    auto value = parse(*raw);
    if (!value) {
      warn(rel, *raw, expected);
    }
    return value;
  }

  // Quotes at most k_quoted bytes of the value: an attribute may hold 64 KiB, and a captured
  // tree's P_Key table thousands of them.
  void warn(const std::string& rel, const std::string& raw, const char* expected) const
  {
    m_warnings.push_back(m_fs.root() + "/" + rel + ": cannot parse '" +
                         util::excerpt(raw, k_quoted) + "' (expected " + expected + ")");
  }
  static constexpr size_t k_quoted = 80;

  // A warning about what rel is, rather than about how its content reads.
  void warn_about(const std::string& rel, const std::string& message) const
  {
    m_warnings.push_back(m_fs.root() + "/" + rel + ": " + message);
  }

  // A file that is there but cannot be read is said, not shown as missing.
  void warn_unreadable(const std::string& rel) const
  {
    if (!m_fs.unreadable().empty()) {
      warn_about(rel, "cannot read: " + m_fs.unreadable());
    }
  }

  const SysfsReader& fs() const { return m_fs; }

private:
  const SysfsReader& m_fs;
  std::vector<std::string>& m_warnings;
};

// What read_device reads beyond each port's state.
struct ReadScope {
  bool counters = false;
  // A port's P_Key table is one file an entry (128 on mlx5); without it the port's pkeys stay
  // empty. `check` reads the tables only for a node with pkey children (inspect_scope.hpp).
  bool pkey_tables = true;
};

// Of several names for one device or port directory in a captured tree (links to it), the one
// read: the first seen, unless a later one is the directory's own name. chosen starts empty.
void prefer_own_name(std::string& chosen, const std::string& name, const std::string& dir);

Device read_device(const Reader& r, const std::string& name, const ReadScope& scope);
Netdev read_netdev(const Reader& r, const std::string& name);
// mode, pkey, parent and umcast of an IPoIB netdev, from sysfs.
void read_ipoib_attributes(const Reader& r, Netdev& n);

// Binds netdevs to HCA ports: by port GUID in the IPoIB hardware address (as ibdev2netdev
// does), else by PCI device and dev_port. ipoib_guids: each IPoIB netdev's port GUID, from
// the last 8 bytes of its hardware address.
void bind_netdevs(const Reader& r, Host& host,
                  const std::map<std::string, std::optional<std::string>>& ipoib_guids);

}  // namespace ibsetup::inventory
