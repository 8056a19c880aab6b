// The client side of rdma.bandwidth and rdma.latency: one session with a responder, from
// address resolution to disconnect, every wait bounded.
#pragma once

#include "probe/rdma_perf_logic.hpp"

#include <ibsetup/address.hpp>
#include <ibsetup/check.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ibsetup::check::rdma {

struct PerfTarget {
  IpAddress address;
  std::optional<IpAddress> source;
  uint16_t port = 0;
};

// What a session found out, measured or not.
struct Measurement {
  std::string error;       // empty: measured
  bool timed_out = false;  // error is a deadline that passed
  std::string device;      // the local HCA the connection went out of ("" before the route)
  int port = 0;
  std::optional<double> local_gbps;  // the ports' rates (sysfs `rate`)
  std::optional<double> peer_gbps;
  std::string numa;  // NumaPin::note()
  // bandwidth
  double gbps = 0;
  double seconds = 0;
  // latency, microseconds, half the round trip as ib_send_lat reports it
  double median_us = 0;
  double p99_us = 0;
};

// RDMA WRITE for perf.bw_duration_s over perf.bw_qps RC connections to a responder, each
// connection set up within deadline_ms, the writes drained within deadline_ms after the
// duration.
Measurement measure_bandwidth(const PerfTarget& target, const PerfOptions& perf, int deadline_ms,
                              const std::string& sysfs_root);
// perf.lat_iters send/recv round trips of perf.lat_size bytes; each must come back within
// deadline_ms, and all of them, with the connection, within budget_ms (when > 0).
Measurement measure_latency(const PerfTarget& target, const PerfOptions& perf, int deadline_ms,
                            const std::string& sysfs_root, double budget_ms = 0);

// A port's rate in Gb/s from sysfs (class/infiniband/DEV/ports/N/rate); nullopt if unreadable.
std::optional<double> port_rate_gbps(const std::string& sysfs_root, const std::string& device,
                                     int port);

}  // namespace ibsetup::check::rdma
