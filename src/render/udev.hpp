// render --format udev (issue 16 item 6): a udev rules file that gives each base IPoIB
// interface of a node its profile name by port GUID, so that names survive probe order,
// reboots and HCA swaps. Internal to libibsetup; the CLI reaches render_udev_node.
#pragma once

#include "partitions/model.hpp"

#include <ibsetup/export.hpp>
#include <ibsetup/profile.hpp>
#include <ibsetup/render.hpp>

#include <string>
#include <vector>

namespace ibsetup::render {

// Where the rules file goes under the root; 70- runs before 80-net-setup-link.rules, which
// would otherwise name the interface by the NamePolicy.
constexpr const char* k_udev_rules_path = "etc/udev/rules.d/70-ibsetup-ipoib.rules";

// The rules for node's base interfaces (neither pkey nor parent), one per interface, with the
// port of each found as for partitions: the declared device/port, else the inventory's binding
// of the interface's name, else the host's only InfiniBand port. Throws InputError naming the host
// and the candidate ports when a port cannot be found, when two interfaces land on one port, and
// when the node has no base interface.
RenderedFile render_udev(const profile::ResolvedNode& node, const partitions::InventoryHost& host);

// The node's ports: its entry of read_inventories(inventories) when inventories is set, else
// inventory::inspect_node of sysfs_root, which must then be this host's (unless sysfs_root is
// a captured tree). Throws InputError when the source lacks the node or has a problem in the
// node's own entry (a port left out there could make another "the only" port), Error (usage)
// when the live inventory is another host's. The source's other problems go to warnings when
// it is set.
partitions::InventoryHost udev_inventory(const profile::ResolvedNode& node,
                                         const std::string& inventories,
                                         const std::string& sysfs_root,
                                         std::vector<std::string>* warnings = nullptr);

// One warning per base interface of node named as the kernel names IPoIB netdevs (ib0, ib1,
// ...): the rule's rename into a name the kernel gave another port fails (EEXIST) at a boot
// where the HCAs come up in the other order.
std::vector<std::string> udev_name_warnings(const profile::ResolvedNode& node);

// render --format udev: render_udev of the node's inventory, then written (or, with dry_run,
// checked) under options.root as render_node writes; udev_name_warnings into warnings when it
// is set. Throws as render_udev, udev_inventory and the writer do.
IBSETUP_EXPORT std::vector<FileOutcome> render_udev_node(
    const profile::ResolvedNode& node, const NodeOptions& options, const std::string& inventories,
    const std::string& sysfs_root = "/sys", std::vector<std::string>* warnings = nullptr);

}  // namespace ibsetup::render
