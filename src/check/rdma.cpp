// The RDMA checks of a node: rdma.device (probe/rdma_device.cpp), then rdma.route and
// rdma.pingpong for every peer address (probe/rdma_peers.cpp), then rdma.bandwidth and
// rdma.latency (probe/rdma_perf_checks.cpp).
#include "probe/rdma_checks.hpp"

#include <algorithm>
#include <chrono>

namespace ibsetup::check {

std::vector<Result> check_rdma(const profile::ResolvedNode& node, const RdmaOptions& options)
{
  const auto start = std::chrono::steady_clock::now();
  auto out = rdma::device_checks(node, options);
  auto peers = rdma::peer_checks(node, options);
  out.insert(out.end(), peers.begin(), peers.end());
  // The measurements get what the device and route checks left of their budget.
  RdmaOptions rest = options;
  if (rest.perf_budget_ms > 0) {
    rest.perf_budget_ms = std::max(
        1.0, rest.perf_budget_ms -
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  auto perf = rdma::perf_checks(node, rest);
  out.insert(out.end(), perf.begin(), perf.end());
  return out;
}

}  // namespace ibsetup::check
