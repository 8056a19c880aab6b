// Fleet reports: which host each input host is, and the summary grouped by check and value.
#include "fleet/fleet_lines.hpp"
#include "os/hostname.hpp"

#include <ibsetup/fleet.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ibsetup::check {

namespace {

// A name as the profile, Slurm and --expect give it: clush prints the names its groups give,
// often in full (cn001.site). An IPv4 address (pdsh -w 10.1.0.[1-64]) is a name of its own.
std::string counted_name(const std::string& host)
{
  in_addr address{};
  return inet_pton(AF_INET, host.c_str(), &address) == 1 ? host : os::short_name(host);
}

bool is_word_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

// The message with whole-word mentions of the host (full or short name) as "{host}", so that
// "cn003: no route to cn064" and "cn004: no route to cn064" are one kind. One pass that copies
// as it goes: replacing in place moved the rest of the message at every mention (ten hosts'
// 1 MiB messages of their own names took 41 s), and the short name was then searched for in
// the "{host}" put in for the full one (host.site's "host.site" became "{{host}}").
std::string mask_host(const std::string& message, const std::string& host)
{
  std::vector<std::string> names = {host};
  if (const auto name = counted_name(host); !name.empty() && name != host) {
    names.push_back(name);  // not the first number of an IPv4 address
  }
  std::string out;
  out.reserve(message.size());
  size_t i = 0;
  while (i < message.size()) {
    size_t end = 0;
    if (i == 0 || !is_word_char(message[i - 1])) {
      for (const auto& name : names) {  // the full name first: it is the longer
        if (!name.empty() && message.compare(i, name.size(), name) == 0 &&
            (i + name.size() == message.size() || !is_word_char(message[i + name.size()]))) {
          end = i + name.size();
          break;
        }
      }
    }
    if (end != 0) {
      out += "{host}";
      i = end;
    } else {
      out += message[i++];
    }
  }
  return out;
}

using GroupMap = std::map<std::pair<std::string, std::string>, std::set<std::string>>;
using ValueMap = std::map<std::string, std::set<std::string>>;

std::vector<FailureGroup> to_groups(const GroupMap& map)
{
  std::vector<FailureGroup> out;
  for (const auto& [key, hosts] : map) {
    out.push_back({key.first, key.second, {hosts.begin(), hosts.end()}});
  }
  std::stable_sort(out.begin(), out.end(), [](const FailureGroup& a, const FailureGroup& b) {
    return a.hosts.size() > b.hosts.size();
  });
  return out;
}

std::vector<ValueCount> to_counts(const ValueMap& map)
{
  std::vector<ValueCount> out;
  for (const auto& [value, hosts] : map) {
    out.push_back({value, {hosts.begin(), hosts.end()}});
  }
  std::stable_sort(out.begin(), out.end(), [](const ValueCount& a, const ValueCount& b) {
    return a.hosts.size() > b.hosts.size();
  });
  return out;
}

}  // namespace

size_t unnamed_results(const std::vector<std::string>& unattributed)
{
  return static_cast<size_t>(
      std::count_if(unattributed.begin(), unattributed.end(), [](const std::string& line) {
        const auto start = line.find_first_not_of(" \t");
        if (start == std::string::npos) {
          return false;
        }
        const auto colon = line.find(": ", start);
        // clush's and pdsh's own notes (pdsh's "skipping insecure module") are only listed.
        const bool tool =
            line.compare(start, 7, "clush: ") == 0 || line.compare(start, 5, "pdsh@") == 0;
        const bool failure =
            colon != std::string::npos &&
            classify_tool_note(std::string_view(line).substr(colon + 2)) != ToolNote::other;
        return line[start] == '{' ||
               (colon != std::string::npos && line.compare(colon + 2, 1, "{") == 0) ||
               (tool && failure);
      }));
}

bool FleetSummary::ok() const
{
  return !expected.empty() && failed.empty() && invalid.empty() && no_answer.empty() &&
         unnamed_results(unattributed) == 0;
}

namespace {

// Only clush spoke about the host ("clush: cn01.site: exited with exit code 5").
bool only_clush_spoke(const HostRecord& r)
{
  return !r.printed && !r.ssh_spoke;
}

struct SummaryNames {
  std::map<std::string, std::string> names;  // input host -> the name the summary gives it
  std::map<std::string, const HostRecord*> clush_lines;  // a host -> clush's record left out
};

// Which expected host each input host is: itself, or the expected host it is in full or
// short (cn001.site and cn001, either way round) when no other input or expected host has
// that short name. Two hosts of one short name are different machines (cn001.a, cn001.b):
// neither then answers for cn001, so that a failure of one never hides behind the other.
// With `clush -N` a result names its host as the host does (cn001) and clush's line about
// it as its group does (cn001.site: exited with exit code 5). A host of only clush's lines is
// then left out as the host that spoke itself, and its lines go with that host's, when one
// name is the other's short name, each is the only one of its kind with that short name, the
// one that spoke did not pass (clush speaks only of a host that failed or did not finish),
// and at most one host of that short name is expected, one of the two (else they may be two
// machines).
SummaryNames summary_names(const FleetInput& input, const std::set<std::string>& expected)
{
  std::map<std::string, std::vector<std::string>> expected_by_short;
  for (const auto& name : expected) {
    expected_by_short[counted_name(name)].push_back(name);
  }
  struct Speakers {
    size_t spoke = 0;
    size_t only_clush = 0;
    const HostRecord* speaker = nullptr;
  };
  std::map<std::string, std::string> short_names;
  std::map<std::string, Speakers> by_short;
  for (const auto& [host, record] : input.hosts) {
    auto& s = by_short[short_names[host] = counted_name(host)];
    if (only_clush_spoke(record)) {
      ++s.only_clush;
    } else {
      ++s.spoke;
      s.speaker = &record;
    }
  }
  SummaryNames out;
  std::map<std::string, size_t> inputs_by_short;
  std::set<std::string> absorbed;
  // Whether the clush-only record of host is the one host of its short name that spoke.
  const auto is_speakers = [&](const std::string& host, const HostRecord& record) {
    const std::string& name = short_names[host];
    const Speakers& s = by_short[name];
    if (!only_clush_spoke(record) || s.only_clush != 1 || s.spoke != 1 ||
        s.speaker->outcome() == Outcome::passed) {
      return false;
    }
    // One of the two is the short name; the other, the full one, must be the expected host of
    // the short name when one is expected in full: else they may be two machines.
    if (s.speaker->host != name && host != name) {
      return false;
    }
    const std::string& full = s.speaker->host == name ? host : s.speaker->host;
    const auto e = expected_by_short.find(name);
    return e == expected_by_short.end() ||
           (e->second.size() == 1 && (e->second.front() == full || e->second.front() == name));
  };
  for (const auto& [host, record] : input.hosts) {
    if (is_speakers(host, record)) {
      out.clush_lines[by_short[short_names[host]].speaker->host] = &record;
      absorbed.insert(host);
    } else {
      ++inputs_by_short[short_names[host]];
    }
  }
  for (const auto& entry : input.hosts) {
    const std::string& host = entry.first;
    if (absorbed.count(host) > 0) {
      continue;
    }
    const std::string& name = short_names[host];
    const auto it = expected_by_short.find(name);
    // cn001.a does not answer for cn001.b: one of the two is the short name.
    const bool alias = expected.count(host) == 0 && it != expected_by_short.end() &&
                       it->second.size() == 1 && inputs_by_short[name] == 1 &&
                       (host == name || it->second.front() == name);
    out.names[host] = alias ? it->second.front() : host;
  }
  return out;
}

}  // namespace

FleetSummary summarize_fleet(const FleetInput& input, const std::vector<std::string>& expected)
{
  FleetSummary s;
  s.expectation = !expected.empty();
  std::set<std::string> expected_set(expected.begin(), expected.end());
  // Without an expectation every host is named as itself, and is expected.
  const auto [names, clush_lines] = summary_names(input, expected_set);
  if (!s.expectation) {
    for (const auto& entry : names) {
      expected_set.insert(entry.second);
    }
  }
  s.expected.assign(expected_set.begin(), expected_set.end());
  std::set<std::string> all = expected_set;
  std::map<std::string, const HostRecord*> record_named;
  for (const auto& [host, name] : names) {
    all.insert(name);
    record_named[name] = &input.hosts.at(host);
    if (expected_set.count(name) == 0) {
      s.unexpected.push_back(name);
    }
  }
  GroupMap failures;
  GroupMap warnings;
  ValueMap firmware;
  ValueMap rates;
  for (const auto& host : all) {
    const auto it = record_named.find(host);
    HostRecord absent;
    absent.host = host;
    absent.problem = "absent from the input";
    const HostRecord& r = it == record_named.end() ? absent : *it->second;
    // The input's name masks its short form too; the expected name may be the longer one.
    const std::string& masked = r.host.size() > host.size() ? r.host : host;
    switch (r.outcome()) {
    case Outcome::passed:
      s.passed.push_back(host);
      break;
    case Outcome::failed:
      s.failed.push_back(host);
      break;
    case Outcome::invalid:
    case Outcome::no_answer:
      (r.outcome() == Outcome::invalid ? s.invalid : s.no_answer).push_back(host);
      s.problems.push_back(r);
      s.problems.back().host = host;
      if (const auto c = clush_lines.find(r.host); c != clush_lines.end()) {
        auto& lines = s.problems.back().lines;
        lines.insert(lines.end(), c->second->lines.begin(), c->second->lines.end());
      }
      break;
    }
    if (r.results > 1) {
      s.duplicated.push_back(host);
    }
    if (!r.report) {
      continue;
    }
    bool any_failure = false;
    for (const auto& c : r.report->checks) {
      if (c.status == Status::fail || c.status == Status::warn) {
        auto& map = c.status == Status::fail ? failures : warnings;
        map[{c.id, mask_host(c.message, masked)}].insert(host);
        any_failure = any_failure || c.status == Status::fail;
      }
      if (!c.observed.empty() && (c.id == "hca.firmware" || c.id == "port.rate")) {
        (c.id == "hca.firmware" ? firmware : rates)[c.observed].insert(host);
      }
    }
    if (!r.reported_ok && !any_failure) {
      failures[{"(none)", "\"ok\": false without a failing check"}].insert(host);
    }
  }
  s.failures = to_groups(failures);
  s.warnings = to_groups(warnings);
  s.firmware = to_counts(firmware);
  s.rates = to_counts(rates);
  s.unattributed = input.unattributed;
  return s;
}

}  // namespace ibsetup::check
