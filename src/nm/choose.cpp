// Backend "auto" and the live backend's JSON report.
#include <ibsetup/json.hpp>
#include <ibsetup/nm.hpp>

#include "nm/client.hpp"

namespace ibsetup::nm {

BackendChoice choose_backend(const profile::ResolvedNode& node)
{
  std::unique_ptr<Client> client;
  try {
    client = std::make_unique<Client>(5);
  } catch (const CallError& e) {
    return {false, std::string("netlink: ") + e.what()};
  }
  if (!client->running()) {
    return {false, "netlink: NetworkManager is not running"};
  }
  for (const auto& i : node.interfaces) {
    // A pkey child is managed through its parent; a device NM has not seen does not decide.
    const std::string& base = i.parent ? *i.parent : i.name;
    NMDevice* d = client->device(base);
    if (d != nullptr && !nm_device_get_managed(d)) {
      return {false, "netlink: NetworkManager is running but does not manage " + base};
    }
  }
  return {true, "networkmanager: NetworkManager is running and manages the declared interfaces"};
}

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
