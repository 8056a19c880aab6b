// The two halves of check_rdma(): the device checks (libibverbs) and the peer checks
// (librdmacm event loop).
#pragma once

#include "probe/rdma_logic.hpp"

#include <ibsetup/rdma_check.hpp>

struct rdma_event_channel;

namespace ibsetup::os {
class VerbsDevices;
}

namespace ibsetup::check::rdma {

// rdma.device results, through libibverbs on this host.
std::vector<Result> device_checks(const profile::ResolvedNode& node, const RdmaOptions& options);
// The same through the given device access (tests give their own).
std::vector<Result> device_checks(const profile::ResolvedNode& node, const RdmaOptions& options,
                                  os::VerbsDevices& devices);

// Resolves every target at once in one event loop on channel (and, with options.pingpong,
// exchanges a message with each), each within options.deadline_ms. routes[i] and pings[i] are
// target i's results with id, subject and expected set; the loop fills in the rest.
void resolve_all(const RdmaOptions& options, rdma_event_channel* channel,
                 const std::vector<Target>& targets, std::vector<Result>& routes,
                 std::vector<Result>& pings);

// rdma.bandwidth and rdma.latency results when options asks for them (rdma_perf_checks.cpp).
std::vector<Result> perf_checks(const profile::ResolvedNode& node, const RdmaOptions& options);

// rdma.route results, then rdma.pingpong results when options.pingpong.
std::vector<Result> peer_checks(const profile::ResolvedNode& node, const RdmaOptions& options);

}  // namespace ibsetup::check::rdma
