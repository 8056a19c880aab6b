// apply and plan for one node: the sequence the command line and other front ends share.
#include <ibsetup/apply.hpp>
#include "apply/callbacks.hpp"
#include "apply/lock_check.hpp"
#include "common/termination_guard.hpp"
#include <ibsetup/inventory.hpp>
#include <ibsetup/nm.hpp>

#include <algorithm>
#include <chrono>
#include <thread>

namespace ibsetup::apply {

namespace {

const char* const k_live_root = "/sys";

std::string foreign_warning(const Foreign& f, bool adopt, bool stopped)
{
  // With --adopt, a profile left alone by a run that got to adopting is one that
  // NetworkManager could also activate on interfaces the profile does not declare
  // (nm/claims.hpp, Claim::shared). A run that stopped first cannot say which it was.
  return "profile '" + f.id + "' (" + f.uuid + ") also claims " + f.interface +
         (!adopt    ? "; left alone (--adopt replaces it)"
          : stopped ? "; not adopted: the run stopped first (see the error)"
                    : "; left alone, even with --adopt: it is also a candidate for IPoIB "
                      "interfaces the profile does not declare (bound by "
                      "match.interface-name, or by nothing); bind it to one interface, or "
                      "remove it by hand");
}

// Reads this host again and plans what is left. The NetworkManager backend never deletes
// pkey children (NetworkManager owns profiles, not stray links), so prune is the netlink
// backend's only: with it, every NetworkManager apply on a node with a stray child would fail
// its verification and roll back.
std::function<plan::Plan()> replanner(const profile::ResolvedNode& node, bool prune)
{
  const plan::Options plan_options{prune};
  return [&node, plan_options] {
    return plan::make_plan(node, inventory::inspect_node(node, k_live_root), plan_options);
  };
}

void tell(const std::function<void(const firmware::StepOutcome&)>& f,
          const firmware::StepOutcome& outcome)
{
  if (f) {
    f(outcome);
  }
}

// The firmware step comes first whatever the backend: a port that changes link type at the
// next boot makes interface changes now pointless. Returns false when apply stops there.
bool run_firmware(const profile::ResolvedNode& node, const NodeOptions& options, NodeOutcome& out)
{
  // The host is read only when the step runs.
  const bool runs = !options.firmware.skip && firmware::declares_link_type(node);
  const inventory::Host host =
      runs ? inventory::inspect_node(node, k_live_root) : inventory::Host{};
  if (options.dry_run) {
    // A dry run changes nothing, so like plan it reports what it cannot know and goes on.
    out.firmware = firmware::query_step(node, host, k_live_root, options.firmware);
    tell(options.on_firmware, out.firmware);
    return true;
  }
  {
    // A stop asked for before or during the step (a signal apply's handler noted, a closed
    // standard output) leaves the cards not yet begun alone: a link type set after that is a
    // change no rollback undoes, made by a run that reports itself interrupted.
    const StopRequest stop(options.steps.interrupted);
    out.firmware = firmware::firmware_step(node, host, options.firmware);
  }
  tell(options.on_firmware, out.firmware);
  out.result = out.firmware.result;
  if (out.result == ErrorKind::environment && options.steps.interrupted()) {
    out.result = ErrorKind::apply_failed;
  }
  return out.result == ErrorKind::ok;
}

void apply_networkmanager(const profile::ResolvedNode& node, const std::string& cluster,
                          const NodeOptions& options, NodeOutcome& out)
{
  nm::Options o;
  o.activate = options.activate;
  o.adopt = options.adopt;
  o.dry_run = options.dry_run;
  o.adopt_dir = options.adopt_dir;
  o.rollback_timeout_s = options.rollback_timeout_s;
  o.progress = options.steps.progress;
  o.verify_tries = options.steps.verify_tries;
  o.verify_interval_ms = options.steps.verify_interval_ms;
  o.interrupted = options.steps.interrupted;
  if (options.steps.step_delay_ms > 0) {
    // The NetworkManager backend asks before each step: a pause there spaces its steps.
    const auto interrupted = options.steps.interrupted;
    const int ms = options.steps.step_delay_ms;
    o.interrupted = [interrupted, ms] {
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      return interrupted();
    };
  }
  o.replan = replanner(node, false);
  if (options.before_changes) {
    options.before_changes(nullptr);
  }
  out.report = nm::apply_node(node, cluster, o);
  out.ran = true;
  // Adopting comes right after the checkpoint: a run that failed making it, or while adopting,
  // cannot say whether a foreign profile not adopted was one --adopt leaves alone.
  const bool stopped_first = !out.report.ok() && (out.report.checkpoint.empty() ||
                                                  out.report.failure.compare(0, 6, "adopt ") == 0);
  for (const auto& f : out.report.foreign) {
    // Left alone; a dry run with --adopt lists the deletion in done instead.
    const bool listed =
        options.dry_run && options.adopt &&
        std::find(out.report.done.begin(), out.report.done.end(),
                  "would delete foreign " + f.id + " (" + f.uuid + ")") != out.report.done.end();
    if (f.saved.empty() && !listed) {
      out.warnings.push_back(foreign_warning(f, options.adopt, stopped_first));
    }
  }
  if (!out.report.ok()) {
    // Refused before a checkpoint existed (another tool's checkpoint holds the device): nothing
    // was changed, so it is the host's problem (4), not an apply that failed and was rolled
    // back. An interrupted run stays 7, as documented for every interruption.
    out.result = out.report.checkpoint.empty() && !options.steps.interrupted()
                     ? ErrorKind::environment
                     : ErrorKind::apply_failed;
  }
}

void apply_netlink(const profile::ResolvedNode& node, const NodeOptions& options, NodeOutcome& out)
{
  const auto replan = replanner(node, options.prune || node.prune);
  out.plan = replan();
  out.warnings = out.plan->warnings;
  if (!out.plan->errors.empty()) {
    out.result = ErrorKind::bad_input;
    return;
  }
  if (options.dry_run) {
    return;
  }
  if (options.before_changes) {
    options.before_changes(&*out.plan);
  }
  const auto backend = make_netlink_backend();
  out.report = apply_plan(*out.plan, *backend, replan, options.steps);
  out.ran = true;
  if (!out.report.ok()) {
    out.result = ErrorKind::apply_failed;
  }
}

// The lock, waited for while stop lets it: stopped, the wait is an error that says nothing
// was changed.
ApplyLock take_lock(const std::string& path, int wait_seconds, const std::function<bool()>& stop)
{
  try {
    return ApplyLock(path, wait_seconds, stop);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::apply_failed) {
      throw;
    }
    throw Error(ErrorKind::apply_failed, std::string(e.what()) + "; nothing was changed");
  }
}

}  // namespace

BackendPick pick_backend(BackendRequest request, const profile::ResolvedNode& node)
{
  if (request == BackendRequest::networkmanager) {
    return {Backend::networkmanager, "networkmanager: asked for with --backend"};
  }
  if (request == BackendRequest::netlink) {
    return {Backend::netlink, "netlink: asked for with --backend"};
  }
  const profile::ResolvedInterface* asked = nullptr;
  for (const auto& i : node.interfaces) {
    if (i.backend == profile::Backend::automatic) {
      continue;
    }
    if (asked != nullptr && asked->backend != i.backend) {
      throw InputError(node.host + ": " + asked->name + " asks for the " +
                       profile::to_string(asked->backend) + " backend and " + i.name + " for " +
                       profile::to_string(i.backend) + "; one node is applied through one backend");
    }
    asked = &i;
  }
  if (asked != nullptr) {
    const std::string name = profile::to_string(asked->backend);
    return {asked->backend == profile::Backend::networkmanager ? Backend::networkmanager
                                                               : Backend::netlink,
            name + ": the profile sets backend " + name};
  }
  const auto choice = nm::choose_backend(node);
  return {choice.use_networkmanager ? Backend::networkmanager : Backend::netlink, choice.why};
}

NodePlan plan_node(const profile::ResolvedNode& node, const std::string& sysfs_root,
                   const plan::Options& options, const firmware::StepOptions& firmware)
{
  NodePlan out;
  out.host = inventory::inspect_node(node, sysfs_root);
  out.plan = plan::make_plan(node, out.host, options);
  out.firmware = firmware::query_step(node, out.host, sysfs_root, firmware);
  return out;
}

firmware::StepOutcome firmware_node(const profile::ResolvedNode& node,
                                    const std::string& sysfs_root,
                                    const firmware::StepOptions& options, bool set,
                                    const std::string& lock_file, int wait_seconds)
{
  firmware::StepOutcome out;
  if (!firmware::declares_link_type(node)) {
    out.status = firmware::StepStatus::not_declared;
    out.state.host = node.host;
    return out;
  }
  const auto host = inventory::inspect_node(node, sysfs_root);
  const auto tool = firmware::make_mstconfig(options.mstconfig, options.timeout);
  if (!set) {
    out.status = firmware::StepStatus::queried;
    out.state = firmware::query_state(node, host, tool.get());
    return out;
  }
  // A SIGINT, SIGTERM or SIGHUP held by a TerminationGuard (the CLI's, around the whole
  // command) ends the wait with an error the caller can print before the signal ends it.
  const ApplyLock lock =
      take_lock(lock_file, wait_seconds, [] { return TerminationGuard::pending() != 0; });
  return firmware::set_step(firmware::query_state(node, host, tool.get()), *tool, options);
}

namespace {

NodeOutcome run_node(const profile::ResolvedNode& node, const std::string& cluster,
                     const NodeOptions& options)
{
  NodeOutcome out;
  out.backend = pick_backend(options.backend, node);
  if (options.on_backend) {
    options.on_backend(out.backend);
  }
  const bool nm = out.backend.backend == Backend::networkmanager;
  if (!nm && (!options.activate || options.adopt)) {
    throw Error(ErrorKind::usage, "--no-activate and --adopt need the NetworkManager backend");
  }
  out.report.host = node.host;
  out.report.backend = out.backend.backend;
  if (options.dry_run) {
    check_lock_file(options.lock_file);
    run_firmware(node, options, out);
    if (nm) {
      apply_networkmanager(node, cluster, options, out);
    } else {
      apply_netlink(node, options, out);
    }
    return out;
  }
  if (!nm) {
    require_net_admin();
  }
  // Waited for while steps.interrupted lets it: a stop during the wait (a signal the caller
  // turns into interrupted, from on_backend on) is an apply that changed nothing, exit 7,
  // rather than a process ended without a word.
  const ApplyLock lock =
      take_lock(options.lock_file, options.wait_seconds, options.steps.interrupted);
  const std::shared_ptr<void> guard = options.while_locked ? options.while_locked() : nullptr;
  if (!run_firmware(node, options, out)) {
    return out;
  }
  if (nm) {
    apply_networkmanager(node, cluster, options, out);
  } else {
    apply_netlink(node, options, out);
  }
  return out;
}

}  // namespace

NodeOutcome apply_node(const profile::ResolvedNode& node, const std::string& cluster,
                       const NodeOptions& options)
{
  // Both backends and the firmware step poll and report through these: guarded once here.
  NodeOptions guarded = options;
  guarded.steps.interrupted = detail::guarded_interrupted(options.steps.interrupted);
  guarded.steps.progress = detail::guarded_progress(options.steps.progress);
  return run_node(node, cluster, guarded);
}

}  // namespace ibsetup::apply
