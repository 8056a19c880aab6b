// Between fleet.cpp (what one line says) and fleet_read.cpp (cutting the input into lines).
#pragma once

#include <ibsetup/fleet.hpp>

#include <string_view>

namespace ibsetup::check {

// Adds one line of the input, of which line holds the first bytes (at most limits.max_line)
// and length is the whole length: a longer line is its host's invalid output, not parsed.
void add_line(FleetInput& input, std::string_view line, size_t length, const FleetLimits& limits);

}  // namespace ibsetup::check
