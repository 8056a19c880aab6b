// A fleet report as Prometheus gauges, for a textfile on the head node or a Pushgateway: host
// counts by outcome, by failing check id, by firmware version and port rate, and each host's
// verdict (the host label is needed here: every host's series comes from one file).
#include <ibsetup/fleet.hpp>

#include "check/metrics_writer.hpp"
#include "fleet/fleet_lines.hpp"

#include <chrono>
#include <map>
#include <set>

namespace ibsetup::check {

namespace {

using metrics::Exposition;

void count_by_id(Exposition& m, const std::string& name, const std::vector<FailureGroup>& groups)
{
  // A check id can head several groups (one per message kind); a host counts once per id.
  std::map<std::string, std::set<std::string>> hosts;
  for (const auto& g : groups) {
    hosts[g.id].insert(g.hosts.begin(), g.hosts.end());
  }
  for (const auto& h : hosts) {
    m.set(name, {{"id", h.first}}, static_cast<double>(h.second.size()));
  }
}

}  // namespace

std::string fleet_to_metrics(const FleetSummary& s, double now_s)
{
  Exposition m;
  m.gauges({
      {"ibsetup_fleet_ok",
       "1 when every expected host answered and passed and no other host failed or printed an "
       "invalid result."},
      {"ibsetup_fleet_timestamp_seconds", "When the fleet report was made (Unix time)."},
      {"ibsetup_fleet_hosts",
       "Hosts by outcome: passed, failed, invalid (no valid result), no_answer."},
      {"ibsetup_fleet_unexpected_hosts", "Hosts in the input that were not expected."},
      {"ibsetup_fleet_duplicated_hosts", "Hosts that printed more than one result."},
      {"ibsetup_fleet_unnamed_invalid_lines",
       "Bare lines begun like a result that are not one and name no host."},
      {"ibsetup_fleet_check_failed_hosts", "Hosts whose results of this check id failed."},
      {"ibsetup_fleet_check_warning_hosts", "Hosts whose results of this check id warned."},
      {"ibsetup_fleet_firmware_hosts", "Hosts reporting this HCA firmware (hca.firmware)."},
      {"ibsetup_fleet_port_rate_hosts", "Hosts reporting this port rate (port.rate)."},
      {"ibsetup_fleet_host_ok", "1 when this host answered and passed, else 0."},
  });

  m.set("ibsetup_fleet_ok", {}, s.ok() ? 1 : 0);
  m.set("ibsetup_fleet_timestamp_seconds", {}, now_s);
  const std::pair<const char*, const std::vector<std::string>*> outcomes[] = {
      {"passed", &s.passed},
      {"failed", &s.failed},
      {"invalid", &s.invalid},
      {"no_answer", &s.no_answer}};
  for (const auto& o : outcomes) {
    m.set("ibsetup_fleet_hosts", {{"outcome", o.first}}, static_cast<double>(o.second->size()));
    for (const auto& host : *o.second) {
      m.set("ibsetup_fleet_host_ok", {{"host", host}}, o.second == &s.passed ? 1 : 0);
    }
  }
  m.set("ibsetup_fleet_unexpected_hosts", {}, static_cast<double>(s.unexpected.size()));
  m.set("ibsetup_fleet_duplicated_hosts", {}, static_cast<double>(s.duplicated.size()));
  m.set("ibsetup_fleet_unnamed_invalid_lines", {},
        static_cast<double>(unnamed_results(s.unattributed)));
  count_by_id(m, "ibsetup_fleet_check_failed_hosts", s.failures);
  count_by_id(m, "ibsetup_fleet_check_warning_hosts", s.warnings);
  for (const auto& v : s.firmware) {
    m.set("ibsetup_fleet_firmware_hosts", {{"version", v.value}},
          static_cast<double>(v.hosts.size()));
  }
  for (const auto& v : s.rates) {
    m.set("ibsetup_fleet_port_rate_hosts", {{"rate", v.value}},
          static_cast<double>(v.hosts.size()));
  }
  return m.str();
}

std::string fleet_to_metrics(const FleetSummary& summary)
{
  return fleet_to_metrics(
      summary,
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count());
}

}  // namespace ibsetup::check
