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

// Hosts by label value as printed: two values that print alike (control characters become
// U+FFFD) are one series, whose count is of both values' hosts, not the larger of the two.
class HostsByLabel {
public:
  void add(const std::string& value, const std::vector<std::string>& hosts)
  {
    auto& entry = m_by_printed[metrics::escape_label_value(value)];
    if (entry.hosts.empty()) {
      entry.value = value;
    }
    entry.hosts.insert(hosts.begin(), hosts.end());
  }

  void set(Exposition& m, const std::string& name, const std::string& label) const
  {
    for (const auto& [printed, entry] : m_by_printed) {
      m.set(name, {{label, entry.value}}, static_cast<double>(entry.hosts.size()));
    }
  }

private:
  struct Entry {
    std::string value;
    std::set<std::string> hosts;
  };
  std::map<std::string, Entry> m_by_printed;
};

void count_by_id(Exposition& m, const std::string& name, const std::vector<FailureGroup>& groups)
{
  // A check id can head several groups (one per message kind); a host counts once per id.
  HostsByLabel hosts;
  for (const auto& g : groups) {
    hosts.add(g.id, g.hosts);
  }
  hosts.set(m, name, "id");
}

void count_by_value(Exposition& m, const std::string& name, const std::string& label,
                    const std::vector<ValueCount>& counts)
{
  HostsByLabel hosts;
  for (const auto& v : counts) {
    hosts.add(v.value, v.hosts);
  }
  hosts.set(m, name, label);
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
  count_by_value(m, "ibsetup_fleet_firmware_hosts", "version", s.firmware);
  count_by_value(m, "ibsetup_fleet_port_rate_hosts", "rate", s.rates);
  return m.str();
}

std::string fleet_to_metrics(const FleetSummary& summary)
{
  return fleet_to_metrics(
      summary,
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count());
}

}  // namespace ibsetup::check
