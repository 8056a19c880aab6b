// The live backend's JSON report (no libnm: part of the core library).
#include <ibsetup/nm.hpp>

#include "common/json.hpp"

namespace ibsetup::nm {

std::string report_to_json(const Report& report)
{
  JsonWriter j;
  j.begin_object();
  j.key("host").value(report.host);
  j.key("backend").value("networkmanager");
  j.key("ok").value(report.ok());
  j.key("changes").value(static_cast<uint64_t>(report.changes));
  auto list = [&j](const char* key, const std::vector<std::string>& items) {
    j.key(key).begin_array();
    for (const auto& i : items) {
      j.value(i);
    }
    j.end_array();
  };
  list("done", report.done);
  list("unchanged", report.unchanged);
  j.key("foreign").begin_array();
  for (const auto& f : report.foreign) {
    j.begin_object();
    j.key("interface").value(f.interface);
    j.key("id").value(f.id);
    j.key("uuid").value(f.uuid);
    j.key("saved");
    if (f.saved.empty()) {
      j.null();
    } else {
      j.value(f.saved);
    }
    j.end_object();
  }
  j.end_array();
  list("rollback", report.rollback);
  j.key("checkpoint");
  if (report.checkpoint.empty()) {
    j.null();
  } else {
    j.value(report.checkpoint);
  }
  j.key("failure");
  if (report.failure.empty()) {
    j.null();
  } else {
    j.value(report.failure);
  }
  j.end_object();
  return j.str() + "\n";
}

}  // namespace ibsetup::nm
