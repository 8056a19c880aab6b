#include "probe/rdma_perf_logic.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace ibsetup::check::rdma {

namespace {

// The tag that tells an ibsetup session request or reply from an older peer's zero padding.
constexpr unsigned char k_magic[4] = {'I', 'B', 'S', '1'};

void put32(unsigned char* p, uint32_t v)
{
  for (int i = 0; i < 4; ++i) {
    p[i] = static_cast<unsigned char>(v >> (24 - 8 * i));
  }
}

uint32_t get32(const unsigned char* p)
{
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

void put64(unsigned char* p, uint64_t v)
{
  put32(p, static_cast<uint32_t>(v >> 32));
  put32(p + 4, static_cast<uint32_t>(v));
}

uint64_t get64(const unsigned char* p)
{
  return (uint64_t{get32(p)} << 32) | get32(p + 4);
}

// A CPU number of a cpulist: decimal digits only (no sign, no space), at most k_max_cpu.
std::optional<int> cpu_number(std::string_view s)
{
  if (s.empty() || s.size() > 5 || s.find_first_not_of("0123456789") != std::string_view::npos) {
    return std::nullopt;
  }
  int value = 0;
  for (const char c : s) {
    value = value * 10 + (c - '0');
  }
  if (value > k_max_cpu) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

void encode_request(const SessionRequest& request, unsigned char out[k_request_bytes])
{
  std::memset(out, 0, k_request_bytes);
  std::memcpy(out, k_magic, sizeof k_magic);
  out[4] = static_cast<unsigned char>(request.kind);
  put32(out + 8, request.size);
  put32(out + 12, request.duration_s);
}

std::optional<SessionRequest> decode_request(const unsigned char* data, size_t length)
{
  if (data == nullptr || length < k_request_bytes ||
      std::memcmp(data, k_magic, sizeof k_magic) != 0) {
    return std::nullopt;
  }
  SessionRequest r;
  r.kind = static_cast<SessionKind>(data[4]);
  r.size = get32(data + 8);
  r.duration_s = get32(data + 12);
  return r;
}

std::string request_problem(const SessionRequest& r)
{
  switch (r.kind) {
  case SessionKind::pingpong:
    return "";
  case SessionKind::bandwidth:
    if (r.size == 0 || r.size > k_max_bw_size) {
      return "bandwidth message size " + std::to_string(r.size) + " not 1 to " +
             std::to_string(k_max_bw_size);
    }
    if (r.duration_s == 0 || r.duration_s > static_cast<uint32_t>(k_max_bw_duration_s)) {
      return "bandwidth duration " + std::to_string(r.duration_s) + " s not 1 to " +
             std::to_string(k_max_bw_duration_s);
    }
    return "";
  case SessionKind::latency:
    if (r.size == 0 || r.size > k_max_lat_size) {
      return "latency message size " + std::to_string(r.size) + " not 1 to " +
             std::to_string(k_max_lat_size);
    }
    return "";
  }
  return "unknown session kind " + std::to_string(static_cast<int>(r.kind));
}

void encode_reply(const SessionReply& reply, unsigned char out[k_reply_bytes])
{
  std::memset(out, 0, k_reply_bytes);
  std::memcpy(out, k_magic, sizeof k_magic);
  // Mb/s as an integer: no floating point on the wire.
  put32(out + 4, static_cast<uint32_t>(std::lround(std::max(0.0, reply.rate_gbps) * 1000)));
  put64(out + 8, reply.address);
  put32(out + 16, reply.rkey);
}

std::optional<SessionReply> decode_reply(const unsigned char* data, size_t length)
{
  if (data == nullptr || length < k_reply_bytes ||
      std::memcmp(data, k_magic, sizeof k_magic) != 0) {
    return std::nullopt;
  }
  SessionReply r;
  r.rate_gbps = get32(data + 4) / 1000.0;
  r.address = get64(data + 8);
  r.rkey = get32(data + 16);
  return r;
}

Threshold bandwidth_threshold(const profile::CheckSpec& spec, std::optional<double> local_gbps,
                              std::optional<double> peer_gbps)
{
  Threshold t;
  if (spec.bandwidth_min_gbps) {
    t.min_gbps = *spec.bandwidth_min_gbps;
    t.expected = "at least " + format_number(*t.min_gbps) + " Gb/s";
    t.brief = "at least " + format_number(*t.min_gbps);
    return t;
  }
  const double fraction = spec.bandwidth_min_fraction.value_or(0.9);
  std::optional<double> rate;
  bool from_peer = false;
  for (const auto& r : {local_gbps, peer_gbps}) {
    if (r && *r > 0 && (!rate || *r < *rate)) {
      from_peer = rate.has_value() || !local_gbps || *local_gbps <= 0;
      rate = r;
    }
  }
  if (!rate) {
    t.expected = "a measured bandwidth (port rate unknown: set checks.bandwidth.min_gbps)";
    t.brief = t.expected;
    return t;
  }
  t.min_gbps = fraction * *rate;
  // The peer's rate is what its responder says: a threshold it lowered says so, so that a
  // pass against a lower rate than this port's is seen for what it is.
  const std::string of = " (" + format_number(fraction * 100) + "% of " + format_number(*rate) +
                         (from_peer ? ", the peer's port rate" : "") + ")";
  t.expected = "at least " + format_number(*t.min_gbps) + " Gb/s" + of;
  t.brief = "at least " + format_number(*t.min_gbps) + of;
  return t;
}

double gbps(uint64_t bytes, double seconds)
{
  return seconds > 0 ? static_cast<double>(bytes) * 8 / seconds / 1e9 : 0;
}

std::string format_number(double value)
{
  char buf[64];
  const double a = std::fabs(value);
  if (a >= 100) {
    std::snprintf(buf, sizeof buf, "%.1f", value);
  } else if (a >= 1) {
    std::snprintf(buf, sizeof buf, "%.2f", value);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g", value);
  }
  std::string s = buf;
  if (s.find('.') != std::string::npos && s.find('e') == std::string::npos) {
    while (s.back() == '0') {
      s.pop_back();
    }
    if (s.back() == '.') {
      s.pop_back();
    }
  }
  return s;
}

double percentile(std::vector<double>& values, double p)
{
  if (values.empty()) {
    return 0;
  }
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<size_t>(std::ceil(p * static_cast<double>(values.size())));
  return values[std::min(values.size(), std::max<size_t>(rank, 1)) - 1];
}

std::vector<int> parse_cpulist(const std::string& text)
{
  std::string_view t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) {
    t.remove_suffix(1);
  }
  std::vector<int> out;
  if (t.empty()) {
    return out;
  }
  // The kernel prints its ranges ascending and apart (bitmap_print_to_pagebuf). Holding a
  // tree's file to that bounds the work and the list to k_max_cpu + 1 entries: "0-65535"
  // repeated through a captured tree's file would otherwise make one entry per CPU per range.
  size_t pos = 0;
  while (pos <= t.size()) {
    const size_t comma = std::min(t.find(',', pos), t.size());
    const std::string_view part = t.substr(pos, comma - pos);
    const size_t dash = part.find('-');
    const auto first = cpu_number(part.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : cpu_number(part.substr(dash + 1));
    if (!first || !last || *last < *first || (!out.empty() && *first <= out.back())) {
      return {};
    }
    for (int c = *first; c <= *last; ++c) {
      out.push_back(c);
    }
    pos = comma + 1;
  }
  return out;
}

}  // namespace ibsetup::check::rdma
