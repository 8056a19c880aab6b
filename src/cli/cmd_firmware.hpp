// The firmware link-type step: the `firmware` subcommand, the options plan and apply share, and
// how the step's outcome is printed.
#pragma once

#include <ibsetup/firmware.hpp>

#include <string>

namespace CLI {
class App;
}

namespace ibsetup::cli {

// --no-firmware, --mstconfig and the hidden test options of plan, apply and firmware.
struct FirmwareOptions {
  firmware::StepOptions step;
  long timeout_ms = 0;  // --mstconfig-timeout-ms (hidden); 0: the default
  // step with the hidden options applied.
  firmware::StepOptions resolved() const;
};

// Registers --mstconfig PATH and the hidden --mstconfig-timeout-ms and --reboot-marker on cmd;
// with skip also --no-firmware.
void add_firmware_options(CLI::App& cmd, FirmwareOptions& options, bool skip = true);

// plan's firmware section and apply --dry-run's (text only: `firmware --json` has the JSON).
void print_firmware_section(const firmware::StepOutcome& outcome, bool json, bool quiet);

// apply's firmware step as it goes: skipped, the section of a dry run, or what was set.
void print_firmware_step(const firmware::StepOutcome& outcome, const std::string& host,
                         bool dry_run, bool quiet, bool json);

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
