// RDMA connectivity and performance checks (rdma.device, rdma.route, rdma.pingpong,
// rdma.bandwidth, rdma.latency) and the responder they talk to on the peer. Through libibverbs and
// librdmacm; no traffic unless asked for.
#pragma once
#pragma GCC visibility push(default)  // the public API: export.hpp says why

#include <ibsetup/check.hpp>
#include <ibsetup/profile.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ibsetup::check {

struct RdmaOptions {
  // Budget for each peer address: address and route resolution must finish within it. With
  // pingpong, the connection and one echo get the same budget again, counted from the moment
  // the route resolved. All peers run at the same time, so the whole check takes at most
  // deadline_ms (2 * deadline_ms with pingpong), plus the device checks.
  int deadline_ms = 1000;
  bool pingpong = false;  // also an RC send/recv round trip with `ibsetup responder` on each peer
  uint16_t port = k_responder_port;
  std::string sysfs_root = "/sys";          // to find the device of an HCA given by PCI address
  std::string dev_dir = "/dev/infiniband";  // absent: every RDMA check is skipped
  // Issue 17 (appended, soname 1): rdma.bandwidth and rdma.latency after the route checks, to
  // the peers (perf_peers: only those hosts), or with loopback from each declared HCA port to
  // itself (two or more ports: each to the next) through an in-process responder. Connection
  // and each round trip are bounded by deadline_ms; the writes by bw_duration_s + deadline_ms.
  // perf_budget_ms > 0: a measurement that would not finish within it is not started.
  bool bandwidth = false;
  bool latency = false;
  bool loopback = false;
  std::vector<std::string> perf_peers;
  PerfOptions perf;
  double perf_budget_ms = 0;
};

// For each HCA port the node declares (hcas[].ports and interfaces' device/port): rdma.device,
// the device opens and the port queries through libibverbs. For each peer address: rdma.route,
// librdmacm resolves the address (ARP/ND over the IPoIB or RoCE netdev) and the route (an SA
// path query on InfiniBand) within the deadline; with pingpong, rdma.pingpong; with bandwidth
// or latency, rdma.bandwidth and rdma.latency (one session after the other: to each peer's
// first address, or between the node's own ports with loopback). Never throws for what it
// finds on the host or the fabric: every problem is a result.
std::vector<Result> check_rdma(const profile::ResolvedNode& node, const RdmaOptions& options);

struct ResponderOptions {
  std::string bind;  // an address of this host; empty: every address
  uint16_t port = k_responder_port;
  int count = 0;        // stop after this many echoed exchanges; 0: never
  int timeout_s = 0;    // stop after this many seconds; 0: never
  int idle_ms = 10000;  // drop a connection that sends nothing for this long
  // Issue 17 (appended, soname 1): connections served at once (more are rejected), and the
  // longest any one may last, so that no client can hold the responder's memory or time.
  int max_sessions = 8;
  int max_session_s = 60;
  // Where the port's rate (sent back to a bandwidth or latency client) is read; appended in
  // soname 1 like the two above. Another root: a captured or test tree.
  std::string sysfs_root = "/sys";
};

// Accepts RC connections from rdma.pingpong and echoes each message back; serves
// rdma.bandwidth sessions (a buffer of the requested size the client RDMA WRITEs into; the
// responder sends nothing) and rdma.latency sessions (each message echoed, never more than
// arrived). Request sizes are capped and buffers freed on disconnect. log receives one line
// per event (listening, echoed, dropped). Returns the number of exchanges served when count is
// reached or timeout_s passed. Throws EnvironmentError when it cannot listen (no RDMA device, no
// such address, port in use).
int run_responder(const ResponderOptions& options,
                  const std::function<void(const std::string&)>& log);

}  // namespace ibsetup::check
#pragma GCC visibility pop
