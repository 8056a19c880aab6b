#include "cli/cmd_firmware.hpp"

#include "cli/app.hpp"
#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"
#include "common/strings.hpp"

#include <ibsetup/apply.hpp>
#include <ibsetup/error.hpp>
#include <ibsetup/firmware.hpp>

#include <CLI/CLI.hpp>

#include <iostream>

namespace ibsetup::cli {

namespace {

// The text of a firmware report. Its warnings (IPoIB on a port that is or will be Ethernet) go
// to standard error through the one printer of warnings, which -q silences, as the plan's do.
std::string firmware_text(const firmware::State& state, const firmware::Report* report, bool quiet)
{
  print_warnings(report != nullptr ? report->state.warnings : state.warnings, quiet);
  firmware::State shown = state;
  shown.warnings.clear();
  if (report == nullptr) {
    return firmware::to_text(shown, nullptr);
  }
  firmware::Report r = *report;
  r.state.warnings.clear();
  return firmware::to_text(shown, &r);
}

// What set_step did, for people or programs. Returns the exit code. in_apply: apply's step,
// whose report goes to standard error when standard output is gone (`apply --json | true`):
// what was set stays whatever apply does next, and apply's exit status is that of its
// changes. `firmware --apply` prints to standard output, and a failed write is exit 4.
int print_set(const firmware::StepOutcome& outcome, bool quiet, bool json, bool in_apply)
{
  const firmware::Report& report = *outcome.report;
  std::string text;
  if (json) {
    text = firmware::to_json(outcome.state, &report);
  } else if (!quiet || !report.ok()) {
    text = firmware_text(outcome.state, &report, quiet);
  }
  if (in_apply && !text.empty()) {
    emit_report(text);
  } else {
    std::cout << text;
  }
  if (!report.ok()) {
    print_error("firmware: " + *report.failure +
                (report.done.empty() ? "; no change was confirmed"
                                     : "; the changes listed above were made and stay"));
  } else if (report.reboot_required() && !json) {
    std::cerr << "ibsetup: reboot required: firmware link types change at the next boot ("
              << outcome.marker << ")\n";
  }
  return exit_code(outcome.result);
}

}  // namespace

firmware::StepOptions FirmwareOptions::resolved() const
{
  firmware::StepOptions out = step;
  if (timeout_ms > 0) {
    out.timeout = std::chrono::milliseconds(timeout_ms);
  }
  return out;
}

void add_firmware_options(CLI::App& cmd, FirmwareOptions& options, bool skip)
{
  if (skip) {
    cmd.add_flag("--no-firmware", options.step.skip,
                 "Leave the adapters' firmware link types (LINK_TYPE_Pn) alone");
  }
  cmd.add_option("--mstconfig", options.step.mstconfig,
                 "mstconfig to run (default: found in /usr/sbin:/usr/bin:/sbin:/bin)");
  cmd.add_option("--mstconfig-timeout-ms", options.timeout_ms,
                 "Milliseconds before a hung mstconfig is killed (default 60000)")
      ->check(CLI::Range(1L, 3600000L));
  // Hidden (empty group): for tests and demos, see README "Options for tests".
  cmd.add_option("--reboot-marker", options.step.reboot_marker,
                 "Where the reboot-required marker goes (default /run/ibsetup/reboot-required)")
      ->group("");
}

void print_firmware_section(const firmware::StepOutcome& outcome, bool json, bool quiet)
{
  if (json) {
    return;
  }
  if (outcome.status == firmware::StepStatus::unknown) {
    std::cout << "firmware link types: not known: " << util::escape_text(outcome.unknown) << '\n';
  } else if (outcome.status == firmware::StepStatus::queried) {
    std::cout << firmware_text(outcome.state, nullptr, quiet);
  }
}

void print_firmware_step(const firmware::StepOutcome& outcome, const std::string& host,
                         bool dry_run, bool quiet, bool json)
{
  const bool talk = !quiet && !json;
  switch (outcome.status) {
  case firmware::StepStatus::skipped:
    if (talk) {
      std::cout << "firmware link types: skipped (--no-firmware)\n";
    }
    return;
  case firmware::StepStatus::not_declared:
    if (talk) {
      std::cout << "firmware link types: the profile declares no link_type for " << host
                << "; skipped\n";
    }
    return;
  case firmware::StepStatus::unknown:
  case firmware::StepStatus::queried:
    if (json && dry_run) {
      // apply --json prints the step's object before the interfaces' when it sets link types;
      // a dry run prints what it found the same way, so that a preview (Ansible's check mode)
      // sees link types that would change. plan --json keeps its one object.
      if (outcome.status == firmware::StepStatus::queried) {
        std::cout << firmware::to_json(outcome.state, nullptr);
        return;
      }
      // Declared, not known: say so in the object (queried false, the reason in warnings, so
      // that -q keeps it) and on stderr.
      firmware::State unknown = outcome.state;
      unknown.host = host;
      unknown.declared = true;
      unknown.queried = false;
      unknown.warnings.push_back("firmware link types: not known: " + outcome.unknown);
      std::cout << firmware::to_json(unknown, nullptr);
      if (!quiet) {
        print_warning("firmware link types: not known: " + outcome.unknown);
      }
      return;
    }
    print_firmware_section(outcome, json, quiet);
    return;
  case firmware::StepStatus::set:
    print_set(outcome, quiet, json, true);
    if (!dry_run && outcome.result == ErrorKind::reboot_required) {
      std::cerr << "ibsetup: the interfaces were not changed: reboot, then run apply again\n";
    }
    return;
  }
}

FirmwareCommands::FirmwareCommands(CLI::App& app)
{
  m_firmware = app.add_subcommand("firmware",
                                  "Show (or with --apply set) the adapters' firmware link types");
  m_firmware->add_option("file", m_file, "Cluster profile (YAML)")->required();
  m_firmware->add_option("--node", m_node, "Node (default: this host's short name)");
  m_firmware->add_flag("--json", m_json, "Print the result as JSON");
  m_firmware->add_flag("-q,--quiet", m_quiet,
                       "Do not print warnings; with --apply, print nothing but errors");
  m_firmware->add_option("--sysfs-root", m_sysfs_root,
                         "Read sysfs from DIR instead of /sys (needs --mstconfig: the firmware "
                         "of a captured tree is not this machine's)");
  add_firmware_options(*m_firmware, m_options, false);
  m_firmware->add_flag("--apply", m_apply,
                       "Set the link types that differ (exit 9 when a reboot is required)");
  m_firmware->add_option("--lock-file", m_lock_file,
                         "The lock shared with apply (default /run/ibsetup.lock)");
  m_firmware
      ->add_option("--wait", m_wait,
                   "With --apply: wait up to SECONDS for another apply to finish (default 0)")
      ->check(CLI::Range(0, 1000000));
}

int FirmwareCommands::run()
{
  if (!*m_firmware) {
    return -1;
  }
  const bool live = inventory::is_live_root(m_sysfs_root);
  const firmware::StepOptions options = m_options.resolved();
  if (!live && options.mstconfig.empty()) {
    throw Error(ErrorKind::usage,
                "--sysfs-root other than /sys needs --mstconfig PATH: the firmware of a "
                "captured tree cannot be read from this machine's adapters");
  }
  auto profile = profile::load_profile(m_file);
  print_warnings(profile.warnings, m_quiet);
  const auto node = resolve_node_arg(profile, m_node);
  if (m_apply) {
    // What a signal stops (the wait for the lock, a hung query, the cards after the one being
    // set) is printed before the signal ends ibsetup, as it would have (exit 128+N).
    hold_stop_signals();
  }
  const auto outcome =
      apply::firmware_node(node, m_sysfs_root, options, m_apply, m_lock_file, m_wait);
  if (outcome.status == firmware::StepStatus::set) {
    return print_set(outcome, m_quiet, m_json, false);
  }
  std::cout << (m_json ? firmware::to_json(outcome.state, nullptr)
                       : firmware_text(outcome.state, nullptr, m_quiet));
  return 0;
}

}  // namespace ibsetup::cli
