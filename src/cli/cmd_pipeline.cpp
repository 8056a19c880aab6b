#include "cli/app.hpp"
#include "cli/cmd_firmware.hpp"
#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/nm_apply.hpp"
#include "common/strings.hpp"

#include <ibsetup/apply.hpp>
#include <ibsetup/inventory.hpp>
#include <ibsetup/nm.hpp>
#include <ibsetup/plan.hpp>
#include <ibsetup/profile.hpp>

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <thread>

namespace ibsetup::cli {

namespace {

struct Desired {
  profile::Profile profile;
  profile::ResolvedNode node;
};

Desired load(const std::string& file, const std::string& node, bool quiet)
{
  Desired d{profile::load_profile(file), {}};
  if (!quiet) {
    for (const auto& w : d.profile.warnings) {
      std::cerr << w.format() << '\n';
    }
  }
  d.node = resolve_node_arg(d.profile, node);
  return d;
}

inventory::Host observe(const profile::ResolvedNode& node, const std::string& sysfs_root)
{
  inventory::Options o;
  o.sysfs_root = sysfs_root;
  o.netdev_names = plan::netdev_names(node);
  auto host = inventory::inspect_host(o);
  host.host = node.host;
  return host;
}

struct BackendPick {
  bool networkmanager = false;
  std::string why;
};

// --backend wins, then the profile's backend, then what nm::choose_backend finds.
BackendPick pick_backend(const std::string& flag, const profile::ResolvedNode& node)
{
  if (flag == "networkmanager" || flag == "netlink") {
    return {flag == "networkmanager", flag + ": asked for with --backend"};
  }
  if (flag != "auto") {
    throw Error(ExitCode::usage, "--backend must be auto, networkmanager or netlink");
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
    return {asked->backend == profile::Backend::networkmanager,
            name + ": the profile sets backend " + name};
  }
  const auto choice = nm::choose_backend(node);
  return {choice.use_networkmanager, choice.why};
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
    cmd->add_flag("-q,--quiet", m_quiet, "Print only errors");
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
  m_apply->add_option("--rollback-timeout", m_rollback_timeout,
                      "NetworkManager backend: seconds after which NetworkManager rolls back "
                      "by itself if ibsetup dies (default 120)");
  m_apply->add_option("--wait", m_wait,
                      "Wait up to SECONDS for another apply to finish (default 0)");
  m_apply->add_option("--lock-file", m_lock_file,
                      "The lock that allows one apply at a time (default /run/ibsetup.lock)");
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
  const auto host = observe(d.node, m_sysfs_root);
  const auto p = plan::make_plan(d.node, host, {m_prune || d.node.prune});
  std::cout << (m_json ? plan::plan_to_json(p) : plan::plan_to_text(p));
  const bool firmware = plan_firmware_section(d.node, host, m_sysfs_root, m_firmware, m_json);
  if (!p.errors.empty()) {
    return static_cast<int>(ExitCode::bad_input);
  }
  if (m_detailed_exitcode && (!p.actions.empty() || firmware)) {
    return static_cast<int>(ExitCode::changes_pending);
  }
  return 0;
}

int PipelineCommands::apply()
{
  const Desired d = load(m_file, m_node, m_quiet);
  const BackendPick chosen = pick_backend(m_backend, d.node);
  if (!m_quiet) {
    std::cerr << "ibsetup: backend " << chosen.why << '\n';
  }
  if (!chosen.networkmanager && (m_no_activate || m_adopt)) {
    throw Error(ExitCode::usage, "--no-activate and --adopt need the NetworkManager backend");
  }
  if (chosen.networkmanager) {
    NmApplyFlags flags;
    flags.activate = !m_no_activate;
    flags.adopt = m_adopt;
    flags.dry_run = m_dry_run;
    flags.json = m_json;
    flags.quiet = m_quiet;
    flags.adopt_dir = m_adopt_dir;
    flags.rollback_timeout_s = m_rollback_timeout;
    // The firmware step comes first whatever the backend: a port that changes link type at
    // the next boot makes interface changes now pointless (exit 9).
    if (m_dry_run) {
      apply_firmware_step(d.node, m_firmware, true, m_quiet, m_json);
      return apply_with_networkmanager(d.profile.cluster, d.node, flags, [] { return false; });
    }
    const apply::ApplyLock lock(m_lock_file, m_wait);
    const InterruptGuard signals;
    if (const int code = apply_firmware_step(d.node, m_firmware, false, m_quiet, m_json)) {
      return code;
    }
    std::function<bool()> stop = interrupted;
    if (const char* delay = std::getenv("IBSETUP_STEP_DELAY_MS")) {
      // The NetworkManager backend asks before each step: a pause there spaces its steps.
      const int ms = std::atoi(delay);
      stop = [ms] {
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        return interrupted();
      };
    }
    return apply_with_networkmanager(d.profile.cluster, d.node, flags, stop);
  }
  const plan::Options plan_options{m_prune || d.node.prune};
  if (m_dry_run) {
    apply_firmware_step(d.node, m_firmware, true, m_quiet, m_json);
    const auto p = plan::make_plan(d.node, observe(d.node, "/sys"), plan_options);
    std::cout << (m_json ? plan::plan_to_json(p) : plan::plan_to_text(p));
    if (!m_json && !p.actions.empty()) {
      std::cout << "netlink requests (dry run, nothing sent):\n";
      for (const auto& a : p.actions) {
        std::cout << "  " << util::escape_text(apply::describe_request(a)) << '\n';
      }
    }
    return p.errors.empty() ? 0 : static_cast<int>(ExitCode::bad_input);
  }
  apply::require_net_admin();
  const apply::ApplyLock lock(m_lock_file, m_wait);
  const InterruptGuard signals;
  if (const int code = apply_firmware_step(d.node, m_firmware, false, m_quiet, m_json)) {
    return code;
  }
  const auto p = plan::make_plan(d.node, observe(d.node, "/sys"), plan_options);
  if (!p.errors.empty()) {
    std::cout << (m_json ? plan::plan_to_json(p) : plan::plan_to_text(p));
    std::cerr << "ibsetup: error: the plan has errors; nothing was changed\n";
    return static_cast<int>(ExitCode::bad_input);
  }
  if (!m_quiet && !m_json) {
    for (const auto& w : p.warnings) {
      std::cerr << "warning: " << util::escape_text(w) << '\n';
    }
    std::cout << "applying " << p.actions.size() << " changes to " << util::escape_text(d.node.host)
              << "\n";
  }
  const auto backend = apply::make_netlink_backend();
  apply::Options options;
  options.interrupted = interrupted;
  if (const char* delay = std::getenv("IBSETUP_STEP_DELAY_MS")) {
    options.step_delay_ms = std::atoi(delay);
  }
  if (!m_quiet && !m_json) {
    options.progress = [](const std::string& line) {
      std::cout << util::escape_text(line) << std::endl;
    };
  }
  const auto replan = [&] {
    return plan::make_plan(d.node, observe(d.node, "/sys"), plan_options);
  };
  const apply::Report report = apply::apply_plan(p, *backend, replan, options);
  if (m_json) {
    emit_report(apply::report_to_json(report));
  } else if (report.ok()) {
    if (!m_quiet) {
      emit_report(util::escape_text(d.node.host) + ": " + std::to_string(report.changes) +
                  " changes applied and verified\n");
    }
  } else {
    for (const auto& line : report.not_converged) {
      std::cerr << "  not converged: " << util::escape_text(line) << '\n';
    }
    std::cerr << "ibsetup: error: " << util::escape_text(report.failure) << "; rolled back "
              << report.rollback.size() << " steps\n";
  }
  return report.ok() ? 0 : static_cast<int>(ExitCode::apply_failed);
}

}  // namespace ibsetup::cli
