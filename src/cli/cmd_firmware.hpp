// The firmware link-type step: the `firmware` subcommand, and the hooks plan and apply call.
// Kept apart from cmd_pipeline.cpp so that the pipeline only registers two options and makes
// one call.
#pragma once

#include <ibsetup/inventory.hpp>
#include <ibsetup/profile.hpp>

#include <string>

namespace CLI {
class App;
}

namespace ibsetup::cli {

// --no-firmware and --mstconfig of plan and apply.
struct FirmwareOptions {
  bool skip = false;
  std::string mstconfig;  // empty: found on the clean PATH
};

// Registers --no-firmware and --mstconfig PATH on cmd.
void add_firmware_options(CLI::App& cmd, FirmwareOptions& options);

// apply's firmware step, run under apply's lock before any link change: sets the link types
// that differ and confirms them. Returns 0 to go on with the link changes, or the exit code to
// stop with (9: a reboot is required first). Throws Error on failures before anything was set.
int apply_firmware_step(const profile::ResolvedNode& node, const FirmwareOptions& options,
                        bool dry_run, bool quiet, bool json);

// plan's firmware section (text output only; `firmware --json` has the JSON). Returns true
// when link types would change.
bool plan_firmware_section(const profile::ResolvedNode& node, const inventory::Host& host,
                           const std::string& sysfs_root, const FirmwareOptions& options,
                           bool json);

// firmware FILE [--node N] [--json] [--sysfs-root DIR] [--mstconfig PATH] [--apply]
class FirmwareCommands {
public:
  explicit FirmwareCommands(CLI::App& app);
  // Runs `firmware` when parsed; returns its exit code, or -1.
  int run();

private:
  CLI::App* m_firmware = nullptr;
  std::string m_file;
  std::string m_node;
  std::string m_sysfs_root = "/sys";
  std::string m_lock_file = "/run/ibsetup.lock";
  int m_wait = 0;
  FirmwareOptions m_options;
  bool m_apply = false;
  bool m_json = false;
  bool m_quiet = false;
};

}  // namespace ibsetup::cli
