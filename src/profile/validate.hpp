// Rules that relate profile values to each other: host groups, interface names, pkey
// children, MTU against mode, overrides, peers and addresses across the whole cluster.
#pragma once

#include <ibsetup/diagnostics.hpp>
#include <ibsetup/profile.hpp>

#include <set>
#include <string>
#include <tuple>

namespace ibsetup::profile::detail {

// Expands hostlists, derives child names and checks every cross-field rule. Fills
// profile.group_of_host and the groups' host lists.
void validate_profile(Profile& profile, const Limits& limits, Diagnostics& diags);

// Two marks, to report a problem made of two settings only once.
using MarkKey = std::tuple<int, int, int, int>;

// IPv6's minimum link MTU (RFC 8200): below it the kernel takes IPv6 off the interface.
constexpr int k_ipv6_min_mtu = 1280;

// An MTU above the datagram maximum where the merged mode is datagram, or below IPv6's minimum
// where the interface has an IPv6 pool (once per pair).
void check_mtu(const Profile& profile, const InterfaceSpec& spec, const InterfaceSpec* over,
               std::set<MarkKey>& reported, Diagnostics& diags);

// Walks every host: addresses unique across the cluster, no overlapping subnets on one host,
// and the MTU rule for every host override.
void check_addresses(const Profile& profile, Diagnostics& diags);

// Each group's `checks:` section: peers that are hosts of the file, check ids and groups that
// exist, and counter limits that name a kernel port counter (validate_checks.cpp).
void check_checks(const Profile& profile, Diagnostics& diags);

// One backend per node: the backends its interfaces ask for (through defaults, the group or a
// host override) agree, auto aside. Reported once per group, at the second backend.
void check_backends(const Profile& profile, Diagnostics& diags);

// The `partitions:` section against the rest: limited hostlists expanded (their hosts must be
// in a group), each partition once, and a warning for a partition no interface uses
// (validate_partitions.cpp).
void check_partitions(Profile& profile, const Limits& limits, Diagnostics& diags);

// The name of partition pkey (without the membership bit) when the profile gives none:
// "ib_8001" for 0x0001.
std::string generated_partition_name(uint16_t pkey);

// Why prefix cannot give host addresses (/0, or a loopback, multicast, link-local or
// unspecified range: for a pool any overlap, for an exact address containment), or "".
std::string unusable_range(const IpPrefix& prefix, bool pool);

// "path, line N" for use inside parentheses.
std::string where(const std::string& path, Mark m);

}  // namespace ibsetup::profile::detail
