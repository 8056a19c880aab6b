// The profile and the hosts' inventories joined into the subnet manager's partitions (issue 16
// items 1, 2 and 4): which port of which host is a member of which partition, and everything
// that could not be resolved. Pure: no I/O.
#pragma once

#include "partitions/model.hpp"

#include <ibsetup/export.hpp>
#include <ibsetup/profile.hpp>

#include <optional>
#include <string>

namespace ibsetup::partitions {

// The partitions the profile implies: Default (0x7fff) first, then every pkey an interface
// uses or partitions.pkeys declares, by pkey. A child interface's port is its parent's
// declared device/port, else the inventory's binding of the parent netdev, else the host's
// only InfiniBand port; a port that cannot be found, a host without inventory, a GUID on two
// hosts and an inventory of a host the profile lacks all land in the Layout's lists. Each
// partition's mtu code is the largest its interfaces need (a warning when they differ),
// unless the profile sets it. Never throws for missing data.
IBSETUP_EXPORT Layout build_layout(const profile::Profile& profile, const Inventories& inventories);

// OpenSM's code of an IB MTU in bytes (256 -> 1 ... 4096 -> 5), or nullopt.
IBSETUP_EXPORT std::optional<int> ib_mtu_code(int bytes);

// The IBTA rate code of a rate in Gb/s (kernel enum ib_rate: 10 -> 3, 100 -> 16), or nullopt.
IBSETUP_EXPORT std::optional<int> rate_code(double gbps);

// The mtu code the IPoIB broadcast group needs for an interface: datagram MTU + 4 rounded up
// to an IB MTU; connected mode, an MTU above 4092 or no MTU (the largest allowed) need 4096.
IBSETUP_EXPORT int needed_mtu_code(std::optional<profile::Mode> mode, std::optional<int> mtu);

// "mlx5_0/1"
std::string port_name(const std::string& device, int port);

}  // namespace ibsetup::partitions
