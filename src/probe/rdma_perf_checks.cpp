// rdma.bandwidth and rdma.latency: which sessions to run (each peer, or the node's own ports
// with --loopback), one after the other so that no two measurements share a link, and the
// verdicts.
#include "os/verbs_device.hpp"
#include "probe/rdma_checks.hpp"
#include "probe/rdma_perf.hpp"
#include "probe/rdma_responder.hpp"

#include <algorithm>
#include <chrono>
#include <memory>

namespace ibsetup::check::rdma {

namespace {

// One session to run: from a local port (or interface) to a peer or to a local port.
struct Item {
  std::string local;  // "mlx5_0/1", or an interface name until the route names the device
  bool local_is_port = false;
  std::string remote;  // "cn064", or "mlx5_1/1" with loopback
  PerfTarget target;
  // The ports the profile names, for their rates when the session did not get that far (and,
  // with loopback, for the far end's rate).
  std::pair<std::string, int> local_port;
  std::pair<std::string, int> remote_port;
};

std::string port_name(const std::string& device, int port)
{
  return device + "/" + std::to_string(port);
}

std::string subject_of(const Item& item, const Measurement& m)
{
  const std::string local =
      item.local_is_port || m.device.empty() ? item.local : port_name(m.device, m.port);
  return local + " -> " + item.remote;
}

std::optional<IpAddress> address_of(const profile::ResolvedInterface& itf)
{
  if (itf.ipv4) {
    return itf.ipv4->address;
  }
  if (itf.ipv6) {
    return itf.ipv6->address;
  }
  return std::nullopt;
}

// The node's HCA ports that have an address in the profile (an interface bound to the port),
// each once, each measured against the next (a single port against itself).
std::vector<Item> loopback_items(const profile::ResolvedNode& node)
{
  struct Port {
    std::string name;
    std::pair<std::string, int> port;
    IpAddress address;
  };
  std::vector<Port> ports;
  for (const auto& itf : node.interfaces) {
    const auto address = address_of(itf);
    if (!itf.device || !address) {
      continue;
    }
    const int number = itf.port.value_or(1);
    const std::string name = port_name(*itf.device, number);
    if (std::none_of(ports.begin(), ports.end(), [&](const Port& p) { return p.name == name; })) {
      ports.push_back({name, {*itf.device, number}, *address});
    }
  }
  std::vector<Item> out;
  const size_t n = ports.size();
  const size_t pairs = n <= 2 ? std::min<size_t>(n, 1) : n;
  for (size_t i = 0; i < pairs; ++i) {
    const auto& from = ports[i];
    const auto& to = ports[n == 1 ? 0 : (i + 1) % n];
    Item item;
    item.local = from.name;
    item.local_is_port = true;
    item.remote = to.name;
    item.target.address = to.address;
    item.target.source = from.address;
    item.local_port = from.port;
    item.remote_port = to.port;
    out.push_back(item);
  }
  return out;
}

// The first address of each peer (or of each one named in options.perf_peers).
std::vector<Item> peer_items(const profile::ResolvedNode& node, const RdmaOptions& options)
{
  std::vector<Item> out;
  for (const auto& t : peer_targets(node, nullptr)) {
    if (!options.perf_peers.empty() &&
        std::find(options.perf_peers.begin(), options.perf_peers.end(), t.host) ==
            options.perf_peers.end()) {
      continue;
    }
    if (std::any_of(out.begin(), out.end(), [&](const Item& i) { return i.remote == t.host; })) {
      continue;
    }
    Item item;
    item.local = t.interface;
    for (const auto& itf : node.interfaces) {
      if (itf.name == t.interface && itf.device) {
        item.local = port_name(*itf.device, itf.port.value_or(1));
        item.local_is_port = true;
        item.local_port = {*itf.device, itf.port.value_or(1)};
      }
    }
    item.remote = t.host;
    item.target.address = t.address;
    item.target.source = t.source;
    item.target.port = options.port;
    out.push_back(item);
  }
  return out;
}

std::string plural(long n, const char* one, const char* many)
{
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

Result bandwidth_result(const profile::ResolvedNode& node, const RdmaOptions& options,
                        const Item& item, const Measurement& m)
{
  Result r;
  r.id = "rdma.bandwidth";
  r.subject = subject_of(item, m);
  const auto local = m.local_gbps ? m.local_gbps
                                  : port_rate_gbps(options.sysfs_root, item.local_port.first,
                                                   item.local_port.second);
  // Loopback: the far end is one of this node's ports too.
  const auto peer =
      m.peer_gbps || !options.loopback
          ? m.peer_gbps
          : port_rate_gbps(options.sysfs_root, item.remote_port.first, item.remote_port.second);
  const Threshold t = bandwidth_threshold(node.checks, local, peer);
  r.expected = t.expected;
  if (!m.error.empty()) {
    r.status = Status::fail;
    r.observed = m.error;
    r.message = r.subject + ": bandwidth not measured: " + m.error;
    return r;
  }
  r.value = m.gbps;
  r.unit = "Gb/s";
  r.observed = format_number(m.gbps) + " Gb/s (RDMA WRITE, " +
               std::to_string(options.perf.bw_size) + "-byte messages, " +
               plural(options.perf.bw_qps, "QP", "QPs") + ", " + format_number(m.seconds) + " s; " +
               m.numa + ")";
  const bool ok = t.min_gbps ? m.gbps >= *t.min_gbps : m.gbps > 0;
  r.status = ok ? Status::pass : Status::fail;
  r.message = r.subject + ": " + format_number(m.gbps) + " Gb/s, expected " + t.brief;
  return r;
}

Result latency_result(const profile::ResolvedNode& node, const RdmaOptions& options,
                      const Item& item, const Measurement& m)
{
  Result r;
  r.id = "rdma.latency";
  r.subject = subject_of(item, m);
  const auto& max = node.checks.latency_max_us;
  r.expected = max ? "median at most " + format_number(*max) + " us"
                   : "a measured latency (no checks.latency.max_us)";
  if (!m.error.empty()) {
    r.status = Status::fail;
    r.observed = m.error;
    r.message = r.subject + ": latency not measured: " + m.error;
    return r;
  }
  r.value = m.median_us;
  r.unit = "us";
  r.observed =
      "median " + format_number(m.median_us) + " us, p99 " + format_number(m.p99_us) + " us";
  const bool ok = !max || m.median_us <= *max;
  r.status = ok ? Status::pass : Status::fail;
  r.message = r.subject + ": " + r.observed + " (" + std::to_string(options.perf.lat_size) +
              "-byte send/recv, " + plural(options.perf.lat_iters, "round trip", "round trips") +
              ", half of each as ib_send_lat reports; " + m.numa + ")" +
              (ok ? "" : ", expected " + r.expected);
  return r;
}

// What the latency round trips leave of the budget: the session's end, the loopback
// responder's, and the report, so that a slow peer fails its own result only.
constexpr double k_latency_margin_ms = 500;

// Roughly how long a measurement may take, to refuse one that cannot finish in the budget.
double needed_ms(bool bandwidth, const RdmaOptions& options)
{
  return bandwidth ? options.perf.bw_duration_s * 1000 + 2.0 * options.deadline_ms
                   : 2.0 * options.deadline_ms + k_latency_margin_ms;
}

}  // namespace

std::vector<Result> perf_checks(const profile::ResolvedNode& node, const RdmaOptions& options)
{
  std::vector<Result> out;
  if (!options.bandwidth && !options.latency) {
    return out;
  }
  const auto items = options.loopback ? loopback_items(node) : peer_items(node, options);
  std::vector<bool> kinds;
  if (options.bandwidth) {
    kinds.push_back(true);
  }
  if (options.latency) {
    kinds.push_back(false);
  }
  const auto start = Clock::now();
  for (const bool bandwidth : kinds) {
    const char* id = bandwidth ? "rdma.bandwidth" : "rdma.latency";
    if (items.empty()) {
      Result r;
      r.id = id;
      r.subject = node.host;
      r.status = options.loopback ? Status::fail : Status::skip;
      r.expected = options.loopback ? "an HCA port with an address (interfaces[]: device, port, "
                                      "ipv4)"
                                    : "a peer with an address";
      r.observed = "nothing to measure";
      r.message =
          node.host + (options.loopback ? ": --loopback needs an interface bound to an HCA port "
                                          "(device:, port:) with an address in the profile"
                                        : ": no peer with an address to measure against");
      out.push_back(r);
      continue;
    }
    for (const auto& item : items) {
      Measurement m;
      const double spent = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
      // What the latency measurement may take in all, counted from when it starts (after the
      // loopback responder's start): 0 for no bound.
      const auto latency_budget = [&] {
        if (options.perf_budget_ms <= 0) {
          return 0.0;
        }
        const double now = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        return std::max(1.0, options.perf_budget_ms - now - k_latency_margin_ms);
      };
      if (!os::device_dir_present(options.dev_dir)) {
        m.error = "no " + options.dev_dir + " on this host (rdma_ucm not loaded?)";
      } else if (options.perf_budget_ms > 0 &&
                 spent + needed_ms(bandwidth, options) > options.perf_budget_ms) {
        m.error = "not started: the check's --timeout leaves too little time (raise it)";
      } else if (options.loopback) {
        try {
          ResponderOptions ro;
          ro.bind = item.target.address.str();
          ro.port = 0;
          ro.sysfs_root = options.sysfs_root;
          BackgroundResponder responder(ro);
          Item local = item;
          local.target.port = responder.port();
          m = bandwidth ? measure_bandwidth(local.target, options.perf, options.deadline_ms,
                                            options.sysfs_root)
                        : measure_latency(local.target, options.perf, options.deadline_ms,
                                          options.sysfs_root, latency_budget());
        } catch (const std::exception& e) {
          m.error = std::string("cannot start the loopback responder: ") + e.what();
        }
      } else {
        m = bandwidth ? measure_bandwidth(item.target, options.perf, options.deadline_ms,
                                          options.sysfs_root)
                      : measure_latency(item.target, options.perf, options.deadline_ms,
                                        options.sysfs_root, latency_budget());
      }
      out.push_back(bandwidth ? bandwidth_result(node, options, item, m)
                              : latency_result(node, options, item, m));
    }
  }
  return out;
}

}  // namespace ibsetup::check::rdma
