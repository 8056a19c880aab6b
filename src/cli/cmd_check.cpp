#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "common/strings.hpp"
#include "check/slurm.hpp"

#include <ibsetup/check.hpp>
#include <ibsetup/error.hpp>
#include <ibsetup/inventory.hpp>
#include <ibsetup/plan.hpp>
#include <ibsetup/profile.hpp>
#include <ibsetup/rdma_check.hpp>

#include <CLI/CLI.hpp>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <thread>

namespace ibsetup::cli {

namespace {

// Ends the process with a failed verdict when the whole run overstays --timeout: a hung
// sysfs read or library call must not hang a Slurm prolog. It waits in poll() on a pipe, whose
// timeout runs on the monotonic clock (GCC 8's condition_variable::wait_for waits on the wall
// clock, which a time step at boot moves).
class Watchdog {
public:
  // on_expiry runs on the watchdog's thread when the time is up; then the process exits 5.
  Watchdog(double seconds, std::function<void()> on_expiry) : m_on_expiry(std::move(on_expiry))
  {
    if (pipe2(m_wake, O_CLOEXEC) != 0) {
      throw EnvironmentError(std::string("cannot create the --timeout watchdog: ") +
                             std::strerror(errno));
    }
    m_thread = std::thread([this, seconds] { watch(seconds); });
  }
  ~Watchdog()
  {
    disarm();
    m_thread.join();
    close(m_wake[0]);
    close(m_wake[1]);
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // From here on the run is not cut short. When the watchdog has already fired, its report
  // is being printed and the process is about to exit: this thread must print nothing more.
  void disarm()
  {
    int armed = k_armed;
    if (!m_state.compare_exchange_strong(armed, k_disarmed)) {
      if (armed == k_fired) {
        for (;;) {
          pause();
        }
      }
      return;
    }
    const char byte = 0;
    while (write(m_wake[1], &byte, 1) < 0 && errno == EINTR) {
    }
  }

private:
  static constexpr int k_armed = 0;
  static constexpr int k_disarmed = 1;
  static constexpr int k_fired = 2;

  void watch(double seconds)
  {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    for (;;) {
      const double left_ms =
          std::chrono::duration<double, std::milli>(end - std::chrono::steady_clock::now()).count();
      if (left_ms <= 0) {
        break;
      }
      pollfd p{m_wake[0], POLLIN, 0};
      const int n = poll(&p, 1, static_cast<int>(std::min(left_ms + 1, 3.6e6)));
      if (n > 0) {
        return;  // disarmed
      }
    }
    int armed = k_armed;
    if (m_state.compare_exchange_strong(armed, k_fired)) {
      m_on_expiry();
      std::cout << std::flush;
      _exit(static_cast<int>(ExitCode::check_failed));
    }
  }

  std::function<void()> m_on_expiry;
  std::atomic<int> m_state{k_armed};
  int m_wake[2] = {-1, -1};
  std::thread m_thread;
};

std::string render_report(const check::Report& report, const std::string& format)
{
  return format == "json"  ? check::report_to_json(report)
         : format == "nhc" ? check::report_to_nhc(report)
                           : check::report_to_text(report);
}

inventory::Host observe(const profile::ResolvedNode& node, const std::string& sysfs_root,
                        const std::string& saved, bool counters)
{
  if (!saved.empty()) {
    std::ifstream in(saved);
    if (!in) {
      throw EnvironmentError("cannot read " + saved);
    }
    // Far above any real inventory (a few KiB per HCA); reading stops there.
    constexpr size_t k_max_inventory = size_t{16} << 20;
    std::string text;
    char chunk[65536];
    while (text.size() <= k_max_inventory && in.read(chunk, sizeof chunk).gcount() > 0) {
      text.append(chunk, static_cast<size_t>(in.gcount()));
    }
    if (in.bad()) {
      throw EnvironmentError("cannot read " + saved);
    }
    if (text.size() > k_max_inventory) {
      throw InputError(saved + ": not an `ibsetup inspect --json` inventory: larger than " +
                       std::to_string(k_max_inventory >> 20) + " MiB");
    }
    inventory::Host host;
    try {
      host = inventory::host_from_json(text);
    } catch (const InputError& e) {
      throw InputError(saved + ": not an `ibsetup inspect --json` inventory: " + e.what());
    }
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
    // --json is --format json: any other format asked for as well is a contradiction.
    if (m_check->count("--format") > 0 && m_format != "json") {
      throw Error(ExitCode::usage, "--json and --format " + m_format + " disagree; give one");
    }
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
  if (!std::isfinite(m_timeout_s) || m_timeout_s <= 0 || m_timeout_s > 86400) {
    throw Error(ExitCode::usage, "--timeout must be a number of seconds above 0, at most 86400");
  }
  // The same range as the profile's checks.peer_timeout_ms.
  if (m_peer_timeout_ms < 0 || m_peer_timeout_ms > 600000) {
    throw Error(ExitCode::usage, "--peer-timeout-ms must be 1 to 600000 (0: the profile's)");
  }
  const auto start = std::chrono::steady_clock::now();
  const std::string node_name = m_node.empty() ? profile::default_node_name() : m_node;
  const std::string slurm_node = m_slurm_node.empty() ? node_name : m_slurm_node;
  const auto left_ms = [&] {
    return m_timeout_s * 1000 -
           std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
               .count();
  };
  // Armed before the profile is read: a profile on a hung file system, or one that is slow
  // to parse, must not outlive --timeout either.
  std::atomic<bool> loaded{false};
  Watchdog watchdog(m_timeout_s, [&] {
    check::Report r;
    r.host = node_name;
    std::ostringstream what;
    what << node_name << ": check did not finish within " << m_timeout_s << " s (--timeout)"
         << (loaded ? "" : "; the profile was still being loaded");
    r.checks.push_back({"timeout", node_name, check::Status::fail, "finished within the timeout",
                        loaded ? "still running" : "still loading the profile", what.str()});
    std::cout << render_report(r, m_format) << std::flush;
    if (m_slurm_drain) {
      // A hung check is a node to take out of service, like a failed one.
      const auto slurm = check::slurm_update(r, slurm_node, m_scontrol, std::chrono::seconds(5));
      std::cerr << "ibsetup: "
                << util::escape_text(slurm.error.empty() ? "slurm: " + slurm.action
                                                         : "error: slurm: " + slurm.error)
                << '\n';
    }
  });
  const profile::Profile p = profile::load_profile(m_file);
  const profile::ResolvedNode node = resolve_node_arg(p, m_node);
  loaded = true;

  check::Report report;
  report.host = node.host;
  const bool counters = m_counters || !node.checks.counter_max.empty();
  const auto host = observe(node, m_sysfs_root, m_inventory, counters);
  if (const char* delay = std::getenv("IBSETUP_CHECK_DELAY_MS")) {
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(delay)));  // tests: a hang
  }
  // Probes and the kernel's ABI files belong to the machine ibsetup runs on: they are judged
  // only when that machine is what is being checked.
  const bool live_host = m_inventory.empty() && inventory::is_live_root(m_sysfs_root);
  check::LocalOptions local;
  local.addresses_known = live_host;
  local.abi_known = m_inventory.empty();
  report.checks = check::check_local(node, host, m_sysfs_root, local);

  check::Settings settings;
  settings.disabled = node.checks.disable;
  settings.disabled.insert(settings.disabled.end(), m_disable.begin(), m_disable.end());
  settings.warn_only = node.checks.warn;
  settings.warn_only.insert(settings.warn_only.end(), m_warn.begin(), m_warn.end());
  // Each probe gets its deadline, but never more than what is left of --timeout (the RDMA
  // checks may take two deadlines with --rdma-pingpong).
  const auto deadline = [&](int parts) {
    const int want = m_peer_timeout_ms > 0 ? m_peer_timeout_ms : node.checks.peer_timeout_ms;
    return static_cast<int>(
        std::max(1.0, std::min(static_cast<double>(want), (left_ms() - 100) / parts)));
  };
  if (!m_no_peers && !node.peers.empty() && !settings.disables("ip.peer")) {
    if (live_host) {
      auto peers = check::check_ip_peers(node, deadline(1));
      report.checks.insert(report.checks.end(), peers.begin(), peers.end());
    } else {
      report.checks.push_back({"ip.peer", node.host, check::Status::skip, "", "",
                               node.host + ": peers are probed only when checking this machine, " +
                                   "not a captured tree or a saved inventory"});
    }
  }
  // The RDMA checks open this host's devices: not for a captured tree or a saved inventory.
  if (!settings.disables("rdma") && live_host) {
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
  // The verdict is in: from here on neither printing nor Slurm may be cut short by the
  // watchdog (that would print a second, contradicting report).
  watchdog.disarm();

  std::cout << render_report(report, m_format) << std::flush;
  if (m_slurm_drain) {
    // scontrol gets what is left of --timeout, at least 2 s (a prolog's verdict must reach
    // Slurm) and at most 10 s.
    const auto timeout = std::chrono::milliseconds(
        static_cast<int64_t>(std::max(2000.0, std::min(10000.0, left_ms()))));
    const auto slurm = check::slurm_update(report, slurm_node, m_scontrol, timeout);
    if (!slurm.error.empty()) {
      std::cerr << "ibsetup: error: slurm: " << util::escape_text(slurm.error) << '\n';
      return static_cast<int>(report.ok() ? ExitCode::environment : ExitCode::check_failed);
    }
    std::cerr << "ibsetup: slurm: " << util::escape_text(slurm.action) << '\n';
  }
  return report.ok() ? 0 : static_cast<int>(ExitCode::check_failed);
}

}  // namespace ibsetup::cli
