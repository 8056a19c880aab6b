// The responder's event loop, shared by its two halves: rdma_responder.cpp (connections and
// the loop) and rdma_responder_sessions.cpp (what each session does with its completions).
#pragma once

#include "os/rdma_dl.hpp"
#include "probe/rdma_device_watch.hpp"
#include "probe/rdma_endpoint.hpp"
#include "probe/rdma_logic.hpp"
#include "probe/rdma_perf.hpp"
#include "probe/rdma_perf_endpoint.hpp"

#include <ibsetup/rdma_check.hpp>

#include <arpa/inet.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace ibsetup::check::responder {

using rdma::Clock;
using rdma::Deadline;
using rdma::SessionKind;

struct Connection {
  rdma_cm_id* id = nullptr;
  SessionKind kind = SessionKind::pingpong;
  uint32_t size = 0;
  std::unique_ptr<rdma::Endpoint> endpoint;  // ping-pong
  std::unique_ptr<rdma::PerfEndpoint> perf;  // bandwidth, latency
  std::string peer;
  Deadline idle;
  Deadline cap;
  Clock::time_point started;
  // A latency session's last message (or its start): it is busy-polled only right after one.
  Clock::time_point last_recv;
  uint64_t echoes = 0;  // a latency session's, or a ping-pong session's echoes
  // Ping-pong echoes posted whose completion has not been read yet.
  uint32_t sends = 0;
  // This responder's number for the connection: an rdma_cm_id freed by drop() is often the
  // next connection's, so a pointer does not say which connection a polled descriptor was.
  uint64_t serial = 0;
  // A ping-pong client disconnected with echoes in flight: served until then (or until they
  // complete) from the main loop, which no single client may hold.
  std::optional<Deadline> closing;
};

// Milliseconds for a Deadline, whose budget is an int: what a library caller passes in
// seconds (ResponderOptions) may be more than an int of milliseconds holds.
inline int clamp_ms(long long ms)
{
  return static_cast<int>(std::clamp<long long>(ms, 0, std::numeric_limits<int>::max()));
}

// How long a disconnected ping-pong session waits for its last echo's completion: the QP stays
// connected until drop(), so a completion the disconnect overtook still arrives.
constexpr auto k_closing_wait = std::chrono::milliseconds(200);

// Receives a latency session keeps posted: the echo goes out before its receive is posted again.
constexpr int k_lat_recvs = 2;

// A latency session is busy-polled for this long after its last message: a measuring client
// sends back to back, so the spin lasts its run; a client that only trickles messages in
// must not pin a core for the session's whole time cap.
constexpr auto k_lat_spin = std::chrono::milliseconds(1);
// Out of the spin, the CQs (which have no completion channel) are looked at after naps this
// long: short for a second after a message, longer after that.
constexpr int k_lat_nap_recent_ms = 1;
constexpr int k_lat_nap_ms = 10;
constexpr auto k_lat_recent = std::chrono::seconds(1);

// How often the responder lists the RDMA devices again (rdma_device_watch.hpp says why).
constexpr auto k_device_sync = std::chrono::seconds(1);
// The longest latency sessions may put that off.
constexpr auto k_device_sync_most = std::chrono::seconds(5);

inline const char* kind_name(SessionKind kind)
{
  return kind == SessionKind::bandwidth ? "bandwidth"
         : kind == SessionKind::latency ? "latency"
                                        : "ping-pong";
}

class Responder {
public:
  Responder(const ResponderOptions& options, const std::function<void(const std::string&)>& log,
            const std::atomic<bool>* stop = nullptr)
      : m_options(options), m_log(log), m_stop(stop)
  {
  }
  ~Responder()
  {
    while (!m_connections.empty()) {
      drop(m_connections.begin()->first, "");
    }
    if (m_listener != nullptr) {
      rdma_destroy_id(m_listener);
    }
    if (m_channel != nullptr) {
      rdma_destroy_event_channel(m_channel);
    }
  }
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;

  void listen();
  int serve();
  uint16_t port() const { return ntohs(rdma_get_src_port(m_listener)); }

private:
  void on_event(rdma_cm_id* id, rdma_cm_event_type type,
                const std::optional<rdma::SessionRequest>& request);
  void accept(rdma_cm_id* id, const std::optional<rdma::SessionRequest>& request);
  void refuse(rdma_cm_id* id, const std::string& peer, const std::string& why);
  // closing: the peer has gone; only echoes already sent are counted, nothing is posted.
  void on_completions(Connection& c, bool closing = false);
  // False when the connection was dropped.
  bool spin(Connection& c);
  // True when a latency session had a message within k_lat_spin.
  bool spin_latency_sessions();
  // How long serve() may block before the latency sessions' CQs are looked at again; -1: none.
  int latency_nap_ms(Clock::time_point now) const;
  void finished(const Connection& c);
  void echoed(Connection& c, uint32_t bytes);
  void drop(rdma_cm_id* id, const std::string& why);
  // Whether a latency session had a message within k_lat_recent.
  bool latency_recent(Clock::time_point now) const;
  void expire(Clock::time_point now);
  // Connections waiting for a disconnected client's last echo (closing), or the others.
  size_t count(bool closing) const;

  const ResponderOptions& m_options;
  const std::function<void(const std::string&)>& m_log;
  const std::atomic<bool>* m_stop;
  rdma_event_channel* m_channel = nullptr;
  rdma_cm_id* m_listener = nullptr;
  std::map<rdma_cm_id*, Connection> m_connections;
  uint64_t m_next_serial = 0;
  rdma::DeviceWatch m_devices{m_options.sysfs_root};
  Clock::time_point m_next_sync{};  // the next m_devices.sync()
  Clock::time_point m_last_sync{};
  int m_served = 0;
};

}  // namespace ibsetup::check::responder
