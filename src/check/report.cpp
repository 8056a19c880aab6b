// Check results: ids, settings, and the three output formats.
#include <ibsetup/check.hpp>

#include "common/check_ids.hpp"
#include "common/strings.hpp"
#include "common/json.hpp"

#include <algorithm>
#include <sstream>

namespace ibsetup::check {

const char* to_string(Status status)
{
  switch (status) {
  case Status::pass:
    return "pass";
  case Status::warn:
    return "warn";
  case Status::fail:
    return "fail";
  case Status::skip:
    return "skip";
  }
  return "?";
}

bool Report::ok() const
{
  return first_failure() == nullptr;
}

const Result* Report::first_failure() const
{
  for (const auto& r : checks) {
    if (r.status == Status::fail) {
      return &r;
    }
  }
  return nullptr;
}

const std::vector<std::string>& check_ids()
{
  return util::check_ids();
}

namespace {

bool matches(const std::string& id, const std::vector<std::string>& names)
{
  return std::any_of(names.begin(), names.end(),
                     [&](const std::string& n) { return n == id || n == util::check_group(id); });
}

}  // namespace

bool is_check_id_or_group(const std::string& name)
{
  return util::is_check_id_or_group(name);
}

bool Settings::disables(const std::string& id) const
{
  return matches(id, disabled);
}

void apply_settings(std::vector<Result>& results, const Settings& settings)
{
  for (auto& r : results) {
    if (settings.disables(r.id)) {
      r.status = Status::skip;
      r.message = r.subject + ": " + r.id + " disabled";
    } else if (r.status == Status::fail && matches(r.id, settings.warn_only)) {
      r.status = Status::warn;
    }
  }
}

std::string report_to_json(const Report& report)
{
  JsonWriter j;
  j.begin_object();
  j.key("host").value(report.host);
  j.key("ok").value(report.ok());
  j.key("checks").begin_array();
  for (const auto& r : report.checks) {
    j.begin_object();
    j.key("id").value(r.id);
    j.key("subject").value(r.subject);
    j.key("status").value(to_string(r.status));
    j.key("expected").value(r.expected);
    j.key("observed").value(r.observed);
    j.key("message").value(r.message);
    if (r.value) {
      j.key("value").value(*r.value);
      j.key("unit").value(r.unit);
    }
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.take_line();
}

std::string report_to_text(const Report& report)
{
  size_t id_w = 2;
  size_t subject_w = 7;
  for (const auto& r : report.checks) {
    id_w = std::max(id_w, r.id.size());
    subject_w = std::max(subject_w, util::escape_text(r.subject).size());
  }
  std::ostringstream out;
  size_t counts[4] = {0, 0, 0, 0};
  auto row = [&](const std::string& status, const std::string& id, const std::string& subject,
                 const std::string& message) {
    out << status << std::string(8 - std::min<size_t>(8, status.size()), ' ') << id
        << std::string(id_w + 2 - id.size(), ' ') << subject
        << std::string(subject_w + 2 - subject.size(), ' ') << message << '\n';
  };
  row("STATUS", "ID", "SUBJECT", "RESULT");
  for (const auto& r : report.checks) {
    ++counts[static_cast<int>(r.status)];
    // Subjects and messages quote sysfs, netlink and peers: escaped, they stay on their row.
    row(to_string(r.status), r.id, util::escape_text(r.subject), util::escape_text(r.message));
  }
  out << util::escape_text(report.host) << ": " << (report.ok() ? "ok" : "FAILED") << " ("
      << counts[0] << " passed, " << counts[1] << (counts[1] == 1 ? " warning, " : " warnings, ")
      << counts[2] << " failed, " << counts[3] << " skipped)\n";
  return out.str();
}

std::string report_to_nhc(const Report& report)
{
  std::ostringstream out;
  for (const auto& r : report.checks) {
    if (r.status == Status::fail) {
      out << "ERROR:  ibsetup:  Health check failed:  " << util::escape_text(r.message) << '\n';
    } else if (r.status == Status::warn) {
      out << "WARNING:  ibsetup:  " << util::escape_text(r.message) << '\n';
    }
  }
  return out.str();
}

}  // namespace ibsetup::check
