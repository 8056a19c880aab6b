// Fleet reports: reading many hosts' check results, line by line, into a record per host.
#include "fleet/fleet_lines.hpp"
#include "common/json_read.hpp"
#include "common/strings.hpp"
#include "common/json.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/fleet.hpp>
#include <ibsetup/hostlist.hpp>

#include <algorithm>
#include <functional>

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

std::string member_string(const json::Json& object, const char* key, bool required)
{
  const auto it = object.find(key);
  const bool absent = it == object.end() || it->is_null();
  if (absent && !required) {
    return "";
  }
  if (absent || !it->is_string()) {
    throw InputError(std::string("not a check result: '") + key +
                     (absent ? "' is missing" : "' is not a string"));
  }
  return it->get<std::string>();
}

// A value from the input inside a message: short, and with control characters escaped.
std::string shown(const std::string& text)
{
  const auto quoted = json_quote(util::excerpt(text, 40));
  return quoted.substr(1, quoted.size() - 2);
}

Status parse_status(const std::string& text)
{
  for (auto s : {Status::pass, Status::warn, Status::fail, Status::skip}) {
    if (text == to_string(s)) {
      return s;
    }
  }
  throw InputError("not a check result: status '" + shown(text) +
                   "' is not pass, warn, fail or skip");
}

// What clush, pdsh or ssh says when a run did not reach the host or did not finish: such a
// line after a host's passing result undoes it. An exit status other than ssh's 255 does not:
// check exits 4 on a healthy node whose Slurm update or textfile write failed.
bool not_reached_or_finished(std::string_view message, bool ssh)
{
  return ssh || classify_tool_note(message) == ToolNote::not_finished;
}

// The bytes of a check's id, subject, expected, observed and message that are kept.
constexpr size_t k_max_text = 4096;

// What keeping these bytes costs, roughly: the text and a string's own size.
size_t cost(const std::string& text)
{
  return sizeof(std::string) + text.size();
}

size_t cost(const Report& report)
{
  size_t n = sizeof(Report) + report.host.size();
  for (const auto& c : report.checks) {
    n += sizeof(Result) + c.id.size() + c.subject.size() + c.expected.size() + c.observed.size() +
         c.message.size();
  }
  return n;
}

HostRecord& record_of(FleetInput& input, const std::string& host)
{
  const auto [it, added] = input.hosts.try_emplace(host);
  if (added) {
    it->second.host = host;
    input.kept_bytes += sizeof(HostRecord) + 2 * cost(host) + 64;  // 64: the map's node
  }
  return it->second;
}

// One line into the input: its first limits.max_quote bytes are what is kept and quoted.
class LineAdder {
public:
  // line: what was read of the input line, of length bytes in all: the quotes of a line read
  // only in part, and of problems taken from its end, say how long they are, not what was read.
  LineAdder(FleetInput& input, const FleetLimits& limits, std::string_view line, size_t length)
      : m_input(input), m_limits(limits), m_line(line), m_unread(length - line.size())
  {
  }

  void unattributed(std::string_view line)
  {
    m_input.unattributed.push_back(quote(line));
    m_input.kept_bytes += cost(m_input.unattributed.back());
  }

  // own: the host printed the line; its reason beats one from ssh, which beats one from
  // clush, whose exit-code line may come before or after the output it explains.
  void other(const std::string& host, std::string_view line, std::string_view problem, bool own,
             bool ssh = false)
  {
    auto& r = record_of(m_input, host);
    if (!own && r.report && r.reported_ok && r.report->ok() &&
        not_reached_or_finished(problem, ssh)) {
      // clush, pdsh or ssh about a host whose last result passed: a run after it timed out
      // or did not reach the host (a re-run into the same file), or the check hung after
      // printing. The pass no longer holds.
      m_input.kept_bytes -= std::min(m_input.kept_bytes, cost(*r.report));
      r.report.reset();
      r.printed = false;
      r.ssh_spoke = false;
      r.problem.clear();
    }
    const bool only_clush = !r.printed && !r.ssh_spoke;
    if (r.problem.empty() || (own && !r.printed) || (ssh && only_clush)) {
      m_input.kept_bytes -= std::min(m_input.kept_bytes, r.problem.size());
      r.problem = quote(problem);
      m_input.kept_bytes += r.problem.size();
    }
    r.lines.push_back(quote(line));
    m_input.kept_bytes += cost(r.lines.back());
    r.printed = r.printed || own;
    r.ssh_spoke = r.ssh_spoke || ssh;
  }

  void result(const std::string& host, Report report, bool reported_ok)
  {
    // A real check's texts are a line or two; a host that sends megabytes in one would have
    // them kept, copied into the summary's groups and printed whole, for every such host.
    for (auto& c : report.checks) {
      for (std::string* text : {&c.id, &c.subject, &c.expected, &c.observed, &c.message}) {
        if (text->size() > k_max_text) {
          *text = util::excerpt(*text, k_max_text);
        }
      }
    }
    auto& r = record_of(m_input, host);
    if (r.report) {
      m_input.kept_bytes -= std::min(m_input.kept_bytes, cost(*r.report));
    }
    m_input.kept_bytes += cost(report);
    r.printed = true;
    r.report = std::move(report);
    r.reported_ok = reported_ok;
    ++r.results;
  }

private:
  // text: the line from some point to its end (every quote of it is), or a text of its own (a
  // problem ibsetup words).
  std::string quote(std::string_view text) const
  {
    const std::less<const char*> before;
    const char* line_end = m_line.data() + m_line.size();
    const bool in_line =
        !before(text.data(), m_line.data()) && !before(line_end, text.data() + text.size());
    if (m_unread == 0 || !in_line) {
      return util::excerpt(text, m_limits.max_quote);
    }
    return util::excerpt(text, m_limits.max_quote,
                         static_cast<size_t>(line_end - text.data()) + m_unread);
  }

  FleetInput& m_input;
  const FleetLimits& m_limits;
  std::string_view m_line;
  size_t m_unread;
};

}  // namespace

Report parse_check_json(const std::string& text, bool* reported_ok)
{
  json::Json doc;
  try {
    doc = json::parse(text);
  } catch (const json::ParseError& e) {
    throw InputError(std::string("not JSON: ") + e.what());
  }
  if (!doc.is_object()) {
    throw InputError("not a check result: not a JSON object");
  }
  Report report;
  report.host = member_string(doc, "host", true);
  const auto ok = doc.find("ok");
  if (ok == doc.end() || !ok->is_boolean()) {
    throw InputError("not a check result: 'ok' is missing or not true/false");
  }
  if (reported_ok != nullptr) {
    *reported_ok = ok->get<bool>();
  }
  const auto checks = doc.find("checks");
  if (checks == doc.end() || !checks->is_array()) {
    throw InputError("not a check result: 'checks' is missing or not an array");
  }
  report.checks.reserve(checks->size());
  for (const auto& c : *checks) {
    if (!c.is_object()) {
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
  add_line(input, line, line.size(), FleetLimits());
}

void add_line(FleetInput& input, std::string_view line, size_t length, const FleetLimits& limits)
{
  LineAdder add(input, limits, line, std::max(length, line.size()));
  const auto text = util::trim(line);
  if (text.empty()) {
    return;
  }
  std::string_view rest;
  std::string host;
  if (text.front() != '{') {
    host = prefix_host(text, rest);
    std::string_view said = rest;
    if (host == "clush" || pdsh_prefix(text, said)) {
      // clush or pdsh about a host: "clush: cn007: exited with exit code 5",
      // "pdsh@head: cn007: command timeout".
      std::string_view message;
      const auto about = prefix_host(said, message);
      if (!about.empty()) {
        add.other(about, text, message, false);
        return;
      }
      // clush folds the hosts that end alike into one line: "clush: cn[04-05]: command
      // timeout". Each is named; a fold larger than a fleet is no host's.
      if (const auto hosts = folded_hosts(said, message); !hosts.empty()) {
        for (const auto& h : hosts) {
          add.other(h, text, message, false);
        }
        return;
      }
    }
    if (const auto signalled = host.empty() ? pdsh_signalled_host(text) : ""; !signalled.empty()) {
      add.other(signalled, text, text, false);
      return;
    }
    if (host.empty() || is_program_word(host)) {
      add.unattributed(text);
      return;
    }
    if (is_ssh_diagnostic(rest)) {
      add.other(host, text, rest, false, true);
      return;
    }
  } else {
    rest = text;
  }
  if (length > limits.max_line) {
    // Only its start was read: too long to be a result, and to be quoted whole.
    const auto why = "a line of " + std::to_string(length) + " bytes, longer than the " +
                     std::to_string(limits.max_line) + " a result may have";
    if (host.empty()) {
      add.unattributed(text);
    } else {
      add.other(host, text, why, true);
    }
    return;
  }
  const std::string payload(rest);
  bool reported_ok = true;
  try {
    auto report = parse_check_json(payload, &reported_ok);
    if (host.empty()) {
      if (!is_valid_hostname(report.host)) {
        add.unattributed(text);
        return;
      }
      host = report.host;
    }
    add.result(host, std::move(report), reported_ok);
  } catch (const InputError& e) {
    if (host.empty()) {
      add.unattributed(text);
      return;
    }
    add.other(host, text, payload.empty() || payload.front() != '{' ? "not JSON" : e.what(), true);
  }
}

}  // namespace ibsetup::check
