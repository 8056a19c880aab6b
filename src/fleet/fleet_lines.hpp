// Between fleet.cpp (what one line says), fleet_prefixes.cpp (the tools' prefixes on it) and
// fleet_read.cpp (cutting the input into lines).
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

// The line prefixes of the tools that run check on many hosts (fleet_prefixes.cpp).

// Words that end up before ": " on a line but are programs, not hosts: with `clush -N` a
// host's stderr ("ibsetup: error: ...", "ssh: connect to host ...") comes without a prefix.
bool is_program_word(const std::string& word);

// The host named by "HOST: rest", or "" when the line does not start that way. "HOST:" alone
// is clush's prefix for an empty line of the host (trimmed of its trailing space).
std::string prefix_host(std::string_view line, std::string_view& rest);

// The hosts of "HOSTLIST: rest" when HOSTLIST is a bracketed hostlist of at most 65,536 valid
// names, or a list with the count clush -L and -b add ("cn[01-02] (2)");
// rest is what follows. Empty for anything else.
std::vector<std::string> folded_hosts(std::string_view line, std::string_view& rest);

// pdsh's prefix for what it says about a host, "pdsh@NODE: " (NODE: where pdsh runs); rest is
// what follows it.
bool pdsh_prefix(std::string_view line, std::string_view& rest);

// The host pdsh names when its timeout ends a command: "sending signal 15 to cn007.site
// [COMMAND] pid 2005" (COMMAND: ssh, or the command of its exec module), its one line without
// its prefix, as pdsh names the host elsewhere (cn007); "" for any other line.
std::string pdsh_signalled_host(std::string_view line);

// What ssh, not the command on the host, said: the host was not reached (clush then reports
// exit code 255). ssh prefixes most of its errors with "ssh:", not these.
bool is_ssh_diagnostic(std::string_view text);

// How many of the lines naming no host (FleetInput::unattributed) are results all the same,
// begun with '{' (a bare line that is not strict JSON, too long, or names no valid host) or
// behind a prefix that is no host name ("2001:db8::2: {...}"), or are clush's or pdsh's
// failures of hosts it cannot name (an exit code, a timeout, a signal). Such a line is some
// host's invalid output or failure, so the fleet is not ok; a host's other bare lines (its
// stderr under `clush -N ... 2>&1`) are only listed.
size_t unnamed_results(const std::vector<std::string>& unattributed);

}  // namespace ibsetup::check
