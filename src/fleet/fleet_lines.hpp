// Between fleet.cpp (what one line says) and fleet_read.cpp (cutting the input into lines).
#pragma once

#include <ibsetup/fleet.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace ibsetup::check {

// Adds one line of the input, of which line holds the first bytes (at most limits.max_line)
// and length is the whole length: a longer line is its host's invalid output, not parsed.
void add_line(FleetInput& input, std::string_view line, size_t length, const FleetLimits& limits);

// What clush or pdsh says of one host's run, in message (the text after its "clush: " or
// "pdsh@NODE: " prefix): not_finished when the run did not reach the host or did not end
// (a timeout, a signal, ssh's exit status 255); exit_status for another exit status.
enum class ToolNote { other, exit_status, not_finished };
ToolNote classify_tool_note(std::string_view message);

// How many of the lines naming no host (FleetInput::unattributed) are results all the same,
// begun with '{' (a bare line that is not strict JSON, too long, or names no valid host) or
// behind a prefix that is no host name ("2001:db8::2: {...}"), or are clush's or pdsh's
// failures of hosts it cannot name (an exit code, a timeout, a signal). Such a line is some
// host's invalid output or failure, so the fleet is not ok; a host's other bare lines (its
// stderr under `clush -N ... 2>&1`) are only listed.
size_t unnamed_results(const std::vector<std::string>& unattributed);

}  // namespace ibsetup::check
