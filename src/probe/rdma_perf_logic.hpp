// The parts of rdma.bandwidth and rdma.latency that need no RDMA library: the threshold a
// measurement is judged against, latency statistics, the NUMA cpulist, the messages, and the
// session request the responder validates. Unit-tested without a device.
#pragma once

#include <ibsetup/profile.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ibsetup::check::rdma {

// Session kinds a client asks the responder for in its connection's private data.
enum class SessionKind : uint8_t { pingpong = 0, bandwidth = 1, latency = 2 };

// Limits the responder holds every request to: what a session may make it allocate and how
// long it may last. The client's options are refused beyond them too.
constexpr uint32_t k_max_bw_size = 8u << 20;   // azurehpc's largest ib_write_bw message
constexpr uint32_t k_max_lat_size = 1u << 16;  // far above a latency test's few bytes
constexpr int k_max_bw_duration_s = 30;
constexpr int k_max_bw_qps = 8;
constexpr int k_max_lat_iters = 1000000;

// What a client asks for (kind, message size, duration). Fixed-size and in network byte
// order on the wire, inside the 56 bytes of private data an RC connect request carries.
struct SessionRequest {
  SessionKind kind = SessionKind::pingpong;
  uint32_t size = 0;
  uint32_t duration_s = 0;
};
constexpr size_t k_request_bytes = 16;
void encode_request(const SessionRequest& request, unsigned char out[k_request_bytes]);
// nullopt: no ibsetup request (an older client's ping-pong sends none: treat as pingpong).
std::optional<SessionRequest> decode_request(const unsigned char* data, size_t length);
// Empty when the responder may serve it, else why not ("size 9000000 above 8388608").
std::string request_problem(const SessionRequest& request);

// What the responder answers in its accept's private data: its port's rate and, for a
// bandwidth session, where the client may write.
struct SessionReply {
  double rate_gbps = 0;  // 0: unknown
  uint64_t address = 0;
  uint32_t rkey = 0;
};
constexpr size_t k_reply_bytes = 32;
void encode_reply(const SessionReply& reply, unsigned char out[k_reply_bytes]);
std::optional<SessionReply> decode_reply(const unsigned char* data, size_t length);

// The bandwidth a measurement must reach and how to say it.
struct Threshold {
  std::optional<double> min_gbps;  // nullopt: no rate known and none configured: any > 0
  std::string expected;            // "at least 180 Gb/s (90% of 200)"
  std::string brief;               // "at least 180 (90% of 200)", for the message
};
// From the profile's checks.bandwidth (min_gbps wins over min_fraction), else 90% of the
// slower of the two ports' rates (either may be unknown).
Threshold bandwidth_threshold(const profile::CheckSpec& spec, std::optional<double> local_gbps,
                              std::optional<double> peer_gbps);

// Gb/s of bytes moved in seconds.
double gbps(uint64_t bytes, double seconds);
// "187.2", "180", "2.25", "0.0123": short, and exact enough to compare with a threshold.
std::string format_number(double value);

// Nearest-rank percentile (0 < p <= 1) of values, which it sorts; 0 when empty.
double percentile(std::vector<double>& values, double p);

// "0-3,8-11" -> {0,1,2,3,8,9,10,11}: a node's cpulist as the kernel prints it, ranges and
// single CPUs ascending and apart, each at most k_max_cpu. Empty on anything else.
constexpr int k_max_cpu = 65535;
std::vector<int> parse_cpulist(const std::string& text);

}  // namespace ibsetup::check::rdma
