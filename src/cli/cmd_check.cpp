#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/textfile.hpp"
#include "cli/interrupt.hpp"
#include "common/strings.hpp"
#include "check/slurm.hpp"

#include <ibsetup/check.hpp>
#include <ibsetup/error.hpp>
#include <ibsetup/profile.hpp>

#include <CLI/CLI.hpp>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <iostream>
#include <thread>

namespace ibsetup::cli {

namespace {

// The last resort behind run_check's own deadline: ends the process with a failed verdict
// when the whole run overstays --timeout, since a hung sysfs read or a profile on a hung file
// system must not hang a Slurm prolog. It waits in poll() on a pipe, whose
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
      // The main thread may be stuck in a read that nothing interrupts: it cannot return.
      exit_now(exit_code(ErrorKind::check_failed));
    }
  }

  std::function<void()> m_on_expiry;
  std::atomic<int> m_state{k_armed};
  int m_wake[2] = {-1, -1};
  std::thread m_thread;
};

void print_slurm(const check::SlurmOutcome& slurm)
{
  std::cerr << "ibsetup: "
            << util::escape_text(slurm.error.empty() ? "slurm: " + slurm.action
                                                     : "error: slurm: " + slurm.error)
            << '\n';
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
                      "Check a saved `ibsetup inspect --json` (- for standard input) instead of "
                      "this host");
  m_check->add_flag("--json", m_json, "Print the results as JSON (same as --format json)");
  m_check->add_option("--format", m_format, "text (default), json, nhc or openmetrics");
  m_check->add_option("--disable", m_disable, "Skip a check id or group (repeatable)");
  m_check->add_option("--warn", m_warn, "Report a check id or group as a warning only");
  m_check->add_option("--timeout", m_timeout_s,
                      "Seconds for the whole run (default 10); then it fails");
  m_peer_timeout_option =
      m_check->add_option("--peer-timeout-ms", m_peer_timeout_ms,
                          "Deadline of each peer probe (default: the profile's, else 1000)");
  m_check->add_flag("--no-peers", m_no_peers, "Skip the connectivity checks to peers");
  m_check->add_flag("--rdma-pingpong", m_rdma_pingpong,
                    "Also an RC send/recv exchange with `ibsetup responder` on each peer");
  m_check->add_option("--rdma-port", m_rdma_port, "The peers' responder port (default 18515)");
  m_check->add_flag("--bandwidth", m_bandwidth,
                    "Measure RDMA WRITE bandwidth to each peer's `ibsetup responder`");
  m_check->add_flag("--latency", m_latency,
                    "Measure send/recv latency (median, p99) to each peer's responder");
  m_check->add_flag("--loopback", m_loopback,
                    "Measure between this node's own HCA ports instead of to peers");
  m_check->add_option("--peer", m_perf_peers,
                      "Measure only to this checks.peers host (repeatable)");
  m_check->add_option("--bw-size", m_perf.bw_size, "Bytes per RDMA WRITE (default 65536)");
  m_check->add_option("--bw-duration", m_perf.bw_duration_s,
                      "Seconds of writes per peer (default 2)");
  m_check->add_option("--bw-qps", m_perf.bw_qps, "Queue pairs written at once (default 1)");
  m_check->add_option("--lat-size", m_perf.lat_size, "Bytes per latency message (default 2)");
  m_check->add_option("--lat-iters", m_perf.lat_iters, "Latency round trips (default 1000)");
  m_check->add_flag("--slurm-drain", m_slurm_drain,
                    "On failure drain this node in Slurm; on success resume it if ibsetup "
                    "drained it");
  m_check->add_option(
      "--slurm-node", m_slurm_node,
      "With --slurm-drain: the node's Slurm NodeName (default: the checked node's name)");
  m_check->add_option("--scontrol", m_scontrol,
                      "With --slurm-drain: the scontrol to run (default: scontrol)");
  m_check->add_flag("--counters", m_counters,
                    "Read port error counters (automatic when the profile sets thresholds)");
  m_check->add_flag("-q,--quiet", m_quiet,
                    "Do not print the profile's warnings, nor --inventory's host warning");
  m_check->add_option("--textfile-dir", m_textfile_dir,
                      "Also write the metrics (openmetrics) to DIR/ibsetup.prom, atomically, "
                      "for node_exporter's textfile collector");
}

int CheckCommands::run()
{
  return *m_check ? check() : -1;
}

// The options' ranges and the ones that only go together, said in the options' own names.
void CheckCommands::validate_options() const
{
  const auto need = [](bool ok, const std::string& what) {
    if (!ok) {
      throw Error(ErrorKind::usage, what);
    }
  };
  need(m_perf.bw_size >= 1 && m_perf.bw_size <= 8 << 20, "--bw-size must be 1 to 8388608 bytes");
  need(
      std::isfinite(m_perf.bw_duration_s) && m_perf.bw_duration_s > 0 && m_perf.bw_duration_s <= 30,
      "--bw-duration must be above 0 and at most 30 seconds");
  need(m_perf.bw_qps >= 1 && m_perf.bw_qps <= 8, "--bw-qps must be 1 to 8");
  need(m_perf.lat_size >= 1 && m_perf.lat_size <= 65536, "--lat-size must be 1 to 65536 bytes");
  need(m_perf.lat_iters >= 1 && m_perf.lat_iters <= 1000000, "--lat-iters must be 1 to 1000000");
  need(!m_loopback || m_bandwidth || m_latency, "--loopback needs --bandwidth or --latency");
  need(!m_loopback || m_perf_peers.empty(), "--loopback and --peer disagree; give one");
  need(m_perf_peers.empty() || m_bandwidth || m_latency, "--peer needs --bandwidth or --latency");
  need(m_rdma_port >= 1 && m_rdma_port <= 65535, "--rdma-port must be 1 to 65535");
  // Without --slurm-drain nothing is drained: a HealthCheckProgram line that names the node
  // but forgot the flag would pass every failed check by in silence.
  need(m_slurm_drain || (m_check->count("--slurm-node") == 0 && m_check->count("--scontrol") == 0),
       "--slurm-node and --scontrol need --slurm-drain");
}

int CheckCommands::check()
{
  if (m_json) {
    // --json is --format json: any other format asked for as well is a contradiction.
    if (m_check->count("--format") > 0 && m_format != "json") {
      throw Error(ErrorKind::usage, "--json and --format " + m_format + " disagree; give one");
    }
    m_format = "json";
  }
  if (m_format != "text" && m_format != "json" && m_format != "nhc" && m_format != "openmetrics") {
    throw Error(ErrorKind::usage, "--format must be text, json, nhc or openmetrics");
  }
  for (const auto* list : {&m_disable, &m_warn}) {
    for (const auto& id : *list) {
      if (!check::is_check_id_or_group(id)) {
        throw Error(ErrorKind::usage, "'" + id + "' is not a check id or group (see man ibsetup)");
      }
    }
  }
  if (!std::isfinite(m_timeout_s) || m_timeout_s <= 0 || m_timeout_s > 86400) {
    throw Error(ErrorKind::usage, "--timeout must be a number of seconds above 0, at most 86400");
  }
  // The same range as the profile's checks.peer_timeout_ms.
  if (m_peer_timeout_option->count() > 0 && (m_peer_timeout_ms < 1 || m_peer_timeout_ms > 600000)) {
    throw Error(ErrorKind::usage, "--peer-timeout-ms must be 1 to 600000");
  }
  validate_options();
  // A --textfile-dir that is not there is a write that fails: reported after the verdict, as
  // any failed write is. Refused before the check, it would leave a failed node undrained.
  std::string textfile_refused;
  struct stat dir {};
  if (!m_textfile_dir.empty() && stat(m_textfile_dir.c_str(), &dir) != 0) {
    textfile_refused = "--textfile-dir " + m_textfile_dir + ": " + std::strerror(errno);
  } else if (!m_textfile_dir.empty() && !S_ISDIR(dir.st_mode)) {
    textfile_refused = "--textfile-dir " + m_textfile_dir + ": not a directory";
  }
  check::CheckOptions o;
  o.profile_file = m_file;
  o.node = m_node;
  o.sysfs_root = m_sysfs_root;
  o.inventory_file = m_inventory;
  o.disable = m_disable;
  o.warn = m_warn;
  o.timeout_s = m_timeout_s;
  o.peer_timeout_ms = m_peer_timeout_ms;
  o.no_peers = m_no_peers;
  o.rdma_pingpong = m_rdma_pingpong;
  o.rdma_port = static_cast<uint16_t>(m_rdma_port);
  o.counters = m_counters;
  o.bandwidth = m_bandwidth;
  o.latency = m_latency;
  o.loopback = m_loopback;
  o.perf_peers = m_perf_peers;
  o.perf = m_perf;
  o.slurm = m_slurm_drain;
  o.slurm_node = m_slurm_node;
  o.scontrol = m_scontrol;

  const std::string node_name = m_node.empty() ? profile::default_node_name() : m_node;
  const std::string slurm_node = m_slurm_node.empty() ? node_name : m_slurm_node;
  // Armed before the profile is read: a profile on a hung file system, or one that is slow
  // to parse, must not outlive --timeout either.
  std::atomic<bool> loaded{false};
  // The metrics go to the textfile whatever --format prints; a failed write is reported once
  // Slurm has been told (the verdict matters more than the metrics). Both come before
  // standard output, which a reader that does not read can block for ever.
  std::string textfile_error;
  const auto started = std::chrono::steady_clock::now();
  // What a lost standard output leaves said: the metrics were written all the same.
  const std::string metrics_written =
      m_textfile_dir.empty()
          ? std::string()
          : "the metrics are in " +
                util::escape_text(m_textfile_dir + (m_textfile_dir.back() == '/' ? "" : "/") +
                                  check::k_textfile_name);
  // Whether the textfile was written; on the watchdog's thread or, once it is disarmed, on
  // this one.
  const auto write_metrics = [&](const check::CheckOutcome& outcome) {
    if (!textfile_refused.empty()) {
      textfile_error = textfile_refused;
    } else if (!m_textfile_dir.empty()) {
      try {
        write_textfile(m_textfile_dir, check::outcome_to_metrics(outcome));
        return true;
      } catch (const Error& e) {
        textfile_error = e.what();
      }
    }
    return false;
  };
  const auto print_report = [&](const check::CheckOutcome& outcome) {
    std::cout << (m_format == "openmetrics" ? check::outcome_to_metrics(outcome)
                                            : check::format_report(outcome.report, m_format))
              << std::flush;
  };
  Watchdog watchdog(m_timeout_s, [&] {
    check::CheckOutcome timed_out;
    timed_out.report = check::timeout_report(node_name, m_timeout_s, loaded);
    timed_out.timed_out = true;
    timed_out.duration_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    timed_out.finished_s =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    const bool written = write_metrics(timed_out);
    std::optional<check::SlurmOutcome> slurm;
    if (m_slurm_drain) {
      // A hung check is a node to take out of service, like a failed one.
      // The budget is spent: each scontrol run gets slurm_update's floor.
      slurm = check::slurm_update(timed_out.report, slurm_node, m_scontrol,
                                  std::chrono::steady_clock::now());
    }
    errno = 0;
    print_report(timed_out);
    if (slurm) {
      print_slurm(*slurm);
    }
    // The process ends here (exit_now), not through run()'s check of standard output.
    if (const int error = errno; !std::cout.good()) {
      print_error(lost_output_text(error, written ? metrics_written : std::string()));
    }
    if (!textfile_error.empty()) {
      std::cerr << "ibsetup: error: " << util::escape_text(textfile_error) << '\n';
    }
  });
  check::CheckHooks hooks;
  hooks.resolve = [this](const profile::Profile& p) { return resolve_node_arg(p, m_node); };
  hooks.loaded = [&] { loaded = true; };
  hooks.verdict = [&](const check::CheckOutcome& outcome) {
    // The verdict is in: from here on neither the writes nor Slurm may be cut short by the
    // watchdog (that would give a second, contradicting report).
    watchdog.disarm();
    if (write_metrics(outcome)) {
      note_work_done(metrics_written);
    }
  };
  const auto outcome = check::run_check(o, hooks);
  print_warnings(outcome.warnings, m_quiet);
  print_report(outcome);
  if (outcome.slurm) {
    print_slurm(*outcome.slurm);
    if (!outcome.slurm->error.empty()) {
      if (!textfile_error.empty()) {
        std::cerr << "ibsetup: error: " << util::escape_text(textfile_error) << '\n';
      }
      return exit_code(outcome.report.ok() ? ErrorKind::environment : ErrorKind::check_failed);
    }
  }
  if (!textfile_error.empty()) {
    if (outcome.report.ok()) {
      throw EnvironmentError(textfile_error);
    }
    // A failed node outranks a failed write: exit 5 keeps the node out of service (and is
    // the unit's SuccessExitStatus), so the write error is only reported.
    std::cerr << "ibsetup: error: " << util::escape_text(textfile_error) << '\n';
  }
  return outcome.report.ok() ? 0 : exit_code(ErrorKind::check_failed);
}

}  // namespace ibsetup::cli
