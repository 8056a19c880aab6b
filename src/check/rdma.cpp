// The RDMA checks of a node: rdma.device (probe/rdma_device.cpp), then rdma.route and
// rdma.pingpong for every peer address (probe/rdma_peers.cpp), then rdma.bandwidth and
// rdma.latency (probe/rdma_perf_checks.cpp).
#include "probe/rdma_checks.hpp"

namespace ibsetup::check {

std::vector<Result> check_rdma(const profile::ResolvedNode& node, const RdmaOptions& options)
{
  auto out = rdma::device_checks(node, options);
  auto peers = rdma::peer_checks(node, options);
  out.insert(out.end(), peers.begin(), peers.end());
  auto perf = rdma::perf_checks(node, options);
  out.insert(out.end(), perf.begin(), perf.end());
  return out;
}

}  // namespace ibsetup::check
