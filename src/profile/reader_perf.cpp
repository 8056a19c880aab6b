// checks.bandwidth and checks.latency of a node group: the thresholds of rdma.bandwidth and
// rdma.latency (issue 17).
#include "profile/reader.hpp"

#include <cmath>

namespace ibsetup::profile::detail {

namespace {

// A number in (low, high], reported at its own position otherwise.
Setting<double> read_bounded(const Entry& e, double low, double high, const std::string& range,
                             Diagnostics& diags)
{
  auto v = read_number(e, diags);
  if (v && (!std::isfinite(*v) || *v <= low || *v > high)) {
    diags.error(e.value_mark, e.path, "must be " + range);
    return {};
  }
  return v;
}

}  // namespace

void read_perf_checks(const Entry* bandwidth, const Entry* latency, Group& group,
                      Diagnostics& diags)
{
  if (bandwidth != nullptr) {
    MapReader m(bandwidth->value, bandwidth->path, bandwidth->value_mark, diags,
                {"min_fraction", "min_gbps"});
    if (const auto* f = m.get("min_fraction")) {
      group.bandwidth_min_fraction =
          read_bounded(*f, 0, 1, "above 0 and at most 1 (of the slower port's rate)", diags);
    }
    if (const auto* g = m.get("min_gbps")) {
      group.bandwidth_min_gbps =
          read_bounded(*g, 0, 100000, "a rate in Gb/s above 0 and at most 100000", diags);
    }
  }
  if (latency != nullptr) {
    MapReader m(latency->value, latency->path, latency->value_mark, diags, {"max_us"});
    if (const auto* u = m.get("max_us")) {
      group.latency_max_us =
          read_bounded(*u, 0, 1e7, "microseconds above 0 and at most 10000000", diags);
    }
  }
}

}  // namespace ibsetup::profile::detail
