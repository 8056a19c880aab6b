// The firmware step shared by plan, apply and `firmware`: query, set, confirm, reboot marker.
#include <ibsetup/firmware.hpp>
#include "common/termination_guard.hpp"
#include "firmware/reboot.hpp"

#include <exception>
#include <string>

namespace ibsetup::firmware {

bool StepOutcome::changes() const
{
  if (status != StepStatus::queried || !state.queried) {
    return false;
  }
  for (const auto& d : state.devices) {
    if (d.differs()) {
      return true;
    }
  }
  return false;
}

namespace {

// The outcome when the step does not run (--no-firmware, no link_type declared).
std::optional<StepOutcome> not_run(const profile::ResolvedNode& node, const StepOptions& options)
{
  if (options.skip) {
    return StepOutcome{};
  }
  if (!declares_link_type(node)) {
    StepOutcome out;
    out.status = StepStatus::not_declared;
    return out;
  }
  return std::nullopt;
}

}  // namespace

StepOutcome query_step(const profile::ResolvedNode& node, const inventory::Host& host,
                       const std::string& sysfs_root, const StepOptions& options)
{
  if (auto skipped = not_run(node, options)) {
    return *skipped;
  }
  StepOutcome out;
  // A captured tree's PCI addresses are not this machine's: asking this machine's adapters
  // about them would describe the wrong hardware, unless a --mstconfig for the tree is given.
  const bool query = inventory::is_live_root(sysfs_root) || !options.mstconfig.empty();
  try {
    std::unique_ptr<Tool> tool;
    if (query) {
      tool = make_mstconfig(options.mstconfig, options.timeout);
    }
    out.state = query_state(node, host, tool.get());
  } catch (const Error& e) {
    out.status = StepStatus::unknown;
    out.unknown = e.what();
    return out;
  }
  out.status = StepStatus::queried;
  return out;
}

StepOutcome set_step(const State& state, Tool& tool, const StepOptions& options)
{
  // SIGINT, SIGTERM and SIGHUP (when their action is the default, as in `firmware --apply`)
  // wait until the marker says what was written: dying between a set and the marker would
  // leave a changed card that no marker, report or exit status tells of. The cards not begun
  // are left alone, and the signal then ends the process as it would have.
  TerminationGuard hold;
  StepOutcome out;
  out.status = StepStatus::set;
  out.state = state;
  out.report = apply_state(state, tool);
  out.marker = options.reboot_marker;
  // The changes are made: a marker that cannot be written is a failure of the report, which
  // still says what was done, not an error that would leave it unprinted.
  try {
    detail::write_reboot_marker(out.marker, out.report->state, out.report->done);
  } catch (const std::exception& e) {
    const std::string why = std::string("the reboot marker: ") + e.what();
    out.report->failure = out.report->failure ? *out.report->failure + "; " + why : why;
  }
  if (!out.report->ok()) {
    out.result = ErrorKind::environment;
  } else if (out.report->reboot_required()) {
    out.result = ErrorKind::reboot_required;
  }
  return out;
}

StepOutcome firmware_step(const profile::ResolvedNode& node, const inventory::Host& host,
                          const StepOptions& options)
{
  if (auto skipped = not_run(node, options)) {
    return *skipped;
  }
  const auto tool = make_mstconfig(options.mstconfig, options.timeout);
  return set_step(query_state(node, host, tool.get()), *tool, options);
}

}  // namespace ibsetup::firmware
