// The RDMA checks of a node: rdma.device (probe/rdma_device.cpp), then rdma.route and
// rdma.pingpong for every peer address (probe/rdma_peers.cpp).
#include "probe/rdma_checks.hpp"

namespace ibsetup::check {

std::vector<Result> check_rdma(const profile::ResolvedNode& node, const RdmaOptions& options)
{
  auto out = rdma::device_checks(node, options);
  auto peers = rdma::peer_checks(node, options);
  out.insert(out.end(), peers.begin(), peers.end());
  return out;
}

}  // namespace ibsetup::check
