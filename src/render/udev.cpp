// The udev rules of render --format udev. An IPoIB netdev's hardware address is 20 bytes: 4 of
// flags and queue pair number, then the port GID, whose last 8 bytes are the port GUID. The
// queue pair number differs between boots and between a base interface and its P_Key
// children, so a rule matches the address's end with a glob (udev(7): '*' any string, '?' one
// character), and leaves interfaces named with a dot (children, "ib0.8001") alone: they share
// the parent's GUID and are named by whoever creates them.
#include "render/udev.hpp"

#include "common/strings.hpp"
#include "partitions/inventories.hpp"
#include "partitions/source_parse.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/inventory.hpp>

#include <map>

namespace ibsetup::render {

namespace {

using partitions::InventoryHost;
using partitions::InventoryPort;

std::string port_text(const InventoryPort& p)
{
  return util::escape_text(p.device) + "/" + std::to_string(p.port) + " (" + p.guid + ")";
}

std::string candidates(const std::vector<const InventoryPort*>& ports)
{
  std::string out;
  for (const auto* p : ports) {
    out += (out.empty() ? "" : ", ") + port_text(*p);
  }
  return out.empty() ? "none" : out;
}

// "?*:0c:42:a1:03:00:16:e7:e0" for 0x0c42a1030016e7e0: the address as the kernel prints it
// (lowercase, colons) ends with the GUID's bytes.
std::string address_glob(const std::string& guid)
{
  std::string out = "?*";
  for (size_t i = 2; i + 1 < guid.size(); i += 2) {
    out += ":" + guid.substr(i, 2);
  }
  return out;
}

// The profile validates interface names; a character udev would read as a glob or a quote
// must still never reach NAME=.
void check_name(const std::string& host, const std::string& name)
{
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '-' || c == '.' || c == ':') ||
        name.size() > 15) {
      throw InputError(host + ": interface name '" + util::escape_text(name) +
                       "' cannot be a udev NAME (" + util::describe_char(name, i) + ")");
    }
  }
}

struct Found {
  const InventoryPort* port = nullptr;
  std::string how;
  std::string error;
};

Found find_port(const profile::ResolvedInterface& i, const InventoryHost& host,
                const std::vector<const InventoryPort*>& ib)
{
  Found f;
  if (i.device) {
    std::vector<const InventoryPort*> on_device;
    for (const auto* p : ib) {
      if (p->device == *i.device && (!i.port || p->port == *i.port)) {
        on_device.push_back(p);
      }
    }
    if (on_device.size() == 1) {
      f.port = on_device.front();
      f.how = "the profile's device";
    } else {
      f.error = i.name + " is declared on " + util::escape_text(*i.device) +
                (i.port ? " port " + std::to_string(*i.port) : std::string()) +
                (on_device.empty() ? ", which the inventory lacks"
                                   : ", which has several InfiniBand ports; declare port") +
                " (InfiniBand ports: " + candidates(ib) + ")";
    }
    return f;
  }
  const auto bound = host.netdevs.find(i.name);
  if (bound != host.netdevs.end()) {
    for (const auto* p : ib) {
      if (p->device == bound->second.first && p->port == bound->second.second) {
        f.port = p;
        f.how = "the inventory's " + i.name;
        return f;
      }
    }
  }
  if (ib.size() == 1) {
    f.port = ib.front();
    f.how = "the only InfiniBand port";
    return f;
  }
  f.error = "which port " + i.name +
            " is on is unknown: declare device and port in the profile (InfiniBand ports: " +
            candidates(ib) + ")";
  return f;
}

// ib0, ib1, ...: the names the kernel's IPoIB driver gives its netdevs.
bool kernel_name(const std::string& name)
{
  if (name.size() < 3 || name.compare(0, 2, "ib") != 0) {
    return false;
  }
  return name.find_first_not_of("0123456789", 2) == std::string::npos;
}

InventoryHost from_live(const inventory::Host& live, const std::string& host)
{
  InventoryHost h;
  h.host = host;
  h.origin = "this host's inventory";
  for (const auto& d : live.devices) {
    for (const auto& p : d.ports) {
      const auto guid = p.port_guid ? partitions::normalize_guid(*p.port_guid) : std::nullopt;
      if (!guid) {
        continue;
      }
      const bool ib = !p.link_layer || p.link_layer->value == inventory::LinkLayer::infiniband;
      h.ports.push_back({d.name, p.port, *guid, ib});
    }
  }
  for (const auto& n : live.netdevs) {
    if (n.device && n.port) {
      h.netdevs[n.name] = {*n.device, *n.port};
    }
  }
  return h;
}

}  // namespace

RenderedFile render_udev(const profile::ResolvedNode& node, const InventoryHost& host)
{
  std::vector<const InventoryPort*> ib;
  for (const auto& p : host.ports) {
    if (p.infiniband) {
      ib.push_back(&p);
    }
  }
  std::string rules;
  std::string errors;
  std::map<std::string, std::string> taken;  // GUID -> interface
  size_t count = 0;
  for (const auto& i : node.interfaces) {
    if (i.pkey || i.parent) {
      continue;
    }
    ++count;
    check_name(node.host, i.name);
    const Found f = find_port(i, host, ib);
    if (!f.port) {
      errors += (errors.empty() ? "" : "; ") + f.error;
      continue;
    }
    const auto [it, added] = taken.emplace(f.port->guid, i.name);
    if (!added) {
      errors += (errors.empty() ? "" : "; ") + i.name + " and " + it->second + " are both on " +
                port_text(*f.port);
      continue;
    }
    rules += "\n# " + i.name + ": " + port_text(*f.port) + ", found by " + f.how + "\n";
    rules +=
        "ACTION==\"add\", SUBSYSTEM==\"net\", ATTR{type}==\"32\", KERNEL!=\"*.*\", "
        "ATTR{address}==\"" +
        address_glob(f.port->guid) + "\", NAME=\"" + i.name + "\"\n";
  }
  if (count == 0) {
    throw InputError(node.host + " has no base IPoIB interface in the profile: nothing to name");
  }
  if (!errors.empty()) {
    throw InputError(node.host + ": " + errors);
  }
  RenderedFile f;
  f.path = k_udev_rules_path;
  f.mode = 0644;
  // Nothing about where the inventory came from: the same ports give the same bytes.
  f.content = std::string(k_marker) + "\n# Names of " + node.host +
              "'s IPoIB interfaces by port GUID (the last 8 bytes of the\n"
              "# 20-byte hardware address). P_Key children (names with a dot) keep the names\n"
              "# they are created with.\n" +
              rules;
  return f;
}

InventoryHost udev_inventory(const profile::ResolvedNode& node, const std::string& inventories,
                             const std::string& sysfs_root, std::vector<std::string>* warnings)
{
  if (!inventories.empty()) {
    const auto inv = partitions::read_inventories(inventories);
    // A full name finds its short name's inventory. Unlike the partitions layout this cannot
    // see whether another host of the profile has that short name (one node, no profile):
    // the README says to give such a node its inventory alone.
    if (const InventoryHost* host = partitions::find_inventory(inv, node.host)) {
      // A port of the node left out for a problem would make another "the only" port, and
      // its rule would name the wrong one. The node's own problems are those at its entry
      // (a line, a file); a topology's port lines are named by the source's first problems.
      std::string own;
      std::string first;
      size_t others = 0;
      for (const auto& p : inv.problems) {
        if (p.where == host->origin) {
          own += (own.empty() ? " " : "; ") + p.message;
        } else if (others++ < 5) {
          first += (first.empty() ? " " : "; ") + p.where + ": " + p.message;
          if (warnings != nullptr) {
            warnings->push_back(p.where + ": " + p.message);
          }
        }
      }
      if (others > 5 && warnings != nullptr) {
        warnings->push_back(util::escape_text(inventories) + ": " + std::to_string(others - 5) +
                            " more problems not shown");
      }
      if (host->incomplete) {
        throw InputError(host->origin + ": a port of " + node.host +
                         " was left out for a problem, so no rule is written (another port "
                         "would be taken for the only one):" +
                         (own.empty() ? first : own));
      }
      return *host;
    }
    // One line: the error printer escapes a newline, so the problems are joined with "; ".
    std::string why;
    for (size_t i = 0; i < inv.problems.size() && i < 5; ++i) {
      why += (why.empty() ? " " : "; ") + inv.problems[i].where + ": " + inv.problems[i].message;
    }
    throw InputError(util::escape_text(inventories) + " has no inventory of " + node.host +
                     (why.empty() ? std::string() : "; its problems:" + why));
  }
  if (inventory::is_live_root(sysfs_root)) {
    const auto self = profile::default_node_name();
    if (self != node.host) {
      throw Error(ErrorKind::usage, "this host is " + util::escape_text(self) + ", not " +
                                        node.host +
                                        ": its port GUIDs are not the node's; give the node's "
                                        "with --inventories SRC");
    }
  }
  return from_live(inventory::inspect_node(node, sysfs_root), node.host);
}

std::vector<std::string> udev_name_warnings(const profile::ResolvedNode& node)
{
  std::vector<std::string> out;
  for (const auto& i : node.interfaces) {
    if (!i.pkey && !i.parent && kernel_name(i.name)) {
      out.push_back(node.host + ": " + i.name +
                    " is a name the kernel gives IPoIB interfaces (ib<N>): when two ports come "
                    "up in the other order, udev cannot rename one to " +
                    i.name +
                    " while the other holds it (EEXIST) and the names stay swapped; "
                    "a name outside ib<N> (such as ib-" +
                    i.name.substr(2) + " or fab" + i.name.substr(2) + ") avoids that");
    }
  }
  return out;
}

std::vector<FileOutcome> render_udev_node(const profile::ResolvedNode& node,
                                          const NodeOptions& options,
                                          const std::string& inventories,
                                          const std::string& sysfs_root,
                                          std::vector<std::string>* warnings)
{
  if (warnings != nullptr) {
    *warnings = udev_name_warnings(node);
  }
  if (options.root.empty()) {
    throw Error(ErrorKind::usage, "--root DIR is required to render (use / for this system)");
  }
  const auto host = udev_inventory(node, inventories, sysfs_root, warnings);
  auto file = render_udev(node, host);
  const auto result =
      options.dry_run ? check_file(options.root, file) : write_file(options.root, file);
  std::vector<FileOutcome> out;
  out.push_back({std::move(file), result});
  if (options.on_file) {
    options.on_file(out.back());
  }
  return out;
}

}  // namespace ibsetup::render
