// A check's outcome as Prometheus gauges: the verdict per result, and the numbers the checks
// read or measured, in the base units Prometheus and node_exporter use (bytes per second,
// seconds, transfers per second), so that they compare with node_infiniband_* directly.
#include <ibsetup/check.hpp>

#include "check/metrics_writer.hpp"

#include <algorithm>
#include <limits>
#include <string>

namespace ibsetup::check {

namespace {

using metrics::Exposition;
using metrics::Labels;

constexpr double k_bytes_per_gbit = 1e9 / 8;

void declare(Exposition& m)
{
  m.gauges({
      {"ibsetup_check_ok", "1 when the node passed its check (no result failed), else 0."},
      {"ibsetup_check_failed", "1 when the result of this check id and subject failed."},
      {"ibsetup_check_warning", "1 when the result of this check id and subject warned."},
      {"ibsetup_check_timestamp_seconds", "When the check's verdict was in (Unix time)."},
      {"ibsetup_check_duration_seconds", "How long the check ran."},
      {"ibsetup_check_host_info", "The node name the check judged, from the profile."},
      {"ibsetup_check_value",
       "The number a result measured, in the unit of its label (as check --json says)."},
      {"ibsetup_hca_info", "An HCA with its firmware version and type; always 1."},
      {"ibsetup_port_state", "Port state as the kernel numbers it (4 ACTIVE, 1 DOWN)."},
      {"ibsetup_port_physical_state",
       "Port physical state as the kernel numbers it (5 LinkUp, 2 Polling, 3 Disabled)."},
      {"ibsetup_port_rate_bytes_per_second",
       "Port data rate; 0 while the port is not ACTIVE (the kernel's rate is then meaningless)."},
      {"ibsetup_port_lid", "The port's LID (0: none assigned)."},
      {"ibsetup_port_sm_lid", "The LID of the port's subnet manager (0: none seen)."},
      {"ibsetup_port_counters", "A port counter as read from sysfs counters/."},
      {"ibsetup_port_counters_saturated",
       "1 when the port counter is stuck at its maximum (short counters do not wrap)."},
      {"ibsetup_pcie_link_width", "The HCA's negotiated PCIe link width (lanes)."},
      {"ibsetup_pcie_link_max_width", "The HCA's maximum PCIe link width (lanes)."},
      {"ibsetup_pcie_link_transfers_per_second", "The HCA's negotiated PCIe link speed."},
      {"ibsetup_pcie_link_max_transfers_per_second", "The HCA's maximum PCIe link speed."},
      {"ibsetup_rdma_bandwidth_bytes_per_second",
       "RDMA bandwidth measured by the rdma.bandwidth check."},
      {"ibsetup_rdma_latency_seconds", "Median RDMA latency measured by the rdma.latency check."},
  });
}

void add_host(Exposition& m, const inventory::Host& host)
{
  for (const auto& d : host.devices) {
    m.set("ibsetup_hca_info",
          {{"device", d.name}, {"fw", d.fw_ver.value_or("")}, {"type", d.hca_type.value_or("")}},
          1);
    if (d.pci) {
      const Labels l{{"device", d.name}};
      const auto& pci = *d.pci;
      if (pci.link_width) {
        m.set("ibsetup_pcie_link_width", l, *pci.link_width);
      }
      if (pci.max_link_width) {
        m.set("ibsetup_pcie_link_max_width", l, *pci.max_link_width);
      }
      if (pci.link_speed_gts) {
        m.set("ibsetup_pcie_link_transfers_per_second", l, *pci.link_speed_gts * 1e9);
      }
      if (pci.max_link_speed_gts) {
        m.set("ibsetup_pcie_link_max_transfers_per_second", l, *pci.max_link_speed_gts * 1e9);
      }
    }
    for (const auto& p : d.ports) {
      // Every port always has its series, with 0 for what it lacks: a port that went down
      // must show as 0, not vanish from the dashboards and alerts.
      const Labels l{{"device", d.name}, {"port", std::to_string(p.port)}};
      const int state = p.state_code.value_or(0);
      const bool active = state == 4 || state == 5;  // ACTIVE, ACTIVE_DEFER
      m.set("ibsetup_port_state", l, state);
      m.set("ibsetup_port_physical_state", l, p.phys_state_code.value_or(0));
      m.set("ibsetup_port_rate_bytes_per_second", l,
            active ? p.rate_gbps.value_or(0) * k_bytes_per_gbit : 0);
      m.set("ibsetup_port_lid", l, p.lid.value_or(0));
      m.set("ibsetup_port_sm_lid", l, p.sm_lid.value_or(0));
      for (const auto& c : p.counters) {
        Labels cl = l;
        cl.emplace_back("counter", c.first);
        m.set("ibsetup_port_counters", cl, static_cast<double>(c.second));
        const bool stuck =
            std::find(p.saturated.begin(), p.saturated.end(), c.first) != p.saturated.end();
        m.set("ibsetup_port_counters_saturated", cl, stuck ? 1 : 0);
      }
    }
  }
}

// A declared port the host no longer shows (the port or its whole HCA gone) keeps its series at
// 0, as a port that is there but down does.
void add_missing_ports(Exposition& m, const CheckOutcome& outcome)
{
  for (const auto& dp : outcome.declared_ports) {
    const bool seen =
        std::any_of(outcome.host->devices.begin(), outcome.host->devices.end(), [&](const auto& d) {
          return d.name == dp.first &&
                 std::any_of(d.ports.begin(), d.ports.end(),
                             [&](const auto& p) { return p.port == dp.second; });
        });
    if (seen) {
      continue;
    }
    const Labels l{{"device", dp.first}, {"port", std::to_string(dp.second)}};
    for (const char* family :
         {"ibsetup_port_state", "ibsetup_port_physical_state", "ibsetup_port_rate_bytes_per_second",
          "ibsetup_port_lid", "ibsetup_port_sm_lid"}) {
      m.set(family, l, 0);
    }
  }
}

void add_result(Exposition& m, const Result& r)
{
  const Labels l{{"id", r.id}, {"subject", r.subject}};
  m.set("ibsetup_check_failed", l, r.status == Status::fail ? 1 : 0);
  m.set("ibsetup_check_warning", l, r.status == Status::warn ? 1 : 0);
  if (r.value) {
    m.set("ibsetup_check_value", {{"id", r.id}, {"subject", r.subject}, {"unit", r.unit}},
          *r.value);
  }
  // A measurement that did not happen (no peer answered, the check skipped) keeps its series as
  // NaN: a 0 would read as the worst bandwidth or the best latency, and fire or hide alerts.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (r.id == "rdma.bandwidth") {
    m.set("ibsetup_rdma_bandwidth_bytes_per_second", {{"subject", r.subject}},
          r.value && r.unit == "Gb/s" ? *r.value * k_bytes_per_gbit : nan);
  } else if (r.id == "rdma.latency") {
    m.set("ibsetup_rdma_latency_seconds", {{"subject", r.subject}},
          r.value && r.unit == "us" ? *r.value / 1e6 : nan);
  }
}

}  // namespace

std::string outcome_to_metrics(const CheckOutcome& outcome)
{
  Exposition m;
  declare(m);
  m.set("ibsetup_check_ok", {}, outcome.report.ok() ? 1 : 0);
  m.set("ibsetup_check_timestamp_seconds", {}, outcome.finished_s);
  m.set("ibsetup_check_duration_seconds", {}, outcome.duration_s);
  m.set("ibsetup_check_host_info", {{"host", outcome.report.host}}, 1);
  for (const auto& r : outcome.report.checks) {
    add_result(m, r);
  }
  if (outcome.host) {
    add_host(m, *outcome.host);
    add_missing_ports(m, outcome);
  }
  return m.str();
}

}  // namespace ibsetup::check
