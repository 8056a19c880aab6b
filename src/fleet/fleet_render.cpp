// Fleet reports: the summary for people and as JSON.
#include <ibsetup/fleet.hpp>
#include <ibsetup/hostlist.hpp>

#include "common/strings.hpp"
#include "common/json.hpp"
#include "fleet/fleet_lines.hpp"

#include <algorithm>
#include <sstream>

namespace ibsetup::check {

namespace {

// Everything in a fleet report but the counts comes from the hosts' output: escaped, no host
// can print a line of its own (a fake "fleet: ok") or drive the terminal.
std::string esc(const std::string& s)
{
  return util::escape_text(s);
}

// A host's line as printed: quoted, with what JSON escapes (the controls) escaped as JSON does,
// and what escape_text alone shows escaped (bidirectional controls, separators, invisible
// characters) escaped too; json_quote keeps those as data.
std::string quoted(const std::string& line)
{
  return util::escape_text(json_quote(line));
}

std::string hosts_count(size_t n)
{
  return std::to_string(n) + (n == 1 ? " host" : " hosts");
}

// Rows of cells, every column but the last padded to its widest cell.
void print_rows(std::ostream& out, const std::vector<std::vector<std::string>>& rows)
{
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  }
  for (const auto& row : rows) {
    out << ' ';
    for (size_t i = 0; i < row.size(); ++i) {
      out << ' ' << row[i];
      if (i + 1 < row.size()) {
        out << std::string(widths[i] - row[i].size() + 1, ' ');
      }
    }
    out << '\n';
  }
}

size_t distinct_hosts(const std::vector<FailureGroup>& groups)
{
  std::vector<std::string> all;
  for (const auto& g : groups) {
    all.insert(all.end(), g.hosts.begin(), g.hosts.end());
  }
  std::sort(all.begin(), all.end());
  return static_cast<size_t>(std::unique(all.begin(), all.end()) - all.begin());
}

void print_groups(std::ostream& out, const char* title, const std::vector<FailureGroup>& groups)
{
  if (groups.empty()) {
    return;
  }
  out << title << " (" << hosts_count(distinct_hosts(groups)) << "):\n";
  std::vector<std::vector<std::string>> rows;
  rows.reserve(groups.size());
  for (const auto& g : groups) {
    rows.push_back(
        {hosts_count(g.hosts.size()), esc(fold_hostlist(g.hosts)), esc(g.id), esc(g.message)});
  }
  print_rows(out, rows);
}

void print_counts(std::ostream& out, const char* title, const std::vector<ValueCount>& counts)
{
  if (counts.empty()) {
    return;
  }
  out << title << ":\n";
  std::vector<std::vector<std::string>> rows;
  rows.reserve(counts.size());
  for (const auto& c : counts) {
    rows.push_back({hosts_count(c.hosts.size()), esc(fold_hostlist(c.hosts)), esc(c.value)});
  }
  print_rows(out, rows);
}

void print_problems(std::ostream& out, const FleetSummary& s, Outcome outcome)
{
  for (const auto& p : s.problems) {
    if (p.outcome() != outcome || p.lines.empty()) {
      continue;
    }
    if (outcome == Outcome::invalid) {
      out << "  " << esc(p.host) << ": " << esc(p.problem) << '\n';
      for (const auto& line : p.lines) {
        out << "    " << quoted(line) << '\n';
      }
    } else {
      for (const auto& line : p.lines) {
        out << "  " << esc(p.host) << ": " << quoted(line) << '\n';
      }
    }
  }
}

void groups_json(JsonWriter& j, const std::vector<FailureGroup>& groups)
{
  j.begin_array();
  for (const auto& g : groups) {
    j.begin_object();
    j.key("id").value(g.id);
    j.key("message").value(g.message);
    j.key("count").value(static_cast<uint64_t>(g.hosts.size()));
    j.key("hosts").value(fold_hostlist(g.hosts));
    j.end_object();
  }
  j.end_array();
}

void counts_json(JsonWriter& j, const char* name, const std::vector<ValueCount>& counts)
{
  j.begin_array();
  for (const auto& c : counts) {
    j.begin_object();
    j.key(name).value(c.value);
    j.key("count").value(static_cast<uint64_t>(c.hosts.size()));
    j.key("hosts").value(fold_hostlist(c.hosts));
    j.end_object();
  }
  j.end_array();
}

void lines_json(JsonWriter& j, const std::vector<std::string>& lines)
{
  j.begin_array();
  for (const auto& line : lines) {
    j.value(line);
  }
  j.end_array();
}

}  // namespace

std::string fleet_to_text(const FleetSummary& s)
{
  std::ostringstream out;
  print_groups(out, "failures", s.failures);
  print_groups(out, "warnings", s.warnings);
  if (!s.invalid.empty()) {
    out << "invalid output (" << hosts_count(s.invalid.size()) << "):\n";
    print_problems(out, s, Outcome::invalid);
  }
  if (!s.no_answer.empty()) {
    out << "did not answer (" << hosts_count(s.no_answer.size())
        << "): " << esc(fold_hostlist(s.no_answer)) << '\n';
    print_problems(out, s, Outcome::no_answer);
  }
  if (!s.unexpected.empty()) {
    out << "not expected (" << hosts_count(s.unexpected.size())
        << "): " << esc(fold_hostlist(s.unexpected)) << '\n';
  }
  if (!s.duplicated.empty()) {
    out << "more than one result, the last one counted: " << esc(fold_hostlist(s.duplicated))
        << '\n';
  }
  print_counts(out, "firmware (hca.firmware)", s.firmware);
  print_counts(out, "port rates (port.rate)", s.rates);
  if (!s.unattributed.empty()) {
    out << "lines naming no host:\n";
    for (const auto& line : s.unattributed) {
      out << "  " << quoted(line) << '\n';
    }
  }
  const size_t total = s.passed.size() + s.failed.size() + s.invalid.size() + s.no_answer.size();
  out << "fleet: " << (s.ok() ? "ok" : "FAILED") << ": " << hosts_count(total);
  if (!s.unexpected.empty()) {
    out << " (" << s.unexpected.size() << " not expected)";
  }
  out << ": " << s.passed.size() << " passed, " << s.failed.size() << " failed, "
      << s.invalid.size() << " invalid output, " << s.no_answer.size() << " did not answer";
  if (const size_t unnamed = unnamed_results(s.unattributed); unnamed > 0) {
    out << ", " << unnamed << " invalid result" << (unnamed == 1 ? "" : "s") << " naming no host";
  }
  out << '\n';
  return out.str();
}

std::string fleet_to_json(const FleetSummary& s)
{
  JsonWriter j;
  j.begin_object();
  j.key("ok").value(s.ok());
  j.key("totals").begin_object();
  j.key("hosts").value(static_cast<uint64_t>(s.passed.size() + s.failed.size() + s.invalid.size() +
                                             s.no_answer.size()));
  j.key("expected").value(static_cast<uint64_t>(s.expected.size()));
  j.key("passed").value(static_cast<uint64_t>(s.passed.size()));
  j.key("failed").value(static_cast<uint64_t>(s.failed.size()));
  j.key("invalid").value(static_cast<uint64_t>(s.invalid.size()));
  j.key("no_answer").value(static_cast<uint64_t>(s.no_answer.size()));
  j.key("unexpected").value(static_cast<uint64_t>(s.unexpected.size()));
  j.key("unnamed_invalid").value(static_cast<uint64_t>(unnamed_results(s.unattributed)));
  j.end_object();
  j.key("hosts").begin_object();
  j.key("expected").value(fold_hostlist(s.expected));
  j.key("passed").value(fold_hostlist(s.passed));
  j.key("failed").value(fold_hostlist(s.failed));
  j.key("invalid").value(fold_hostlist(s.invalid));
  j.key("no_answer").value(fold_hostlist(s.no_answer));
  j.key("unexpected").value(fold_hostlist(s.unexpected));
  j.key("duplicated").value(fold_hostlist(s.duplicated));
  j.end_object();
  j.key("failures");
  groups_json(j, s.failures);
  j.key("warnings");
  groups_json(j, s.warnings);
  j.key("problems").begin_array();
  for (const auto& p : s.problems) {
    j.begin_object();
    j.key("host").value(p.host);
    j.key("outcome").value(to_string(p.outcome()));
    j.key("problem").value(p.problem);
    j.key("lines");
    lines_json(j, p.lines);
    j.end_object();
  }
  j.end_array();
  j.key("firmware");
  counts_json(j, "version", s.firmware);
  j.key("rates");
  counts_json(j, "rate", s.rates);
  j.key("unattributed");
  lines_json(j, s.unattributed);
  j.end_object();
  return j.take_line();
}

}  // namespace ibsetup::check
