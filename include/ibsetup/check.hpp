// Pre-flight checks: the node's fabric against the profile's expectations, each verdict with
// the expected and the observed value.
#pragma once
#pragma GCC visibility push(default)  // the public API: export.hpp says why

#include <ibsetup/diagnostics.hpp>
#include <ibsetup/inventory.hpp>
#include <ibsetup/profile.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ibsetup::check {

enum class Status { pass, warn, fail, skip };
const char* to_string(Status status);

// One verdict. id names the check ("port.rate"), subject what it looked at ("mlx5_0/1",
// "ib0", "cn064"); message is one line for people:
// "mlx5_0/1: rate 100 Gb/s (4X EDR), expected at least 200".
struct Result {
  std::string id;
  std::string subject;
  Status status = Status::pass;
  std::string expected;
  std::string observed;
  std::string message;
  // The number behind observed, when the check measured one, for metrics and scripts: a rate
  // in Gb/s, a latency in microseconds, a state as its number. unit names it ("Gb/s", "us",
  // "" for a plain count or code). In --json only when set.
  std::optional<double> value;
  std::string unit;
};

struct Report {
  std::string host;
  std::vector<Result> checks;
  bool ok() const;                      // no result failed
  const Result* first_failure() const;  // nullptr when ok()
};

// Every check id, in the order checks run. A profile or --disable may name an id or the part
// before its dot ("port" disables every port.* check).
const std::vector<std::string>& check_ids();
bool is_check_id_or_group(const std::string& name);

struct Settings {
  std::vector<std::string> disabled;   // ids or groups; their results become skip
  std::vector<std::string> warn_only;  // ids or groups whose failures are warnings
  // True when id ("port.rate") or its group ("port") is disabled.
  bool disables(const std::string& id) const;
};

// Applies settings to results: disabled ones become skip ("disabled"), warn_only failures
// become warn.
void apply_settings(std::vector<Result>& results, const Settings& settings);

struct LocalOptions {
  // False for a captured tree or a saved inventory: addresses are judged only on this machine.
  bool addresses_known = true;
  // False for a saved inventory: it holds no copy of the kernel's ABI files (hca.abi).
  bool abi_known = true;
};

// The HCA, PCIe, port and IPoIB checks, from the inventory alone (no network traffic).
// sysfs_root is where the kernel's userspace interfaces (infiniband_mad, infiniband_verbs)
// are looked up. Port counters are judged only when the inventory read them.
std::vector<Result> check_local(const profile::ResolvedNode& node, const inventory::Host& host,
                                const std::string& sysfs_root, const LocalOptions& options);

// ICMP echo to every peer address (node.peers) out of the interface it belongs to, all in
// parallel; each probe fails when no reply arrives within deadline_ms.
std::vector<Result> check_ip_peers(const profile::ResolvedNode& node, int deadline_ms);

// {"host", "ok", "checks": [{"id", "subject", "status", "expected", "observed", "message",
// and "value" and "unit" when the check measured a number}]}
std::string report_to_json(const Report& report);
// An aligned table for people, failures first marked.
std::string report_to_text(const Report& report);
// NHC-style lines, one per failure ("ERROR:  ibsetup:  Health check failed:  <message>") and
// per warning ("WARNING:  ibsetup:  <message>").
std::string report_to_nhc(const Report& report);

// The TCP-style port space port (RDMA_PS_TCP) the responder listens on unless told otherwise.
// 18515 is the default of the perftest and ibv_*_pingpong tools, which admins already open in
// their firewalls and know as "the RDMA test port".
constexpr uint16_t k_responder_port = 18515;

// How rdma.bandwidth and rdma.latency measure (issue 17). The defaults are perftest's
// (ib_write_bw -s 65536, ib_send_lat -s 2 -n 1000) except the duration (-D 2).
struct PerfOptions {
  int bw_size = 65536;       // bytes per RDMA WRITE, 1 .. 8 MiB
  double bw_duration_s = 2;  // above 0, at most 30
  int bw_qps = 1;            // RC connections written at once, 1 .. 8
  int lat_size = 2;          // bytes per send, 1 .. 65536
  int lat_iters = 1000;      // round trips, 1 .. 1000000
};

// What a Slurm update did (slurm_update in slurm.hpp).
struct SlurmOutcome {
  std::string action;  // "drained", "resumed", "left alone (...)"
  std::string error;   // scontrol could not be run or failed; empty otherwise
};

// A whole check of one node: what to read, what to judge, and whether to tell Slurm.
struct CheckOptions {
  std::string profile_file;          // the cluster profile (YAML)
  std::string node;                  // empty: this host's short name
  std::string sysfs_root = "/sys";   // another root: a captured tree (no probes, no addresses)
  std::string inventory_file;        // a saved `ibsetup inspect --json` to check instead
  std::vector<std::string> disable;  // ids or groups, added to the profile's checks.disable
  std::vector<std::string> warn;     // ids or groups, added to the profile's checks.warn
  // The whole run, loading the profile included; a run past it fails with the id "timeout".
  double timeout_s = 10;
  int peer_timeout_ms = 0;  // each probe's deadline; 0: the profile's checks.peer_timeout_ms
  bool no_peers = false;    // neither ICMP nor RDMA probes to peers
  bool rdma_pingpong = false;
  uint16_t rdma_port = k_responder_port;
  bool counters = false;  // read port error counters even when the profile sets no threshold
  // Slurm, an optional effect: on failure drain slurm_node, on success resume it when
  // ibsetup drained it. scontrol is a name looked up in the clean PATH, or a path.
  bool slurm = false;
  std::string slurm_node;  // empty: the checked node's name
  std::string scontrol = "scontrol";
  // Issue 17 (appended, soname 1): rdma.bandwidth and rdma.latency to the peers (or only to
  // perf_peers, each of which must be one of checks.peers), or with loopback between this
  // node's own HCA ports and no peer. Each measurement must fit in what is left of timeout_s.
  bool bandwidth = false;
  bool latency = false;
  bool loopback = false;
  std::vector<std::string> perf_peers;
  PerfOptions perf;
};

// The verdict and what came with it.
struct CheckOutcome {
  Report report;
  std::vector<Diagnostic> warnings;  // the profile's, then --inventory's (another host)
  bool timed_out = false;            // report is the single "timeout" failure
  std::optional<SlurmOutcome> slurm;
  // Appended for the metrics (#18; the soname moved to 1 for it): what outcome_to_metrics
  // reports beyond the verdict. host is the inventory the checks judged (ports, PCIe,
  // counters), empty when the run timed out before or while reading it. Its ports' P_Key
  // tables are read only for a node that declares pkey children (port.pkeys), else empty.
  std::optional<inventory::Host> host;
  double finished_s = 0;  // wall clock (seconds since the epoch) when the verdict was in
  double duration_s = 0;  // how long the run took until then (monotonic clock)
  // The HCA ports the profile declares for the node (hcas[].ports, interfaces' device and
  // port), as (device, port): outcome_to_metrics gives those missing from host their series at
  // 0, so that a port or HCA that vanished does not vanish from dashboards. Empty on timeout.
  std::vector<std::pair<std::string, int>> declared_ports;
};

// Where run_check can be watched or given another host. Every member may be empty.
struct CheckHooks {
  // Picks the node in the loaded profile; default profile::resolve_node(options.node, or
  // this host's short name). A front end can give better messages for a name it was given.
  std::function<profile::ResolvedNode(const profile::Profile&)> resolve;
  // Reads the host as inventory::inspect_host(options) would; the default does that or reads
  // options.inventory_file. Tests put a fixture (or a slow read) here.
  std::function<inventory::Host(const profile::ResolvedNode&, const inventory::Options&)> observe;
  // Called once the profile is loaded and the node resolved.
  std::function<void()> loaded;
  // Called with the verdict (report and warnings) before the Slurm effect: from here on the
  // run is not cut short, so a front end's own watchdog disarms and prints here.
  std::function<void(const CheckOutcome&)> verdict;
};

// Loads the profile, reads the host, runs the local checks, then (only when the host read is
// this machine's own /sys) the ICMP and RDMA probes to peers, each within what is left of
// options.timeout_s; applies the profile's and the options' disable and warn lists; then
// updates Slurm when asked. A deadline that passes between these steps makes the report the
// single failure timeout_report describes (a step that hangs needs the caller's watchdog).
// Throws InputError for a bad profile or node or an option out of range (an unknown check id,
// a timeout not above 0 or past 86400 s, a peer deadline past 600000 ms), EnvironmentError when the
// host or the saved inventory cannot be read; what Slurm answers is in the outcome, never thrown.
CheckOutcome run_check(const CheckOptions& options, const CheckHooks& hooks = {});

// The report of a run that overstayed timeout_s: one failed "timeout" check for host, saying
// whether the profile was still being loaded.
Report timeout_report(const std::string& host, double timeout_s, bool profile_loaded);

// The report in a format: "text", "json", "nhc" or "openmetrics" (outcome_to_metrics of an
// outcome holding only the report, stamped now).
std::string format_report(const Report& report, const std::string& format);

// The outcome as Prometheus text exposition (format 0.0.4, what node_exporter's textfile
// collector and `promtool check metrics` read): ibsetup_check_ok, _failed and _warning per
// result, timestamp and duration, and gauges of what was read (ports, PCIe, counters, HCA
// info) and measured (results with a value). Every family is a gauge with HELP and TYPE; output
// is sorted and byte-stable. The names are in README ("Prometheus metrics").
std::string outcome_to_metrics(const CheckOutcome& outcome);

// The file write_textfile replaces in its directory.
constexpr const char* k_textfile_name = "ibsetup.prom";
// The temporary file write_textfile writes first: "DIR/.ibsetup.prom.<pid>.tmp", one name per
// process and not *.prom, which the collector reads. Another process's is left alone unless
// that process was killed: see write_textfile.
std::string textfile_temp_path(const std::string& dir);
// Replaces DIR/ibsetup.prom with text atomically: the temporary file (O_EXCL, mode 0644 whatever
// the umask), fsync, rename, fsync of DIR. Throws EnvironmentError naming the file and the
// reason (an empty dir too); the temporary file is gone again on every error. After the rename
// it removes the temporary files that killed writers left (SIGKILL): plain files of that name
// whose process no longer exists and that were last written at least ten minutes ago.
void write_textfile(const std::string& dir, const std::string& text);

}  // namespace ibsetup::check
#pragma GCC visibility pop
