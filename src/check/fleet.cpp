// Fleet reports: reading many hosts' check results and grouping them.
#include "common/strings.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/fleet.hpp>
#include <ibsetup/hostlist.hpp>
#include <ibsetup/json_value.hpp>

#include <algorithm>
#include <set>
#include <tuple>

namespace ibsetup::check {

const char* to_string(Outcome outcome)
{
  switch (outcome) {
  case Outcome::passed:
    return "passed";
  case Outcome::failed:
    return "failed";
  case Outcome::invalid:
    return "invalid";
  case Outcome::no_answer:
    return "no_answer";
  }
  return "?";
}

Outcome HostRecord::outcome() const
{
  if (report) {
    return reported_ok && report->ok() ? Outcome::passed : Outcome::failed;
  }
  return printed ? Outcome::invalid : Outcome::no_answer;
}

namespace {

std::string member_string(const JsonValue& object, const char* key, bool required)
{
  const auto& v = object[key];
  if (v.is_null() && !required) {
    return "";
  }
  if (v.type() != JsonValue::Type::string) {
    throw InputError(std::string("not a check result: '") + key +
                     (v.is_null() ? "' is missing" : "' is not a string"));
  }
  return v.as_string();
}

Status parse_status(const std::string& text)
{
  for (auto s : {Status::pass, Status::warn, Status::fail, Status::skip}) {
    if (text == to_string(s)) {
      return s;
    }
  }
  throw InputError("not a check result: status '" + text + "' is not pass, warn, fail or skip");
}

// Words that end up before ": " on a line but are programs, not hosts: with `clush -N` a
// host's stderr ("ibsetup: error: ...", "ssh: connect to host ...") comes without a prefix.
bool is_program_word(const std::string& word)
{
  static const std::set<std::string> words = {"clush", "ibsetup", "ssh",     "sudo",
                                              "pdsh",  "Warning", "warning", "error"};
  return words.count(word) > 0;
}

// The host named by "HOST: rest", or "" when the line does not start that way. "HOST:" alone
// is clush's prefix for an empty line of the host (trimmed of its trailing space).
std::string prefix_host(std::string_view line, std::string_view& rest)
{
  auto colon = line.find(": ");
  if (colon == std::string_view::npos) {
    if (line.empty() || line.back() != ':') {
      return "";
    }
    colon = line.size() - 1;
  }
  std::string host(line.substr(0, colon));
  if (!is_valid_hostname(host)) {
    return "";
  }
  rest = colon + 2 <= line.size() ? line.substr(colon + 2) : std::string_view();
  return host;
}

// What ssh, not the command on the host, said: the host was not reached (clush then reports
// exit code 255). ssh prefixes most of its errors with "ssh:", not these.
bool is_ssh_diagnostic(std::string_view text)
{
  static const std::string_view starts[] = {"ssh: ", "Permission denied (",
                                            "Host key verification failed."};
  return std::any_of(std::begin(starts), std::end(starts),
                     [&](std::string_view s) { return text.substr(0, s.size()) == s; });
}

HostRecord& record_of(FleetInput& input, const std::string& host)
{
  auto& r = input.hosts[host];
  r.host = host;
  return r;
}

// own: the host printed the line; its reason beats one from ssh, which beats one from clush,
// whose exit-code line may come before or after the output it explains.
void add_other_line(HostRecord& r, const std::string& line, const std::string& problem, bool own,
                    bool ssh = false)
{
  const bool only_clush = std::all_of(r.lines.begin(), r.lines.end(), [](const std::string& l) {
    return l.compare(0, 7, "clush: ") == 0;
  });
  if (r.problem.empty() || (own && !r.printed) || (ssh && !r.printed && only_clush)) {
    r.problem = problem;
  }
  r.lines.push_back(line);
  r.printed = r.printed || own;
}

}  // namespace

Report parse_check_json(const std::string& text, bool* reported_ok)
{
  JsonValue doc;
  try {
    doc = parse_json(text);
  } catch (const JsonError& e) {
    throw InputError(std::string("not JSON: ") + e.what());
  }
  if (doc.type() != JsonValue::Type::object) {
    throw InputError("not a check result: not a JSON object");
  }
  Report report;
  report.host = member_string(doc, "host", true);
  const auto& ok = doc["ok"];
  if (ok.type() != JsonValue::Type::boolean) {
    throw InputError("not a check result: 'ok' is missing or not true/false");
  }
  if (reported_ok != nullptr) {
    *reported_ok = ok.as_bool();
  }
  const auto& checks = doc["checks"];
  if (checks.type() != JsonValue::Type::array) {
    throw InputError("not a check result: 'checks' is missing or not an array");
  }
  for (const auto& c : checks.as_array()) {
    if (c.type() != JsonValue::Type::object) {
      throw InputError("not a check result: a member of 'checks' is not an object");
    }
    Result r;
    r.id = member_string(c, "id", true);
    r.status = parse_status(member_string(c, "status", true));
    r.subject = member_string(c, "subject", false);
    r.expected = member_string(c, "expected", false);
    r.observed = member_string(c, "observed", false);
    r.message = member_string(c, "message", false);
    report.checks.push_back(std::move(r));
  }
  return report;
}

void add_fleet_line(FleetInput& input, const std::string& line)
{
  const auto line_view = util::trim(line);
  if (line_view.empty()) {
    return;
  }
  const std::string text(line_view);
  std::string_view rest;
  std::string host;
  if (text.front() != '{') {
    host = prefix_host(line_view, rest);
    if (host == "clush") {
      // clush about a host: "clush: cn007: exited with exit code 5", "...: command timeout".
      std::string_view message;
      const auto about = prefix_host(rest, message);
      if (!about.empty()) {
        add_other_line(record_of(input, about), text, std::string(message), false);
        return;
      }
    }
    if (host.empty() || is_program_word(host)) {
      input.unattributed.push_back(text);
      return;
    }
    if (is_ssh_diagnostic(rest)) {
      add_other_line(record_of(input, host), text, std::string(rest), false, true);
      return;
    }
  } else {
    rest = line_view;
  }
  const std::string payload(rest);
  bool reported_ok = true;
  try {
    auto report = parse_check_json(payload, &reported_ok);
    if (host.empty()) {
      if (!is_valid_hostname(report.host)) {
        input.unattributed.push_back(text);
        return;
      }
      host = report.host;
    }
    auto& r = record_of(input, host);
    r.printed = true;
    r.report = std::move(report);
    r.reported_ok = reported_ok;
    ++r.results;
  } catch (const InputError& e) {
    if (host.empty()) {
      input.unattributed.push_back(text);
      return;
    }
    add_other_line(record_of(input, host), text,
                   payload.empty() || payload.front() != '{' ? "not JSON" : e.what(), true);
  }
}

FleetInput read_fleet(std::istream& in)
{
  FleetInput input;
  std::string line;
  while (std::getline(in, line)) {
    add_fleet_line(input, line);
  }
  return input;
}

namespace {

bool is_word_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

// The message with whole-word mentions of the host (full or short name) as "{host}", so that
// "cn003: no route to cn064" and "cn004: no route to cn064" are one kind.
std::string mask_host(std::string message, const std::string& host)
{
  std::vector<std::string> names = {host};
  if (const auto dot = host.find('.'); dot != std::string::npos && dot > 0) {
    names.push_back(host.substr(0, dot));
  }
  for (const auto& name : names) {
    size_t pos = 0;
    while ((pos = message.find(name, pos)) != std::string::npos) {
      const size_t end = pos + name.size();
      const bool starts = pos == 0 || !is_word_char(message[pos - 1]);
      const bool ends = end == message.size() || !is_word_char(message[end]);
      if (starts && ends) {
        message.replace(pos, name.size(), "{host}");
        pos += 6;
      } else {
        pos = end;
      }
    }
  }
  return message;
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

bool FleetSummary::ok() const
{
  return !expected.empty() && failed.empty() && invalid.empty() && no_answer.empty();
}

FleetSummary summarize_fleet(const FleetInput& input, const std::vector<std::string>& expected)
{
  FleetSummary s;
  s.expectation = !expected.empty();
  std::set<std::string> expected_set(expected.begin(), expected.end());
  if (!s.expectation) {
    for (const auto& entry : input.hosts) {
      expected_set.insert(entry.first);
    }
  }
  s.expected.assign(expected_set.begin(), expected_set.end());
  std::set<std::string> all = expected_set;
  for (const auto& entry : input.hosts) {
    all.insert(entry.first);
    if (expected_set.count(entry.first) == 0) {
      s.unexpected.push_back(entry.first);
    }
  }
  GroupMap failures;
  GroupMap warnings;
  ValueMap firmware;
  ValueMap rates;
  for (const auto& host : all) {
    const auto it = input.hosts.find(host);
    HostRecord absent;
    absent.host = host;
    absent.problem = "absent from the input";
    const HostRecord& r = it == input.hosts.end() ? absent : it->second;
    switch (r.outcome()) {
    case Outcome::passed:
      s.passed.push_back(host);
      break;
    case Outcome::failed:
      s.failed.push_back(host);
      break;
    case Outcome::invalid:
      s.invalid.push_back(host);
      s.problems.push_back(r);
      break;
    case Outcome::no_answer:
      s.no_answer.push_back(host);
      s.problems.push_back(r);
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
        map[{c.id, mask_host(c.message, host)}].insert(host);
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
