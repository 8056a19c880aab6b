// The parts of the RDMA checks that need no RDMA library: what to check for a node, deadline
// accounting for the event loop, and the messages. Unit-tested without a device.
#pragma once

#include <ibsetup/address.hpp>
#include <ibsetup/profile.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace ibsetup::check::rdma {

using Clock = std::chrono::steady_clock;

// One HCA port to open and query. device is empty when the HCA was declared by PCI address
// only (pci is then set). port 0 stands for every port of the device (an HCA declared without
// ports).
struct DevicePort {
  std::string device;
  std::string pci;
  int port = 0;
  bool operator==(const DevicePort& o) const
  {
    return device == o.device && pci == o.pci && port == o.port;
  }
};

// The node's HCA ports, from hcas[] and from interfaces bound to a device, each once, in
// declaration order.
std::vector<DevicePort> declared_ports(const profile::ResolvedNode& node);

// One peer address to resolve, with this node's own address on the same interface (the source
// address, so that the route leaves through that interface) when the profile gives one.
struct Target {
  std::string host;
  std::string interface;
  IpAddress address;
  std::optional<IpAddress> source;
};

// Every address of every peer, in profile order. Peers without any address on an interface
// this node has are listed in *unaddressed.
std::vector<Target> peer_targets(const profile::ResolvedNode& node,
                                 std::vector<std::string>* unaddressed);

// A budget in milliseconds counted from a start time.
class Deadline {
public:
  Deadline() = default;
  Deadline(Clock::time_point start, int budget_ms)
      : m_start(start), m_end(start + std::chrono::milliseconds(budget_ms)), m_budget_ms(budget_ms)
  {
  }
  // Milliseconds left, rounded up so that poll() does not wake before the end; 0 when over.
  int remaining_ms(Clock::time_point now) const;
  bool expired(Clock::time_point now) const { return now >= m_end; }
  int budget_ms() const { return m_budget_ms; }
  Clock::time_point start() const { return m_start; }
  Clock::time_point end() const { return m_end; }

private:
  Clock::time_point m_start;
  Clock::time_point m_end;
  int m_budget_ms = 0;
};

// The poll() timeout that wakes at the earliest of the deadlines: -1 (wait forever) when there
// is none, 0 when one is already over.
int poll_timeout_ms(const std::vector<Deadline>& deadlines, Clock::time_point now);

// Whole milliseconds from start to now, rounded down.
long elapsed_ms(Clock::time_point start, Clock::time_point now);

// A short duration for people: "85 us", "1.25 ms", "12.5 ms", "250 ms".
std::string format_duration(std::chrono::nanoseconds duration);

// "(RDMA_CM_EVENT_ADDR_ERROR: Connection timed out)"-style detail of a failed CM event:
// event_name is rdma_event_str(), status the event's status (a negative errno for address and
// route errors; the IB CM reject reason for REJECTED).
std::string event_detail(const std::string& event_name, int status, bool is_reject);

// Text of the InfiniBand CM reject reasons a ping-pong can meet (IBTA 12.6.7.2).
std::string reject_reason_text(int reason);

// rdma.route failures.
// timed_out: the deadline passed (ours, or the kernel's with ETIMEDOUT):
//   "cn064: RDMA route to 10.10.0.64 not resolved within 1000 ms (DETAIL)"
// otherwise the resolution failed early:
//   "cn064: RDMA route to 10.10.0.64 failed after 3 ms (DETAIL)"
std::string route_failure_message(const Target& target, bool timed_out, int budget_ms, long elapsed,
                                  const std::string& detail);

// rdma.pingpong failures, worded the same way ("RDMA ping-pong with 10.10.0.64 port 18515").
std::string pingpong_failure_message(const Target& target, int port, bool timed_out, int budget_ms,
                                     long elapsed, const std::string& detail);

// The subject of a peer-address result: the host, plus the interface when it has several
// addresses ("cn064", "cn064/ib0.8001").
std::string target_subject(const Target& target, bool several);

}  // namespace ibsetup::check::rdma
