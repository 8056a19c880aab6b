#include "cli/cmd_firmware.hpp"
#include "common/strings.hpp"

#include "cli/app.hpp"

#include <ibsetup/apply.hpp>
#include <ibsetup/error.hpp>
#include <ibsetup/firmware.hpp>

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <iostream>

namespace ibsetup::cli {

namespace {

// mstconfig set can take several seconds on a busy adapter; a hung one must not hang a
// kickstart forever. The tests shorten it.
std::chrono::milliseconds mstconfig_timeout()
{
  if (const char* ms = std::getenv("IBSETUP_MSTCONFIG_TIMEOUT_MS")) {
    const long value = std::atol(ms);
    if (value > 0) {
      return std::chrono::milliseconds(value);
    }
  }
  return std::chrono::milliseconds(60000);
}

std::string reboot_marker()
{
  const char* path = std::getenv("IBSETUP_REBOOT_MARKER");
  return path != nullptr && *path != '\0' ? path : firmware::k_reboot_marker;
}

inventory::Host sysfs_inventory(const std::string& root)
{
  inventory::Options o;
  o.sysfs_root = root;
  return inventory::inspect(o);
}

// Sets what differs, records what owes a reboot, prints the report. Returns the exit code.
int set_link_types(const firmware::State& state, firmware::Tool& tool, bool quiet, bool json)
{
  const firmware::Report report = firmware::apply_state(state, tool);
  // Written even after a failure: what was set before it still takes effect at the next boot.
  const std::string marker = reboot_marker();
  firmware::update_reboot_marker(marker, report.state);
  if (json) {
    std::cout << firmware::to_json(state, &report);
  } else if (!quiet || !report.ok()) {
    std::cout << firmware::to_text(state, &report);
  }
  if (!report.ok()) {
    print_error("firmware: " + *report.failure +
                (report.done.empty() ? "; no change was confirmed"
                                     : "; the changes listed above were made and stay"));
    return static_cast<int>(ExitCode::environment);
  }
  if (report.reboot_required()) {
    if (!json) {
      std::cerr << "ibsetup: reboot required: firmware link types change at the next boot ("
                << marker << ")\n";
    }
    return static_cast<int>(ExitCode::reboot_required);
  }
  return 0;
}

}  // namespace

void add_firmware_options(CLI::App& cmd, FirmwareOptions& options)
{
  cmd.add_flag("--no-firmware", options.skip,
               "Leave the adapters' firmware link types (LINK_TYPE_Pn) alone");
  cmd.add_option("--mstconfig", options.mstconfig,
                 "mstconfig to run (default: found in /usr/sbin:/usr/bin:/sbin:/bin)");
}

int apply_firmware_step(const profile::ResolvedNode& node, const FirmwareOptions& options,
                        bool dry_run, bool quiet, bool json)
{
  const bool talk = !quiet && !json;
  if (options.skip) {
    if (talk) {
      std::cout << "firmware link types: skipped (--no-firmware)\n";
    }
    return 0;
  }
  if (!firmware::declares_link_type(node)) {
    if (talk) {
      std::cout << "firmware link types: the profile declares no link_type for " << node.host
                << "; skipped\n";
    }
    return 0;
  }
  if (dry_run) {
    // A dry run changes nothing, so like plan it reports what it cannot know and goes on.
    plan_firmware_section(node, sysfs_inventory("/sys"), "/sys", options, json);
    return 0;
  }
  const auto tool = firmware::make_mstconfig(options.mstconfig, mstconfig_timeout());
  const auto state = firmware::query_state(node, sysfs_inventory("/sys"), tool.get());
  const int code = set_link_types(state, *tool, quiet, json);
  if (code == static_cast<int>(ExitCode::reboot_required)) {
    std::cerr << "ibsetup: the interfaces were not changed: reboot, then run apply again\n";
  }
  return code;
}

bool plan_firmware_section(const profile::ResolvedNode& node, const inventory::Host& host,
                           const std::string& sysfs_root, const FirmwareOptions& options, bool json)
{
  if (options.skip || !firmware::declares_link_type(node)) {
    return false;
  }
  // A captured tree's PCI addresses are not this machine's: asking this machine's adapters
  // about them would describe the wrong hardware, unless a --mstconfig for the tree is given.
  const bool query = inventory::is_live_root(sysfs_root) || !options.mstconfig.empty();
  firmware::State state;
  try {
    std::unique_ptr<firmware::Tool> tool;
    if (query) {
      tool = firmware::make_mstconfig(options.mstconfig, mstconfig_timeout());
    }
    state = firmware::query_state(node, host, tool.get());
  } catch (const Error& e) {
    if (!json) {
      std::cout << "firmware link types: not known: " << util::escape_text(e.what()) << '\n';
    }
    return false;
  }
  if (!json) {
    std::cout << firmware::to_text(state, nullptr);
  }
  bool changes = false;
  for (const auto& d : state.devices) {
    changes = changes || (state.queried && d.differs());
  }
  return changes;
}

FirmwareCommands::FirmwareCommands(CLI::App& app)
{
  m_firmware = app.add_subcommand("firmware",
                                  "Show (or with --apply set) the adapters' firmware link types");
  m_firmware->add_option("file", m_file, "Cluster profile (YAML)")->required();
  m_firmware->add_option("--node", m_node, "Node (default: this host's short name)");
  m_firmware->add_flag("--json", m_json, "Print the result as JSON");
  m_firmware->add_flag("-q,--quiet", m_quiet, "Print only errors");
  m_firmware->add_option("--sysfs-root", m_sysfs_root,
                         "Read sysfs from DIR instead of /sys (needs --mstconfig: the firmware "
                         "of a captured tree is not this machine's)");
  m_firmware->add_option("--mstconfig", m_options.mstconfig,
                         "mstconfig to run (default: found in /usr/sbin:/usr/bin:/sbin:/bin)");
  m_firmware->add_flag("--apply", m_apply,
                       "Set the link types that differ (exit 9 when a reboot is required)");
  m_firmware->add_option("--lock-file", m_lock_file,
                         "The lock shared with apply (default /run/ibsetup.lock)");
  m_firmware->add_option("--wait", m_wait,
                         "With --apply: wait up to SECONDS for another apply to finish "
                         "(default 0)");
}

int FirmwareCommands::run()
{
  if (!*m_firmware) {
    return -1;
  }
  const bool live = inventory::is_live_root(m_sysfs_root);
  if (!live && m_options.mstconfig.empty()) {
    throw Error(ExitCode::usage,
                "--sysfs-root other than /sys needs --mstconfig PATH: the firmware of a "
                "captured tree cannot be read from this machine's adapters");
  }
  auto profile = profile::load_profile(m_file);
  if (!m_quiet) {
    for (const auto& w : profile.warnings) {
      std::cerr << w.format() << '\n';
    }
  }
  const auto node = resolve_node_arg(profile, m_node);
  if (!firmware::declares_link_type(node)) {
    firmware::State none;
    none.host = node.host;
    std::cout << (m_json ? firmware::to_json(none, nullptr) : firmware::to_text(none, nullptr));
    return 0;
  }
  const auto host = sysfs_inventory(m_sysfs_root);
  const auto tool = firmware::make_mstconfig(m_options.mstconfig, mstconfig_timeout());
  if (!m_apply) {
    const auto state = firmware::query_state(node, host, tool.get());
    std::cout << (m_json ? firmware::to_json(state, nullptr) : firmware::to_text(state, nullptr));
    return 0;
  }
  const apply::ApplyLock lock(m_lock_file, m_wait);
  const auto state = firmware::query_state(node, host, tool.get());
  return set_link_types(state, *tool, m_quiet, m_json);
}

}  // namespace ibsetup::cli
