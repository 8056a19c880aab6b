#include "cli/commands.hpp"

#include <ibsetup/check.hpp>
#include <ibsetup/error.hpp>
#include <ibsetup/inventory.hpp>
#include <ibsetup/plan.hpp>
#include <ibsetup/profile.hpp>
#include <ibsetup/rdma_check.hpp>
#include <ibsetup/slurm.hpp>

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

namespace ibsetup::cli {

namespace {

// Ends the process with a failed verdict when the whole run overstays --timeout: a hung
// sysfs read or library call must not hang a Slurm prolog.
class Watchdog {
public:
  Watchdog(double seconds, std::string host, std::string format)
      : m_thread([this, seconds, host = std::move(host), format = std::move(format)] {
          std::unique_lock<std::mutex> lock(m_mutex);
          if (m_cv.wait_for(lock, std::chrono::duration<double>(seconds),
                            [this] { return m_done; })) {
            return;
          }
          check::Report r;
          r.host = host;
          std::ostringstream what;
          what << host << ": check did not finish within " << seconds << " s (--timeout)";
          r.checks.push_back({"timeout", host, check::Status::fail, "finished within the timeout",
                              "still running", what.str()});
          const std::string text = format == "json"  ? check::report_to_json(r)
                                   : format == "nhc" ? check::report_to_nhc(r)
                                                     : check::report_to_text(r);
          std::cout << text << std::flush;
          _exit(static_cast<int>(ExitCode::check_failed));
        })
  {
  }
  ~Watchdog()
  {
    {
      const std::lock_guard<std::mutex> lock(m_mutex);
      m_done = true;
    }
    m_cv.notify_all();
    m_thread.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

private:
  std::mutex m_mutex;
  std::condition_variable m_cv;
  bool m_done = false;
  std::thread m_thread;
};

inventory::Host observe(const profile::ResolvedNode& node, const std::string& sysfs_root,
                        const std::string& saved, bool counters)
{
  if (!saved.empty()) {
    std::ifstream in(saved);
    if (!in) {
      throw EnvironmentError("cannot read " + saved);
    }
    std::stringstream text;
    text << in.rdbuf();
    auto host = inventory::host_from_json(text.str());
    host.host = node.host;
    return host;
  }
  inventory::Options o;
  o.sysfs_root = sysfs_root;
  o.counters = counters;
  o.netdev_names = plan::netdev_names(node);
  auto host = inventory::inspect_host(o);
  host.host = node.host;
  return host;
}

}  // namespace

CheckCommands::CheckCommands(CLI::App& app)
{
  m_check = app.add_subcommand("check", "Check this node's fabric against the profile");
  m_check->add_option("file", m_file, "Cluster profile (YAML)")->required();
  m_check->add_option("--node", m_node, "Node to check (default: this host's short name)");
  m_check->add_option("--sysfs-root", m_sysfs_root,
                      "Read sysfs from DIR instead of /sys (check a captured tree)");
  m_check->add_option("--inventory", m_inventory,
                      "Check a saved `ibsetup inspect --json` instead of this host");
  m_check->add_flag("--json", m_json, "Print the results as JSON (same as --format json)");
  m_check->add_option("--format", m_format, "text (default), json or nhc");
  m_check->add_option("--disable", m_disable, "Skip a check id or group (repeatable)");
  m_check->add_option("--warn", m_warn, "Report a check id or group as a warning only");
  m_check->add_option("--timeout", m_timeout_s,
                      "Seconds for the whole run (default 10); then it fails");
  m_check->add_option("--peer-timeout-ms", m_peer_timeout_ms,
                      "Deadline of each peer probe (default: the profile's, else 1000)");
  m_check->add_flag("--no-peers", m_no_peers, "Skip the connectivity checks to peers");
  m_check->add_flag("--rdma-pingpong", m_rdma_pingpong,
                    "Also an RC send/recv exchange with `ibsetup responder` on each peer");
  m_check->add_option("--rdma-port", m_rdma_port, "The peers' responder port (default 18515)");
  m_check->add_flag("--slurm-drain", m_slurm_drain,
                    "On failure drain this node in Slurm; on success resume it if ibsetup "
                    "drained it");
  m_check->add_option("--slurm-node", m_slurm_node,
                      "The node's Slurm NodeName (default: the checked node's name)");
  m_check->add_option("--scontrol", m_scontrol, "The scontrol to run (default: scontrol)");
  m_check->add_flag("--counters", m_counters,
                    "Read port error counters (automatic when the profile sets thresholds)");
}

int CheckCommands::run()
{
  return *m_check ? check() : -1;
}

int CheckCommands::check()
{
  if (m_json) {
    m_format = "json";
  }
  if (m_format != "text" && m_format != "json" && m_format != "nhc") {
    throw Error(ExitCode::usage, "--format must be text, json or nhc");
  }
  for (const auto* list : {&m_disable, &m_warn}) {
    for (const auto& id : *list) {
      if (!check::is_check_id_or_group(id)) {
        throw Error(ExitCode::usage, "'" + id + "' is not a check id or group (see man ibsetup)");
      }
    }
  }
  const auto start = std::chrono::steady_clock::now();
  const profile::Profile p = profile::load_profile(m_file);
  const profile::ResolvedNode node =
      profile::resolve_node(p, m_node.empty() ? profile::default_node_name() : m_node);
  const Watchdog watchdog(m_timeout_s, node.host, m_format);

  check::Report report;
  report.host = node.host;
  const bool counters = m_counters || !node.checks.counter_max.empty();
  const auto host = observe(node, m_sysfs_root, m_inventory, counters);
  check::LocalOptions local;
  local.addresses_known = m_inventory.empty() && inventory::is_live_root(m_sysfs_root);
  report.checks = check::check_local(node, host, m_sysfs_root, local);

  check::Settings settings;
  settings.disabled = node.checks.disable;
  settings.disabled.insert(settings.disabled.end(), m_disable.begin(), m_disable.end());
  settings.warn_only = node.checks.warn;
  settings.warn_only.insert(settings.warn_only.end(), m_warn.begin(), m_warn.end());
  // Each probe gets its deadline, but never more than what is left of --timeout (the RDMA
  // checks may take two deadlines with --rdma-pingpong).
  const auto deadline = [&](int parts) {
    const double left_ms =
        m_timeout_s * 1000 -
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count() -
        100;
    const int want = m_peer_timeout_ms > 0 ? m_peer_timeout_ms : node.checks.peer_timeout_ms;
    return std::max(1, std::min(want, static_cast<int>(left_ms / parts)));
  };
  if (!m_no_peers && !node.peers.empty() && !settings.disables("ip.peer")) {
    auto peers = check::check_ip_peers(node, deadline(1));
    report.checks.insert(report.checks.end(), peers.begin(), peers.end());
  }
  // The RDMA checks open this host's devices: not for a captured tree or a saved inventory.
  if (!settings.disables("rdma") && m_inventory.empty() && inventory::is_live_root(m_sysfs_root)) {
    check::RdmaOptions rdma;
    rdma.pingpong = m_rdma_pingpong && !m_no_peers;
    rdma.port = m_rdma_port;
    rdma.deadline_ms = deadline(rdma.pingpong ? 2 : 1);
    rdma.sysfs_root = m_sysfs_root;
    profile::ResolvedNode target = node;
    if (m_no_peers) {
      target.peers.clear();
    }
    auto results = check::check_rdma(target, rdma);
    report.checks.insert(report.checks.end(), results.begin(), results.end());
  }
  check::apply_settings(report.checks, settings);

  std::cout << (m_format == "json"  ? check::report_to_json(report)
                : m_format == "nhc" ? check::report_to_nhc(report)
                                    : check::report_to_text(report));
  if (m_slurm_drain) {
    const auto slurm =
        check::slurm_update(report, m_slurm_node.empty() ? node.host : m_slurm_node, m_scontrol);
    if (!slurm.error.empty()) {
      std::cerr << "ibsetup: error: slurm: " << slurm.error << '\n';
      return static_cast<int>(report.ok() ? ExitCode::environment : ExitCode::check_failed);
    }
    std::cerr << "ibsetup: slurm: " << slurm.action << '\n';
  }
  return report.ok() ? 0 : static_cast<int>(ExitCode::check_failed);
}

}  // namespace ibsetup::cli
