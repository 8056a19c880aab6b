#pragma once
// The address side of the planner: which addresses go and come on one interface, and which
// IPv6 addresses a rollback must put back after the kernel flushes them.

#include <ibsetup/plan.hpp>

#include <string>
#include <vector>

namespace ibsetup::plan::detail {

bool is_link_local(const IpPrefix& p);

// The IPv6 addresses the kernel flushes with IPv6 itself (link down, MTU below 1280) and does
// not bring back on its own: all but the link-local one.
std::vector<IpPrefix> global_ipv6(const inventory::Netdev* n);

// The removals and additions that make n's addresses those d declares, in the order the kernel
// needs them.
std::vector<Action> address_actions(const profile::ResolvedInterface& d,
                                    const inventory::Netdev* n);

// The global IPv6 addresses ifname holds when it goes up, given the actions planned so far.
std::vector<IpPrefix> ipv6_before_up(const std::vector<Action>& planned, const std::string& ifname,
                                     const inventory::Netdev* n);

}  // namespace ibsetup::plan::detail
