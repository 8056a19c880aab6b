// The two halves of check_rdma(): the device checks (libibverbs) and the peer checks
// (librdmacm event loop).
#pragma once

#include "check/rdma_logic.hpp"

#include <ibsetup/rdma_check.hpp>

namespace ibsetup::check::rdma {

// rdma.device results.
std::vector<Result> device_checks(const profile::ResolvedNode& node, const RdmaOptions& options);

// rdma.route results, then rdma.pingpong results when options.pingpong.
std::vector<Result> peer_checks(const profile::ResolvedNode& node, const RdmaOptions& options);

}  // namespace ibsetup::check::rdma
