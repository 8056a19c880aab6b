#include "cli/app.hpp"
#include "cli/commands.hpp"

#include <ibsetup/inventory.hpp>

#include <CLI/CLI.hpp>

#include <iostream>

namespace ibsetup::cli {

InventoryCommands::InventoryCommands(CLI::App& app)
{
  m_inspect = app.add_subcommand("inspect",
                                 "Show the host's HCAs, ports, PCI links and IPoIB "
                                 "netdevs as they are");
  m_inspect->add_option("--sysfs-root", m_sysfs_root,
                        "Read sysfs from DIR instead of /sys (a captured tree, a sosreport); "
                        "addresses and the active IB MTU are then not read");
  m_inspect->add_flag("--json", m_json, "Print the inventory as JSON");
  m_inspect->add_flag("--counters", m_counters,
                      "Also read port error counters (each read sends a MAD to the HCA)");
}

int InventoryCommands::run()
{
  if (!*m_inspect) {
    return -1;
  }
  inventory::Options options;
  options.sysfs_root = m_sysfs_root;
  options.counters = m_counters;
  const auto host = inventory::inspect_host(options);
  if (m_json) {
    std::cout << inventory::host_to_json(host);
  } else {
    std::cout << inventory::host_to_text(host);
  }
  return 0;
}

}  // namespace ibsetup::cli
