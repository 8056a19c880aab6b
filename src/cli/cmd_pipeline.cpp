#include "cli/app.hpp"
#include "cli/cmd_firmware.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"
#include "common/strings.hpp"

#include <ibsetup/apply.hpp>
#include <ibsetup/plan.hpp>
#include <ibsetup/profile.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <csignal>
#include <iostream>
#include <optional>

namespace ibsetup::cli {

namespace {

// The plan for standard output: its warnings go to standard error instead, through
// print_warnings (`ibsetup: warning: ...`, silenced by -q), as on every command. The JSON keeps
// them in its `warnings`.
std::string plan_output(const plan::Plan& p, bool json, bool quiet)
{
  print_warnings(p.warnings, quiet);
  if (json) {
    return plan::plan_to_json(p);
  }
  plan::Plan shown = p;
  shown.warnings.clear();
  return plan::plan_to_text(shown);
}

struct Desired {
  profile::Profile profile;
  profile::ResolvedNode node;
};

Desired load(const std::string& file, const std::string& node, bool quiet)
{
  Desired d{profile::load_profile(file), {}};
  print_warnings(d.profile.warnings, quiet);
  d.node = resolve_node_arg(d.profile, node);
  return d;
}

apply::BackendRequest backend_request(const std::string& flag)
{
  if (flag == "networkmanager") {
    return apply::BackendRequest::networkmanager;
  }
  if (flag == "netlink") {
    return apply::BackendRequest::netlink;
  }
  if (flag != "auto") {
    throw Error(ErrorKind::usage, "--backend must be auto, networkmanager or netlink");
  }
  return apply::BackendRequest::automatic;
}

// The rollback lines whose undo did not happen, when -q kept the progress lines (which show
// every rollback line) from the terminal.
void print_failed_undos(const std::vector<std::string>& failed, bool quiet)
{
  if (!quiet) {
    return;
  }
  for (const auto& line : failed) {
    std::cerr << "  - " << util::escape_text(line) << '\n';
  }
}

void print_foreign(const apply::Report& report)
{
  for (const auto& f : report.foreign) {
    if (!f.saved.empty()) {
      // After a failure the rollback has put the profile back, unless its undo failed (or was
      // not tried: NetworkManager hung or gone); the saved copy stays either way.
      const bool put_back = std::find(report.rollback.begin(), report.rollback.end(),
                                      "re-add " + f.id + " ... ok") != report.rollback.end();
      std::cerr << "profile '" << util::escape_text(f.id) << "' (" << util::escape_text(f.uuid)
                << ") also claims " << util::escape_text(f.interface)
                << (report.ok() ? "; adopted, saved to "
                    : put_back  ? "; put back by the rollback, a copy in "
                                : "; not put back by the rollback: restore it from ")
                << util::escape_text(f.saved) << '\n';
    }
  }
}

// The NetworkManager backend's outcome (after the firmware step).
void print_networkmanager(const apply::NodeOutcome& out, const std::string& host, bool dry_run,
                          bool json, bool quiet)
{
  const apply::Report& report = out.report;
  if (!quiet) {
    print_foreign(report);
  }
  if (!report.ok() && out.result == ErrorKind::environment) {
    // Refused before any change (another tool's checkpoint holds a device): exit 4, which is an
    // error on stderr and nothing on stdout, with --json too, as for every other command.
    print_error(report.failure + "; nothing was changed");
  } else if (json) {
    emit_report(apply::report_to_json(report));
  } else if (dry_run) {
    for (const auto& line : report.done) {
      std::cout << "  " << util::escape_text(line) << '\n';
    }
    if (!quiet) {
      std::cout << util::escape_text(host) << ": " << report.done.size()
                << (report.done.size() == 1 ? " step" : " steps") << " to take, "
                << report.unchanged.size()
                << " profiles stored as wanted (dry run, nothing sent)\n";
    }
  } else if (report.ok()) {
    if (!quiet) {
      emit_report(util::escape_text(host) + ": " + std::to_string(report.changes) +
                  " changes applied and verified (" + std::to_string(report.unchanged.size()) +
                  " profiles unchanged)\n");
    }
  } else {
    for (const auto& line : report.not_converged) {
      std::cerr << "  not converged: " << util::escape_text(line) << '\n';
    }
    // "Rolled back" only when every undo said ok: a checkpoint NetworkManager no longer held,
    // or a profile that could not be restored, may leave the node part-way. -q printed no
    // rollback lines, so the failed ones are printed here.
    const auto failed = apply::rollback_failures(report);
    print_failed_undos(failed, quiet);
    print_error(report.failure + "; " +
                (report.checkpoint.empty() ? std::string("nothing was changed")
                 : failed.empty()
                     ? "rolled back through checkpoint " + report.checkpoint
                     : "rollback through checkpoint " + report.checkpoint +
                           " not confirmed: a step of it failed (see the rollback lines)"));
  }
}

// The netlink backend's outcome (after the firmware step).
void print_netlink(const apply::NodeOutcome& out, const std::string& host, bool dry_run, bool json,
                   bool quiet)
{
  const plan::Plan& p = *out.plan;
  if (dry_run) {
    std::cout << plan_output(p, json, quiet);
    if (!json && !p.actions.empty()) {
      std::cout << "netlink requests (dry run, nothing sent):\n";
      for (const auto& a : p.actions) {
        std::cout << "  " << util::escape_text(apply::describe_request(a)) << '\n';
      }
    }
    return;
  }
  if (!p.errors.empty()) {
    std::cout << plan_output(p, json, quiet);
    print_error("the plan has errors; nothing was changed");
    return;
  }
  const apply::Report& report = out.report;
  if (json) {
    emit_report(apply::report_to_json(report));
  } else if (report.ok()) {
    if (!quiet) {
      emit_report(util::escape_text(host) + ": " + std::to_string(report.changes) +
                  " changes applied and verified\n");
    }
  } else {
    for (const auto& line : report.not_converged) {
      std::cerr << "  not converged: " << util::escape_text(line) << '\n';
    }
    // The same rule as NetworkManager's: "rolled back" only when every undo said ok. A step the
    // kernel refused on the way back (an interface deleted by someone else meanwhile) leaves
    // the node part-way.
    const auto failed = apply::rollback_failures(report);
    print_failed_undos(failed, quiet);
    print_error(report.failure + "; " +
                (failed.empty() ? "rolled back " + std::to_string(report.rollback.size()) + " steps"
                                : "rollback not complete: " + std::to_string(failed.size()) +
                                      " of " + std::to_string(report.rollback.size()) +
                                      " steps failed (see the rollback lines)"));
  }
}

}  // namespace

PipelineCommands::PipelineCommands(CLI::App& app)
{
  m_plan = app.add_subcommand("plan", "Show what apply would change on this node");
  m_apply = app.add_subcommand("apply", "Bring this node's IPoIB interfaces to the profile");
  for (CLI::App* cmd : {m_plan, m_apply}) {
    cmd->add_option("file", m_file, "Cluster profile (YAML)")->required();
    cmd->add_option("--node", m_node, "Node to configure (default: this host's short name)");
    cmd->add_flag("--json", m_json, "Print the result as JSON");
    cmd->add_flag("--prune", m_prune,
                  "Also delete pkey children of declared interfaces that the profile does not "
                  "declare");
    cmd->add_flag("-q,--quiet", m_quiet,
                  cmd == m_plan ? "Do not print warnings (the plan is printed)"
                                : "Print nothing but errors (--dry-run still prints its preview)");
    add_firmware_options(*cmd, m_firmware);
  }
  m_plan->add_option("--sysfs-root", m_sysfs_root,
                     "Read sysfs from DIR instead of /sys (plan against a captured tree)");
  m_plan->add_flag("--detailed-exitcode", m_detailed_exitcode,
                   "Exit 6 when changes are pending (0 when none)");
  m_apply->add_option("--backend", m_backend, "auto, networkmanager or netlink (default auto)");
  m_apply->add_flag("--dry-run", m_dry_run,
                    "Print what would be sent (with --offline: written); change nothing");
  m_apply->add_flag("--no-activate", m_no_activate,
                    "NetworkManager backend: store the profiles without activating them");
  m_apply->add_flag("--adopt", m_adopt,
                    "NetworkManager backend: save, deactivate and delete other profiles that "
                    "claim a declared interface");
  m_apply->add_option("--adopt-dir", m_adopt_dir,
                      "Where --adopt saves the profiles it deletes (default "
                      "/var/lib/ibsetup/adopted)");
  // 0 would be NetworkManager's "never": a checkpoint left for ever by a killed ibsetup, which
  // every later apply then fails on.
  m_apply
      ->add_option("--rollback-timeout", m_rollback_timeout,
                   "NetworkManager backend: seconds after which NetworkManager rolls back its "
                   "checkpoint by itself if ibsetup dies (1-86400, default 120)")
      ->check(CLI::Range(1, 86400));
  m_apply
      ->add_option("--wait", m_wait, "Wait up to SECONDS for another apply to finish (default 0)")
      ->check(CLI::Range(0, 1000000));
  m_apply->add_option("--lock-file", m_lock_file,
                      "The lock that allows one apply at a time (default /run/ibsetup.lock)");
  // Hidden (empty group): for tests and demos, see README "Options for tests".
  m_apply
      ->add_option("--step-delay-ms", m_step_delay_ms,
                   "Pause after each step, both backends (tests of interruption; demos)")
      ->check(CLI::Range(0, 60000))
      ->group("");
}

int PipelineCommands::run()
{
  if (*m_plan) {
    return plan();
  }
  if (*m_apply) {
    return apply();
  }
  return -1;
}

int PipelineCommands::plan()
{
  const Desired d = load(m_file, m_node, m_quiet);
  auto result =
      apply::plan_node(d.node, m_sysfs_root, {m_prune || d.node.prune}, m_firmware.resolved());
  const bool unknown = result.firmware.status == firmware::StepStatus::unknown;
  if (unknown && m_json) {
    // The text output says so in its firmware section, and so does standard error (below);
    // the JSON has no such section.
    print_warnings(result.plan.warnings, m_quiet);
    result.plan.warnings.push_back("firmware link types: not known: " + result.firmware.unknown);
    std::cout << plan::plan_to_json(result.plan);
  } else {
    if (m_json && result.firmware.status == firmware::StepStatus::queried) {
      // The JSON has no firmware section: its warnings (IPoIB on a port that is or will be
      // Ethernet) join the plan's, which explain an exit 6 with no interface change.
      const auto& w = result.firmware.state.warnings;
      result.plan.warnings.insert(result.plan.warnings.end(), w.begin(), w.end());
    }
    std::cout << plan_output(result.plan, m_json, m_quiet);
  }
  print_firmware_section(result.firmware, m_json, m_quiet);
  if (!result.plan.errors.empty()) {
    return exit_code(ErrorKind::bad_input);
  }
  if (m_detailed_exitcode && unknown) {
    // 0 would say nothing is pending, which the unread link types cannot confirm.
    std::cerr << "ibsetup: error: firmware link types could not be read, so whether changes "
                 "are pending is not known: "
              << util::escape_text(result.firmware.unknown) << '\n';
    return exit_code(ErrorKind::environment);
  }
  if (m_detailed_exitcode && result.changes()) {
    return exit_code(ErrorKind::changes_pending);
  }
  return 0;
}

int PipelineCommands::apply()
{
  const Desired d = load(m_file, m_node, m_quiet);
  const bool talk = !m_quiet && !m_json;
  const std::string& host = d.node.host;
  apply::NodeOptions o;
  o.backend = backend_request(m_backend);
  o.dry_run = m_dry_run;
  o.prune = m_prune;
  o.lock_file = m_lock_file;
  o.wait_seconds = m_wait;
  o.activate = !m_no_activate;
  o.adopt = m_adopt;
  o.adopt_dir = m_adopt_dir;
  o.rollback_timeout_s = m_rollback_timeout;
  o.firmware = m_firmware.resolved();
  o.steps.step_delay_ms = m_step_delay_ms;
  // Signals become steps.interrupted from the backend's choice on, so that one while waiting
  // for the lock ends the wait with a message (exit 7) rather than the process without a word.
  // Not earlier: the choice may wait on a hung NetworkManager, which a signal must still end.
  std::optional<InterruptGuard> guard;
  if (!m_dry_run) {
    o.steps.interrupted = interrupted;
  }
  if (talk) {
    o.steps.progress = [](const std::string& line) { progress_line(util::escape_text(line)); };
  }
  o.on_backend = [this, &guard](const apply::BackendPick& pick) {
    if (!m_dry_run) {
      guard.emplace();
    }
    if (!m_quiet) {
      std::cerr << "ibsetup: backend " << util::escape_text(pick.why) << '\n';
    }
  };
  o.on_firmware = [this, &host](const firmware::StepOutcome& outcome) {
    print_firmware_step(outcome, host, m_dry_run, m_quiet, m_json);
  };
  o.before_changes = [this, talk, &host, &d](const plan::Plan* p) {
    changes_begin();
    if (p != nullptr) {
      // On stderr with --json too: apply's report has no place for them, and scripts and the
      // Ansible module read warnings there.
      print_warnings(p->warnings, m_quiet);
      if (talk) {
        std::cout << "applying " << p->actions.size() << " changes to " << util::escape_text(host)
                  << "\n";
      }
    } else if (talk) {
      std::cout << (m_dry_run ? "checking " : "applying ") << d.node.interfaces.size()
                << " NetworkManager profiles on " << util::escape_text(host)
                << (m_no_activate ? " (store only, no activation)" : "") << "\n";
    }
  };
  const apply::NodeOutcome out = apply::apply_node(d.node, d.profile.cluster, o);
  // The guard stays while the report is printed: a signal then, or one that came after apply's
  // last look at it, would otherwise end ibsetup with changes made and not a word of them.
  if (out.backend.backend == apply::Backend::networkmanager) {
    if (out.ran) {
      print_warnings(out.warnings, m_quiet);
      print_networkmanager(out, host, m_dry_run, m_json, m_quiet);
    }
  } else if (out.plan) {
    print_netlink(out, host, m_dry_run, m_json, m_quiet);
  }
  // Flushed before the guard goes, and read after: a signal until then is noted here, one after
  // it ends ibsetup by its default, the report already out.
  std::cout.flush();
  guard.reset();
  if (const int late = unheeded_signal(); late != 0) {
    std::cerr << "ibsetup: " << util::signal_name(late) << " received after apply's last step";
    if (out.result != ErrorKind::ok) {
      // Already ending with what went wrong (a rollback's 7, a reboot's 9): that code stays.
      std::cerr << "\n";
    } else {
      // Ends ibsetup as the signal would have, once run() has printed everything (128+N).
      std::cerr << "; its changes stay\n";
      hold_stop_signals();
      raise(late);
    }
  }
  return exit_code(out.result);
}

}  // namespace ibsetup::cli
