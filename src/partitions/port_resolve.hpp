// Which inventory port a profile's base interface stands for, in the order the partitions
// issue's item 2 gives: the declared device and port, else the port the inventory binds the
// netdev to, else the only InfiniBand port (of the declared device, if one is declared).
#pragma once

#include "partitions/model.hpp"

#include <ibsetup/profile.hpp>

#include <string>

namespace ibsetup::partitions {

// The port of base on a host with inventory inv, or nullptr with why set (no such port, an
// ambiguous choice, an Ethernet port, a port without GUID).
const InventoryPort* resolve_port(const InventoryHost& inv, const profile::ResolvedInterface& base,
                                  std::string& why);

}  // namespace ibsetup::partitions
