// Fleet reports: many hosts' `check --json` lines, as `clush -w HOSTS ibsetup check --json`
// prints them, summed up for the whole cluster.
#pragma once
#pragma GCC visibility push(default)  // the public API: export.hpp says why

#include <ibsetup/check.hpp>

#include <istream>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ibsetup::check {

// What became of one host. invalid: it printed something, but no valid result line;
// no_answer: it printed nothing (at most clush or pdsh spoke about it, "command timeout").
enum class Outcome { passed, failed, invalid, no_answer };
const char* to_string(Outcome outcome);

// Everything the input said about one host.
struct HostRecord {
  std::string host;
  std::optional<Report> report;    // the last valid result line of the host
  bool reported_ok = true;         // the result's own "ok" field
  size_t results = 0;              // valid result lines seen; more than one is a duplicate
  std::vector<std::string> lines;  // the host's other lines, as read (clush's, pdsh's too)
  std::string problem;             // why its first non-result line was not a result
  bool printed = false;            // the host itself printed a line (not only clush about it)
  bool ssh_spoke = false;          // ssh said why it did not reach the host

  Outcome outcome() const;
};

// The input, by host, as named in the input. Lines that name no host (e.g. stderr of
// `clush -N`) are kept apart.
struct FleetInput {
  std::map<std::string, HostRecord> hosts;
  std::vector<std::string> unattributed;
  size_t kept_bytes = 0;  // about what the above take in memory
};

// Bounds on what a fleet report reads and keeps, so that memory stays bounded whatever the
// input; the defaults are documented in README ("Fleet report").
struct FleetLimits {
  size_t max_line = size_t{1} << 20;    // a longer line is its host's invalid output, unparsed
  size_t max_quote = 200;               // bytes of a line (or a problem) kept to quote it
  size_t max_kept = size_t{256} << 20;  // about this much kept in memory, else InputError
};

// Parses one `check --json` document. Throws InputError saying what is missing or malformed.
// Absent subject/expected/observed/message members read as "".
Report parse_check_json(const std::string& text, bool* reported_ok = nullptr);

// Adds one input line. Accepted forms: "HOST: {json}" (clush), "{json}" (clush -N: the
// result's "host" names it), "clush: HOST: message" (clush about HOST), "pdsh@NODE: HOST:
// message" and "sending signal N to HOST [COMMAND] pid P" (pdsh about HOST, named up to its
// first dot as pdsh names it elsewhere, unless it starts with a digit), "HOST: text" (a
// host's other output). A clush prefix names the host even when the result says otherwise,
// since it is the name the admin passed to -w. A later valid result of a host replaces an
// earlier one.
// Quoted lines and problems keep their first FleetLimits::max_quote bytes, and a check's id,
// subject, expected, observed and message their first 4,096, each marked " ... (N bytes)".
void add_fleet_line(FleetInput& input, const std::string& line);

// Reads the whole input with the default limits. Throws InputError when reading fails
// ("cannot read the input after line N") or more than max_kept would be kept, and
// EnvironmentError when memory runs out: never a partial input.
FleetInput read_fleet(std::istream& in);
FleetInput read_fleet(std::istream& in, const FleetLimits& limits);

// One failure (or warning) kind: a check id and its message with the host's own name replaced
// by "{host}"; numbers are kept, since they tell kinds apart (rate 100 vs 56, versions).
struct FailureGroup {
  std::string id;
  std::string message;
  std::vector<std::string> hosts;  // sorted
};

// Hosts per distinct value of one check's `observed` field.
struct ValueCount {
  std::string value;
  std::vector<std::string> hosts;  // sorted
};

struct FleetSummary {
  bool expectation = false;  // --expect or --profile given
  std::vector<std::string> expected;
  std::vector<std::string> passed;
  std::vector<std::string> failed;
  std::vector<std::string> invalid;
  std::vector<std::string> no_answer;   // expected and absent, or silent
  std::vector<std::string> unexpected;  // in the input but not expected
  std::vector<std::string> duplicated;  // more than one result line
  std::vector<FailureGroup> failures;   // most hosts first
  std::vector<FailureGroup> warnings;
  std::vector<ValueCount> firmware;  // hca.firmware observed values, most hosts first
  std::vector<ValueCount> rates;     // port.rate observed values
  std::vector<HostRecord> problems;  // the invalid and no_answer hosts, with their lines
  std::vector<std::string> unattributed;

  // Every expected host answered and passed, no other host failed or said nothing valid, and
  // no line naming no host is a result that is not valid (begun with '{').
  bool ok() const;
};

// Sums up the input. expected lists the hosts that should have answered; empty means the
// hosts present in the input. An input host given in full (cn001.site, as clush prints the
// names its groups give) is the expected host of its short name, and the other way round,
// unless another input or expected host has that short name; an IPv4 address is a name of its
// own; two full names of one short name are two hosts. With clush -N a failing host's result
// names it short (its own "host") and clush's lines about it in full: those lines are the
// host's (they join its lines) when one name is the other's short name, no other host of the
// short name printed or has such lines, the host did not pass, and at most one host of the
// short name is expected, one of the two. The summary names each host as expected.
FleetSummary summarize_fleet(const FleetInput& input, const std::vector<std::string>& expected);

// The summary for people: failure groups, problems, firmware and rates, and a last line
// "fleet: ok|FAILED: ..." with the totals.
std::string fleet_to_text(const FleetSummary& summary);

// The summary as one JSON document (schema in README, "Fleet report").
std::string fleet_to_json(const FleetSummary& summary);

// The summary as Prometheus text exposition (format 0.0.4; names in README, "Prometheus
// metrics"): host counts by outcome, by failing or warning check id, by firmware version and
// by port rate, and each host's verdict; every family a gauge, sorted and byte-stable.
// now_s stamps ibsetup_fleet_timestamp_seconds (the one-argument form: the current time).
std::string fleet_to_metrics(const FleetSummary& summary);
std::string fleet_to_metrics(const FleetSummary& summary, double now_s);

}  // namespace ibsetup::check
#pragma GCC visibility pop
