// Fleet reports: reading many hosts' check results, line by line, into a record per host.
#include "fleet/fleet_lines.hpp"
#include "common/json_read.hpp"
#include "common/strings.hpp"
#include "common/json.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/fleet.hpp>
#include <ibsetup/hostlist.hpp>

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

// The hosts of "HOSTLIST: rest" when HOSTLIST is a bracketed hostlist of at most
// k_max_folded valid names, or a list with the count clush -L and -b add ("cn[01-02] (2)");
// rest is what follows. Empty for anything else.
std::vector<std::string> folded_hosts(std::string_view line, std::string_view& rest)
{
  constexpr size_t k_max_folded = 65536;
  const auto colon = line.find(": ");
  auto list = line.substr(0, colon);
  if (colon == std::string_view::npos) {
    return {};
  }
  bool counted = false;
  if (const auto open = list.rfind(" (");
      open != std::string_view::npos && list.back() == ')' &&
      util::parse_unsigned(list.substr(open + 2, list.size() - open - 3))) {
    list = list.substr(0, open);
    counted = true;
  }
  if (!counted && list.find('[') == std::string_view::npos) {
    return {};
  }
  std::vector<std::string> hosts;
  try {
    hosts = expand_hostlist(list, k_max_folded);
  } catch (const HostlistError&) {
    return {};
  }
  if (!std::all_of(hosts.begin(), hosts.end(),
                   [](const std::string& h) { return is_valid_hostname(h); })) {
    return {};
  }
  rest = line.substr(colon + 2);
  return hosts;
}

// What clush, pdsh or ssh says when a run did not reach the host or did not finish: such a
// line after a host's passing result undoes it. An exit status other than ssh's 255 does not:
// check exits 4 on a healthy node whose Slurm update or textfile write failed.
bool not_reached_or_finished(std::string_view message, bool ssh)
{
  return ssh || classify_tool_note(message) == ToolNote::not_finished;
}

// pdsh's prefix for what it says about a host, "pdsh@NODE: " (NODE: where pdsh runs); rest is
// what follows it.
bool pdsh_prefix(std::string_view line, std::string_view& rest)
{
  constexpr std::string_view tag = "pdsh@";
  const auto colon = line.find(": ");
  if (line.substr(0, tag.size()) != tag || colon == std::string_view::npos ||
      !is_valid_hostname(line.substr(tag.size(), colon - tag.size()))) {
    return false;
  }
  rest = line.substr(colon + 2);
  return true;
}

// The host pdsh names when its timeout ends a command: "sending signal 15 to cn007.site
// [COMMAND] pid 2005" (COMMAND: ssh, or the command of its exec module), its one line without
// its prefix, as pdsh names the host elsewhere (cn007); "" for any other line.
std::string pdsh_signalled_host(std::string_view line)
{
  constexpr std::string_view tag = "sending signal ";
  constexpr std::string_view to = " to ";
  constexpr std::string_view pid = "] pid ";
  if (line.substr(0, tag.size()) != tag) {
    return "";
  }
  const size_t to_at = line.find(to, tag.size());
  const size_t host = to_at + to.size();
  const size_t bracket = to_at == std::string_view::npos ? to_at : line.find(" [", host);
  const size_t pid_at = line.rfind(pid);
  if (bracket == std::string_view::npos || pid_at == std::string_view::npos ||
      !util::parse_unsigned(line.substr(tag.size(), to_at - tag.size())) ||
      !util::parse_unsigned(line.substr(pid_at + pid.size()))) {
    return "";
  }
  auto name = line.substr(host, bracket - host);
  if (!is_valid_hostname(name)) {
    return "";
  }
  // This line has the name given to -w; pdsh's others, and its prefix, have it up to the
  // first dot unless it starts with a digit (an address): the same host is named so.
  if (name.front() < '0' || name.front() > '9') {
    name = name.substr(0, name.find('.'));
  }
  return std::string(name);
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
  LineAdder(FleetInput& input, const FleetLimits& limits) : m_input(input), m_limits(limits) {}

  void unattributed(std::string_view line)
  {
    m_input.unattributed.push_back(util::excerpt(line, m_limits.max_quote));
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
      r.problem = util::excerpt(problem, m_limits.max_quote);
      m_input.kept_bytes += r.problem.size();
    }
    r.lines.push_back(util::excerpt(line, m_limits.max_quote));
    m_input.kept_bytes += cost(r.lines.back());
    r.printed = r.printed || own;
    r.ssh_spoke = r.ssh_spoke || ssh;
  }

  void result(const std::string& host, Report report, bool reported_ok)
  {
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
  FleetInput& m_input;
  const FleetLimits& m_limits;
};

}  // namespace

ToolNote classify_tool_note(std::string_view message)
{
  const auto has = [&](std::string_view s) { return message.find(s) != std::string_view::npos; };
  if (has("command timeout") || has("exit code 255") || has("killed by signal") ||
      message.substr(0, 15) == "sending signal ") {
    return ToolNote::not_finished;
  }
  return has("exited with exit code") ? ToolNote::exit_status : ToolNote::other;
}

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
  LineAdder add(input, limits);
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
