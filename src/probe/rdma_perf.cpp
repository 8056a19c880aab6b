// Bandwidth and latency sessions with a responder. Connection setup waits on the RDMA CM's
// event channel with poll() and a deadline; the measurement itself busy-polls its CQs, as
// perftest does, checking the clock as it goes, so that nothing waits past its deadline.
#include "probe/rdma_perf.hpp"

#include "common/sockaddr.hpp"
#include "inventory/parse.hpp"
#include "os/rdma_dl.hpp"
#include "os/sysfs.hpp"
#include "probe/rdma_device_watch.hpp"
#include "probe/rdma_endpoint.hpp"
#include "probe/rdma_logic.hpp"
#include "probe/rdma_numa.hpp"
#include "probe/rdma_perf_endpoint.hpp"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>

namespace ibsetup::check::rdma {

namespace {

// A failure of the session, with whether a deadline caused it.
struct SessionError : std::runtime_error {
  SessionError(const std::string& what, bool deadline)
      : std::runtime_error(what), timed_out(deadline)
  {
  }
  bool timed_out;
  bool device_removed = false;
};

std::string errno_text(const char* call, int error)
{
  return std::string(call) + ": " + std::strerror(error);
}

struct Connection {
  rdma_cm_id* id = nullptr;
  std::unique_ptr<PerfEndpoint> endpoint;
  SessionReply reply;
  bool established = false;
};

// How often a measurement looks for its connections' end (Session::throw_if_ended).
constexpr auto k_event_look = std::chrono::milliseconds(10);

// The connections of one session on their own event channel; disconnects and frees
// everything when it goes.
class Session {
public:
  Session(const PerfTarget& target, int deadline_ms) : m_target(target), m_deadline_ms(deadline_ms)
  {
    m_channel = rdma_create_event_channel();
    if (m_channel == nullptr) {
      const int error = errno;
      throw SessionError("cannot open the RDMA connection manager: " + os::rdmacm_error_text(error),
                         false);
    }
    set_nonblocking(m_channel->fd, "RDMA CM event channel");
  }
  ~Session()
  {
    for (auto& c : m_connections) {
      if (c.established) {
        rdma_disconnect(c.id);
      }
      c.endpoint.reset();
      if (c.id != nullptr) {
        rdma_destroy_id(c.id);
      }
    }
    rdma_destroy_event_channel(m_channel);
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Connects count QPs one after the other, all within one deadline.
  void connect(int count, const SessionRequest& request, size_t buffer, int send_depth,
               int recv_depth, Measurement& m)
  {
    const Deadline deadline(Clock::now(), m_deadline_ms);
    m_connections.resize(static_cast<size_t>(count));
    for (auto& c : m_connections) {
      if (rdma_create_id(m_channel, &c.id, nullptr, RDMA_PS_TCP) != 0) {
        c.id = nullptr;
        throw SessionError(errno_text("rdma_create_id", errno), false);
      }
      sockaddr_storage src{};
      if (m_target.source) {
        src = to_sockaddr(*m_target.source);
      }
      sockaddr_storage dst = to_sockaddr(m_target.address, m_target.port);
      if (rdma_resolve_addr(c.id, m_target.source ? reinterpret_cast<sockaddr*>(&src) : nullptr,
                            reinterpret_cast<sockaddr*>(&dst),
                            std::max(1, deadline.remaining_ms(Clock::now()))) != 0) {
        throw SessionError(errno_text("rdma_resolve_addr", errno), false);
      }
      wait(c, RDMA_CM_EVENT_ADDR_RESOLVED, deadline, "address resolution");
      if (rdma_resolve_route(c.id, std::max(1, deadline.remaining_ms(Clock::now()))) != 0) {
        throw SessionError(errno_text("rdma_resolve_route", errno), false);
      }
      wait(c, RDMA_CM_EVENT_ROUTE_RESOLVED, deadline, "route resolution");
      if (m.device.empty() && c.id->verbs != nullptr) {
        m.device = ibv_get_device_name(c.id->verbs->device);
        m.port = c.id->port_num;
      }
      c.endpoint = std::make_unique<PerfEndpoint>(c.id, buffer, false, send_depth, recv_depth);
      unsigned char data[k_request_bytes];
      encode_request(request, data);
      rdma_conn_param param = connection_parameters();
      param.private_data = data;
      param.private_data_len = k_request_bytes;
      if (rdma_connect(c.id, &param) != 0) {
        throw SessionError(errno_text("rdma_connect", errno), false);
      }
      wait(c, RDMA_CM_EVENT_ESTABLISHED, deadline, "connection");
      c.established = true;
    }
  }

  std::vector<Connection>& connections() { return m_connections; }

  // Throws when a connection ended while the measurement busy-polls its CQs: a removed device
  // must be let go of at once (the kernel waits for its users, see the responder), and a peer
  // that disconnected answers nothing more. Looked at every k_event_look (a system call).
  void throw_if_ended(Clock::time_point now, const std::string& device)
  {
    if (now < m_next_look) {
      return;
    }
    m_next_look = now + k_event_look;
    rdma_cm_event* event = nullptr;
    std::string why;
    bool removed = false;
    while (rdma_get_cm_event(m_channel, &event) == 0) {
      const rdma_cm_event_type type = event->event;
      rdma_ack_cm_event(event);
      if (type == RDMA_CM_EVENT_DEVICE_REMOVAL) {
        why = "the RDMA device " + device + " was removed";
        removed = true;
      } else if (why.empty() && type == RDMA_CM_EVENT_DISCONNECTED) {
        why = "the peer disconnected (RDMA_CM_EVENT_DISCONNECTED)";
      }
    }
    if (!why.empty()) {
      SessionError e(why, false);
      e.device_removed = removed;
      throw e;
    }
  }

private:
  void wait(Connection& c, rdma_cm_event_type want, const Deadline& deadline, const char* what)
  {
    for (;;) {
      const auto now = Clock::now();
      if (deadline.expired(now)) {
        throw SessionError(
            std::string(what) + " got no answer within " + std::to_string(deadline.budget_ms()) +
                " ms" +
                (want == RDMA_CM_EVENT_ESTABLISHED ? ": is `ibsetup responder` running there?"
                                                   : ""),
            true);
      }
      pollfd p{m_channel->fd, POLLIN, 0};
      const int rc = poll(&p, 1, deadline.remaining_ms(now));
      if (rc < 0 && errno != EINTR) {
        throw SessionError(errno_text("poll", errno), false);
      }
      rdma_cm_event* event = nullptr;
      while (rdma_get_cm_event(m_channel, &event) == 0) {
        const rdma_cm_event_type type = event->event;
        const int status = event->status;
        std::string detail = rdma_event_str(type);
        if (type == RDMA_CM_EVENT_ESTABLISHED) {
          const auto reply =
              decode_reply(static_cast<const unsigned char*>(event->param.conn.private_data),
                           event->param.conn.private_data_len);
          if (reply) {
            c.reply = *reply;
          }
          rdma_ack_cm_event(event);
          if (!reply) {
            throw SessionError("the responder there answers ping-pongs only (an older ibsetup?)",
                               false);
          }
          return;
        }
        if (type == RDMA_CM_EVENT_REJECTED) {
          const auto* data = static_cast<const char*>(event->param.conn.private_data);
          const size_t length = event->param.conn.private_data_len;
          std::string why = event_detail(detail, status, true);
          if (data != nullptr && length > 8 && std::strncmp(data, "ibsetup:", 8) == 0) {
            why += ": " + std::string(data + 8, strnlen(data + 8, length - 8));
          }
          rdma_ack_cm_event(event);
          throw SessionError(why, false);
        }
        rdma_ack_cm_event(event);
        if (type == want) {
          return;
        }
        throw SessionError(
            std::string(what) + " failed (" + event_detail(detail, status, false) + ")",
            status == -ETIMEDOUT);
      }
    }
  }

  const PerfTarget& m_target;
  int m_deadline_ms;
  rdma_event_channel* m_channel = nullptr;
  std::vector<Connection> m_connections;
  Clock::time_point m_next_look{};
};

std::string wc_error(const ibv_wc& wc)
{
  return std::string("work completion: ") + ibv_wc_status_str(wc.status);
}

void run_bandwidth(Session& session, const PerfOptions& perf, int deadline_ms, Measurement& m)
{
  auto& conns = session.connections();
  const size_t n = conns.size();
  std::vector<uint64_t> posted(n, 0);
  std::vector<uint64_t> completed(n, 0);
  const auto size = static_cast<size_t>(perf.bw_size);
  const auto start = Clock::now();
  const auto stop_at = start + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(perf.bw_duration_s));
  const Deadline drain(stop_at, deadline_ms);
  auto last = start;
  bool stopping = false;
  ibv_wc wc[16];
  for (;;) {
    const auto now = Clock::now();
    session.throw_if_ended(now, m.device);
    stopping = stopping || now >= stop_at;
    bool drained = true;
    for (size_t i = 0; i < n; ++i) {
      auto& ep = *conns[i].endpoint;
      // Stopping: only finish the batch under way, so that its signalled last write
      // accounts for every write before it.
      while ((!stopping && posted[i] - completed[i] < k_bw_depth) ||
             (stopping && posted[i] % k_bw_signal_every != 0)) {
        ++posted[i];
        ep.post_write(size, conns[i].reply.address, conns[i].reply.rkey,
                      posted[i] % k_bw_signal_every == 0);
      }
      const int got = ep.poll(wc, 16);
      for (int k = 0; k < got; ++k) {
        if (wc[k].status != IBV_WC_SUCCESS) {
          throw SessionError(wc_error(wc[k]), false);
        }
        completed[i] += k_bw_signal_every;
        last = Clock::now();
      }
      drained = drained && completed[i] == posted[i];
    }
    if (stopping && drained) {
      break;
    }
    if (stopping && drain.expired(now)) {
      throw SessionError("writes not completed within " + std::to_string(deadline_ms) +
                             " ms after the measurement: the peer went away?",
                         true);
    }
  }
  uint64_t writes = 0;
  for (const auto c : completed) {
    writes += c;
  }
  m.seconds = std::chrono::duration<double>(last - start).count();
  m.gbps = gbps(writes * size, m.seconds);
}

// whole: when the round trips must all be done (the check's --timeout). Each round trip has
// deadline_ms, but a peer that echoes just within it would make lat_iters of them last up to
// lat_iters x deadline_ms, and the check's watchdog would end the run with every result.
void run_latency(Session& session, const PerfOptions& perf, int deadline_ms,
                 const std::optional<Deadline>& whole, Measurement& m)
{
  const auto not_finished = [&](int done) {
    return SessionError("not finished within " + std::to_string(whole->budget_ms()) +
                            " ms, what the check's --timeout left for it (" + std::to_string(done) +
                            " of " + std::to_string(perf.lat_iters) + " round trips)",
                        true);
  };
  auto& ep = *session.connections().front().endpoint;
  const auto size = static_cast<size_t>(perf.lat_size);
  std::vector<double> half_rtt_us;
  half_rtt_us.reserve(static_cast<size_t>(perf.lat_iters));
  ibv_wc wc[4];
  for (int i = 0; i < perf.lat_iters; ++i) {
    ep.post_recv(size);
    const auto sent = Clock::now();
    const Deadline deadline(sent, deadline_ms);
    ep.post_send(size, true);
    bool received = false;
    bool send_done = false;
    Clock::time_point arrived;
    while (!received || !send_done) {
      const int got = ep.poll(wc, 4);
      for (int k = 0; k < got; ++k) {
        if (wc[k].status != IBV_WC_SUCCESS) {
          throw SessionError(wc_error(wc[k]), false);
        }
        if (wc[k].opcode == IBV_WC_RECV) {
          arrived = Clock::now();
          received = true;
          if (wc[k].byte_len != size) {
            throw SessionError("the echo has " + std::to_string(wc[k].byte_len) + " bytes, not " +
                                   std::to_string(size),
                               false);
          }
        } else {
          send_done = true;
        }
      }
      if (got != 0) {
        continue;
      }
      const auto now = Clock::now();
      session.throw_if_ended(now, m.device);
      if (deadline.expired(now)) {
        throw SessionError("no echo within " + std::to_string(deadline_ms) + " ms (round trip " +
                               std::to_string(i + 1) + ")",
                           true);
      }
      if (whole && whole->expired(now)) {
        throw not_finished(i);
      }
    }
    half_rtt_us.push_back(std::chrono::duration<double, std::micro>(arrived - sent).count() / 2);
  }
  auto copy = half_rtt_us;
  m.median_us = percentile(copy, 0.5);
  m.p99_us = percentile(half_rtt_us, 0.99);
}

Measurement measure(bool bandwidth, const PerfTarget& target, const PerfOptions& perf,
                    int deadline_ms, const std::string& sysfs_root, double budget_ms)
{
  Measurement m;
  std::optional<Deadline> whole;
  if (budget_ms > 0) {
    whole = Deadline(Clock::now(), static_cast<int>(std::min(budget_ms, 2.0e9)));
  }
  try {
    Session session(target, deadline_ms);
    SessionRequest request;
    request.kind = bandwidth ? SessionKind::bandwidth : SessionKind::latency;
    request.size = static_cast<uint32_t>(bandwidth ? perf.bw_size : perf.lat_size);
    request.duration_s = static_cast<uint32_t>(std::ceil(perf.bw_duration_s));
    if (bandwidth) {
      session.connect(perf.bw_qps, request, request.size, k_bw_depth, 1, m);
    } else {
      session.connect(1, request, request.size, 4, 4, m);
    }
    m.local_gbps = port_rate_gbps(sysfs_root, m.device, m.port);
    const double peer = session.connections().front().reply.rate_gbps;
    if (peer > 0) {
      m.peer_gbps = peer;
    }
    const NumaPin pin(sysfs_root, m.device);
    m.numa = pin.note();
    if (bandwidth) {
      run_bandwidth(session, perf, deadline_ms, m);
    } else {
      run_latency(session, perf, deadline_ms, whole, m);
    }
  } catch (const SessionError& e) {
    m.error = e.what();
    m.timed_out = e.timed_out;
    if (e.device_removed) {
      // The session is gone; what librdmacm still holds of the device goes now, not when the
      // check (its other peers, its other measurement) ends.
      release_removed_devices();
    }
  } catch (const std::exception& e) {
    m.error = e.what();
  }
  return m;
}

}  // namespace

std::optional<double> port_rate_gbps(const std::string& sysfs_root, const std::string& device,
                                     int port)
{
  if (device.empty() || port <= 0) {
    return std::nullopt;
  }
  try {
    const inventory::SysfsReader sysfs(sysfs_root);
    const auto text =
        sysfs.read("class/infiniband/" + device + "/ports/" + std::to_string(port) + "/rate");
    if (const auto rate = text ? inventory::parse_rate(*text) : std::nullopt) {
      return rate->gbps;
    }
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

Measurement measure_bandwidth(const PerfTarget& target, const PerfOptions& perf, int deadline_ms,
                              const std::string& sysfs_root)
{
  return measure(true, target, perf, deadline_ms, sysfs_root, 0);
}

Measurement measure_latency(const PerfTarget& target, const PerfOptions& perf, int deadline_ms,
                            const std::string& sysfs_root, double budget_ms)
{
  return measure(false, target, perf, deadline_ms, sysfs_root, budget_ms);
}

}  // namespace ibsetup::check::rdma
