// The check of one node as one operation: the budget of --timeout, the merge of the profile's
// settings with the caller's, which probes may run, and Slurm. Front ends only format.
#include <ibsetup/check.hpp>
#include <ibsetup/error.hpp>
#include <ibsetup/plan.hpp>
#include <ibsetup/rdma_check.hpp>
#include "check/local_ports.hpp"
#include "check/mpi.hpp"
#include "check/saved_inventory.hpp"
#include "check/slurm.hpp"
#include "common/json.hpp"
#include "common/strings.hpp"
#include "inventory/inspect_scope.hpp"
#include "os/hostname.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <utility>

namespace ibsetup::check {

namespace {

using Clock = std::chrono::steady_clock;

// A saved inventory is judged as the node being checked (--node, else this machine's name),
// whatever host it names: an inventory inspected from a captured tree names the machine that
// read the tree. When the two differ, the caller hears it, so that checking cn02's file as
// cn01 (or on cn01 without --node) does not pass or fail silently on the wrong machine's data.
void warn_other_host(const CheckOptions& options, const std::string& taken_on,
                     const std::string& node, std::vector<Diagnostic>& warnings)
{
  if (taken_on.empty() || os::short_name(taken_on) == os::short_name(node)) {
    return;
  }
  // The file's host is anything up to 16 MiB: quoted with its controls escaped (a quote in it
  // cannot end the name early), and cut after 64 bytes (HOST_NAME_MAX), between characters.
  const std::string shown = json_quote(util::excerpt(taken_on, 64));
  const std::string named_by =
      options.node.empty() ? ", this machine's name (--node chooses)" : " (--node)";
  warnings.push_back({Severity::warning,
                      options.inventory_file,
                      {},
                      "host",
                      "the inventory was taken on " + shown + "; it is judged as node " +
                          json_quote(node) + named_by});
}

// What every command observes of a node (inventory::inspect_node), a saved inventory, or
// what a test substitutes.
inventory::Host observe(const CheckOptions& options, const CheckHooks& hooks,
                        const profile::ResolvedNode& node, bool counters,
                        std::vector<Diagnostic>& warnings)
{
  if (!hooks.observe && options.inventory_file.empty()) {
    return inventory::inspect_node(node, options.sysfs_root, counters,
                                   detail::reads_pkey_tables(node));
  }
  inventory::Host host;
  if (hooks.observe) {
    inventory::Options o;
    o.sysfs_root = options.sysfs_root;
    o.counters = counters;
    o.netdev_names = plan::netdev_names(node);
    host = hooks.observe(node, o);
  } else {
    host = detail::read_saved(options.inventory_file);
    warn_other_host(options, host.host, node.host, warnings);
  }
  host.host = node.host;
  return host;
}

class Budget {
public:
  explicit Budget(double seconds) : m_start(Clock::now()), m_ms(seconds * 1000) {}
  double left_ms() const
  {
    return m_ms - std::chrono::duration<double, std::milli>(Clock::now() - m_start).count();
  }
  bool spent() const { return left_ms() <= 0; }
  double elapsed_s() const { return std::chrono::duration<double>(Clock::now() - m_start).count(); }

private:
  Clock::time_point m_start;
  double m_ms;
};

void append(std::vector<Result>& to, std::vector<Result> from)
{
  to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

// The ports the profile declares, named as check_ports names them.
std::vector<std::pair<std::string, int>> declared_ports(const profile::ResolvedNode& node,
                                                        const inventory::Host& host)
{
  std::vector<std::pair<std::string, int>> all;
  const auto add_port = [&all](const std::string& device, int port) {
    if (std::find(all.begin(), all.end(), std::make_pair(device, port)) == all.end()) {
      all.emplace_back(device, port);
    }
  };
  for (const auto& hca : node.hcas) {
    const inventory::Device* d = detail::find_device(host, hca);
    const std::string name = hca.device ? *hca.device : d ? d->name : std::string();
    if (name.empty()) {
      continue;  // an absent HCA known by PCI address alone has no device name to label
    }
    for (const auto& p : hca.ports) {
      add_port(name, p.port);
    }
  }
  for (const auto& i : node.interfaces) {
    if (!i.parent && i.device && i.port) {
      add_port(*i.device, *i.port);
    }
  }
  return all;
}

// The checks after the profile is loaded; false when the budget ran out between two steps.
bool judge(const CheckOptions& options, const CheckHooks& hooks, const profile::ResolvedNode& node,
           const Budget& budget, Report& report, std::optional<inventory::Host>& seen,
           std::vector<Diagnostic>& warnings)
{
  const bool counters = options.counters || !node.checks.counter_max.empty();
  const auto& host = seen.emplace(observe(options, hooks, node, counters, warnings));
  if (budget.spent()) {
    return false;
  }
  // Probes and the kernel's ABI files belong to the machine ibsetup runs on: they are judged
  // only when that machine is what is being checked.
  const bool saved = !options.inventory_file.empty();
  const bool live_host = !saved && inventory::is_live_root(options.sysfs_root);
  LocalOptions local;
  local.addresses_known = live_host;
  local.abi_known = !saved;
  report.checks = check_local(node, host, options.sysfs_root, local);

  Settings settings;
  settings.disabled = node.checks.disable;
  settings.disabled.insert(settings.disabled.end(), options.disable.begin(), options.disable.end());
  settings.warn_only = node.checks.warn;
  settings.warn_only.insert(settings.warn_only.end(), options.warn.begin(), options.warn.end());
  // Each probe gets its deadline, but never more than what is left of the budget (the RDMA
  // checks may take two deadlines with pingpong).
  if (!settings.disables("mpi")) {
    if (budget.spent()) {
      return false;
    }
    mpi::Options m;
    m.sysfs_root = options.sysfs_root;
    m.live = live_host;
    m.saved = saved;
    m.memlock_min_kib = node.checks.mpi_memlock_min_kib;
    m.register_mib = node.checks.mpi_register_mib;
    m.reg_mr = !settings.disables("mpi.reg_mr");
    append(report.checks, mpi::check_mpi(node, m));
  }
  const auto deadline = [&](int parts) {
    const int want =
        options.peer_timeout_ms > 0 ? options.peer_timeout_ms : node.checks.peer_timeout_ms;
    return static_cast<int>(
        std::max(1.0, std::min(static_cast<double>(want), (budget.left_ms() - 100) / parts)));
  };
  if (!options.no_peers && !node.peers.empty() && !settings.disables("ip.peer")) {
    if (budget.spent()) {
      return false;
    }
    if (live_host) {
      append(report.checks, check_ip_peers(node, deadline(1)));
    } else {
      report.checks.push_back({"ip.peer",
                               node.host,
                               Status::skip,
                               "",
                               "",
                               node.host + ": peers are probed only when checking this machine, " +
                                   "not a captured tree or a saved inventory",
                               {},
                               {}});
    }
  }
  // The RDMA checks open this host's devices: not for a captured tree or a saved inventory.
  if (!settings.disables("rdma") && live_host) {
    if (budget.spent()) {
      return false;
    }
    RdmaOptions rdma;
    rdma.pingpong = options.rdma_pingpong && !options.no_peers;
    rdma.port = options.rdma_port;
    rdma.deadline_ms = deadline(rdma.pingpong ? 2 : 1);
    rdma.sysfs_root = options.sysfs_root;
    rdma.bandwidth = options.bandwidth && !settings.disables("rdma.bandwidth");
    rdma.latency = options.latency && !settings.disables("rdma.latency");
    rdma.loopback = options.loopback;
    rdma.perf_peers = options.perf_peers;
    rdma.perf = options.perf;
    rdma.perf_budget_ms = std::max(1.0, budget.left_ms() - 100);
    profile::ResolvedNode target = node;
    if (options.no_peers) {
      target.peers.clear();
    }
    append(report.checks, check_rdma(target, rdma));
  }
  if (budget.spent()) {
    return false;
  }
  apply_settings(report.checks, settings);
  return true;
}

// What rdma.bandwidth and rdma.latency are asked to do, within what the responder serves.
void validate_perf(const CheckOptions& options)
{
  const auto& p = options.perf;
  const auto range = [](bool ok, const std::string& what) {
    if (!ok) {
      throw InputError(what);
    }
  };
  range(p.bw_size >= 1 && p.bw_size <= 8 << 20,
        "the bandwidth message size must be 1 to 8388608 bytes");
  range(std::isfinite(p.bw_duration_s) && p.bw_duration_s > 0 && p.bw_duration_s <= 30,
        "the bandwidth duration must be above 0 and at most 30 s");
  range(p.bw_qps >= 1 && p.bw_qps <= 8, "the bandwidth QP count must be 1 to 8");
  range(p.lat_size >= 1 && p.lat_size <= 65536,
        "the latency message size must be 1 to 65536 bytes");
  range(p.lat_iters >= 1 && p.lat_iters <= 1000000, "the latency iterations must be 1 to 1000000");
  range(!options.loopback || options.bandwidth || options.latency,
        "loopback measures bandwidth or latency: ask for one");
  range(!options.loopback || options.perf_peers.empty(),
        "loopback measures no peer: drop the peers");
  range(options.perf_peers.empty() || options.bandwidth || options.latency,
        "a peer to measure needs bandwidth or latency asked for");
  range(options.rdma_port != 0, "the responder port must be 1 to 65535");
}

// The caller's settings, refused as the profile's own would be.
void validate(const CheckOptions& options)
{
  for (const auto* list : {&options.disable, &options.warn}) {
    for (const auto& id : *list) {
      if (!is_check_id_or_group(id)) {
        throw InputError("'" + id + "' is not a check id or group");
      }
    }
  }
  if (!std::isfinite(options.timeout_s) || options.timeout_s <= 0 || options.timeout_s > 86400) {
    throw InputError("the check timeout must be above 0 and at most 86400 seconds");
  }
  if (options.peer_timeout_ms < 0 || options.peer_timeout_ms > 600000) {
    throw InputError("the peer deadline must be 1 to 600000 ms (0: the profile's)");
  }
  validate_perf(options);
}

}  // namespace

Report timeout_report(const std::string& host, double timeout_s, bool profile_loaded)
{
  Report r;
  r.host = host;
  std::ostringstream what;
  what << host << ": check did not finish within " << timeout_s << " s (--timeout)"
       << (profile_loaded ? "" : "; the profile was still being loaded");
  r.checks.push_back({"timeout",
                      host,
                      Status::fail,
                      "finished within the timeout",
                      profile_loaded ? "still running" : "still loading the profile",
                      what.str(),
                      {},
                      {}});
  return r;
}

std::string format_report(const Report& report, const std::string& format)
{
  if (format == "openmetrics") {
    CheckOutcome outcome;
    outcome.report = report;
    outcome.finished_s =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    return outcome_to_metrics(outcome);
  }
  return format == "json"  ? report_to_json(report)
         : format == "nhc" ? report_to_nhc(report)
                           : report_to_text(report);
}

CheckOutcome run_check(const CheckOptions& options, const CheckHooks& hooks)
{
  validate(options);
  const Budget budget(options.timeout_s);
  CheckOutcome out;
  const profile::Profile p = profile::load_profile(options.profile_file);
  const profile::ResolvedNode node =
      hooks.resolve ? hooks.resolve(p)
                    : profile::resolve_node(
                          p, options.node.empty() ? profile::default_node_name() : options.node);
  out.warnings = p.warnings;
  for (const auto& name : options.perf_peers) {
    if (std::none_of(node.peers.begin(), node.peers.end(),
                     [&](const profile::ResolvedPeer& peer) { return peer.host == name; })) {
      throw InputError("peer '" + name + "' is not one of " + node.host + "'s checks.peers");
    }
  }
  if (hooks.loaded) {
    hooks.loaded();
  }
  out.report.host = node.host;
  if (budget.spent() || !judge(options, hooks, node, budget, out.report, out.host, out.warnings)) {
    out.report = timeout_report(node.host, options.timeout_s, true);
    out.timed_out = true;
    out.host.reset();
  } else {
    out.declared_ports = declared_ports(node, *out.host);
  }
  out.duration_s = budget.elapsed_s();
  out.finished_s =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  if (hooks.verdict) {
    hooks.verdict(out);
  }
  if (options.slurm) {
    // scontrol's runs share what is left of the budget (slurm.hpp).
    const auto deadline =
        std::chrono::steady_clock::now() +
        std::chrono::milliseconds(static_cast<int64_t>(std::max(0.0, budget.left_ms())));
    out.slurm =
        slurm_update(out.report, options.slurm_node.empty() ? node.host : options.slurm_node,
                     options.scontrol, deadline);
  }
  return out;
}

}  // namespace ibsetup::check
