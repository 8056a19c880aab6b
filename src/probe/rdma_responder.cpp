// The peer side of rdma.pingpong, rdma.bandwidth and rdma.latency: accepts RC connections
// through librdmacm. One event loop, a bounded number of clients at once, each dropped when
// idle or past its time cap, so that a vanished or greedy client cannot pin resources. What a
// client asks for (its connection's private data) is validated before anything is allocated.
#include "probe/rdma_responder.hpp"

#include "common/sockaddr.hpp"
#include "os/rdma_dl.hpp"
#include "probe/rdma_endpoint.hpp"
#include "probe/rdma_logic.hpp"
#include "probe/rdma_perf.hpp"
#include "probe/rdma_perf_endpoint.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/rdma_check.hpp>

#include <arpa/inet.h>
#include <poll.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <thread>

namespace ibsetup::check {

namespace {

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
  uint64_t echoes = 0;
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
int clamp_ms(long long ms)
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

const char* kind_name(SessionKind kind)
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
  void echoed(const Connection& c, uint32_t bytes);
  void drop(rdma_cm_id* id, const std::string& why);
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
  int m_served = 0;
};

std::string where(const ResponderOptions& o)
{
  return (o.bind.empty() ? std::string("every address") : o.bind) + " port " +
         std::to_string(o.port);
}

void Responder::listen()
{
  m_channel = rdma_create_event_channel();
  if (m_channel == nullptr) {
    const int error = errno;
    if (error == ENOSYS && !os::rdmacm_load_error().empty()) {
      throw EnvironmentError("responder: cannot open the RDMA connection manager: " +
                             os::rdmacm_load_error());
    }
    throw EnvironmentError(std::string("responder: cannot open the RDMA connection manager: ") +
                           std::strerror(error) + " (no RDMA device, or rdma_ucm not loaded?)");
  }
  try {
    rdma::set_nonblocking(m_channel->fd, "RDMA CM event channel");
  } catch (const std::runtime_error& e) {
    throw EnvironmentError(std::string("responder: ") + e.what());
  }
  if (rdma_create_id(m_channel, &m_listener, nullptr, RDMA_PS_TCP) != 0) {
    m_listener = nullptr;
    throw EnvironmentError(std::string("responder: rdma_create_id: ") + std::strerror(errno));
  }
  sockaddr_storage address{};
  if (m_options.bind.empty()) {
    // The IPv6 wildcard (::) also takes IPv4 clients (the RDMA CM follows net.ipv6.bindv6only).
    IpAddress any;
    any.family = Family::ipv6;
    address = to_sockaddr(any, m_options.port);
  } else {
    auto parsed = IpAddress::parse(m_options.bind, Family::ipv4);
    if (!parsed) {
      parsed = IpAddress::parse(m_options.bind, Family::ipv6);
    }
    if (!parsed) {
      throw InputError("responder: --bind " + m_options.bind + ": not an IPv4 or IPv6 address");
    }
    address = to_sockaddr(*parsed, m_options.port);
  }
  if (rdma_bind_addr(m_listener, reinterpret_cast<sockaddr*>(&address)) != 0 ||
      rdma_listen(m_listener, 16) != 0) {
    throw EnvironmentError("responder: cannot listen on " + where(m_options) + ": " +
                           std::strerror(errno));
  }
  m_log("listening on " + where(m_options));
}

void Responder::drop(rdma_cm_id* id, const std::string& why)
{
  const auto it = m_connections.find(id);
  if (it == m_connections.end()) {
    return;
  }
  if (!why.empty()) {
    m_log("dropped " + it->second.peer + ": " + why);
  }
  // The session's buffers go with it.
  it->second.endpoint.reset();
  it->second.perf.reset();
  m_connections.erase(it);
  rdma_destroy_id(id);
}

size_t Responder::count(bool closing) const
{
  return static_cast<size_t>(
      std::count_if(m_connections.begin(), m_connections.end(),
                    [closing](const auto& e) { return e.second.closing.has_value() == closing; }));
}

void Responder::refuse(rdma_cm_id* id, const std::string& peer, const std::string& why)
{
  m_log("refused " + peer + ": " + why);
  // The client shows the text after its "ibsetup:" tag (a reject carries up to 148 bytes).
  const std::string data = ("ibsetup:" + why).substr(0, 147);
  rdma_reject(id, data.c_str(), static_cast<uint8_t>(data.size() + 1));
  rdma_destroy_id(id);
}

void Responder::accept(rdma_cm_id* id, const std::optional<rdma::SessionRequest>& request)
{
  const std::string peer = sockaddr_text(rdma_get_peer_addr(id));
  // A client gone while its echo is in flight no longer takes a session: its wait is bounded
  // (k_closing_wait), and counted it refused the clients that came right after it.
  if (count(false) >= static_cast<size_t>(m_options.max_sessions)) {
    refuse(id, peer, "busy: " + std::to_string(m_options.max_sessions) + " sessions at once");
    return;
  }
  // An older client's ping-pong carries no request.
  const rdma::SessionRequest r = request.value_or(rdma::SessionRequest{});
  if (const auto problem = rdma::request_problem(r); !problem.empty()) {
    refuse(id, peer, problem);
    return;
  }
  const auto now = Clock::now();
  Connection c;
  c.id = id;
  c.kind = r.kind;
  c.size = r.size;
  c.peer = peer;
  c.started = now;
  c.last_recv = now;
  // A bandwidth client's writes complete nothing here: it is idle by design for its duration.
  const long long busy_ms =
      r.kind == SessionKind::bandwidth ? static_cast<long long>(r.duration_s) * 1000 : 0;
  c.idle = Deadline(now, clamp_ms(m_options.idle_ms + busy_ms));
  c.cap = Deadline(now, clamp_ms(static_cast<long long>(m_options.max_session_s) * 1000));
  c.serial = ++m_next_serial;
  rdma_conn_param param = rdma::connection_parameters();
  unsigned char reply_data[rdma::k_reply_bytes];
  try {
    if (r.kind == SessionKind::pingpong) {
      c.endpoint = std::make_unique<rdma::Endpoint>(id);
      c.endpoint->post_recv();
    } else {
      const bool bw = r.kind == SessionKind::bandwidth;
      c.perf = std::make_unique<rdma::PerfEndpoint>(id, r.size, bw, bw ? 1 : 4,
                                                    bw ? 1 : k_lat_recvs + 1);
      for (int i = 0; !bw && i < k_lat_recvs; ++i) {
        c.perf->post_recv(r.size);
      }
      rdma::SessionReply reply;
      const std::string device = id->verbs != nullptr ? ibv_get_device_name(id->verbs->device) : "";
      reply.rate_gbps =
          rdma::port_rate_gbps(m_options.sysfs_root, device, id->port_num).value_or(0);
      if (bw) {
        reply.address = c.perf->address();
        reply.rkey = c.perf->rkey();
      }
      rdma::encode_reply(reply, reply_data);
      param.private_data = reply_data;
      param.private_data_len = rdma::k_reply_bytes;
    }
  } catch (const std::runtime_error& e) {
    c.endpoint.reset();
    c.perf.reset();
    refuse(id, peer, e.what());
    return;
  }
  if (rdma_accept(id, &param) != 0) {
    m_log("refused " + peer + ": rdma_accept: " + std::strerror(errno));
    c.endpoint.reset();
    c.perf.reset();
    rdma_destroy_id(id);
    return;
  }
  if (r.kind != SessionKind::pingpong) {
    m_log("accepted a " + std::string(kind_name(r.kind)) + " session from " + peer + " (" +
          std::to_string(r.size) + "-byte messages)");
  }
  m_connections.emplace(id, std::move(c));
}

void Responder::finished(const Connection& c)
{
  ++m_served;
  const double s = std::chrono::duration<double>(Clock::now() - c.started).count();
  if (c.kind == SessionKind::bandwidth) {
    m_log("served a bandwidth session to " + c.peer + " (" + rdma::format_number(s) + " s)");
  } else {
    m_log("echoed " + std::to_string(c.echoes) + " latency messages to " + c.peer);
  }
}

void Responder::on_event(rdma_cm_id* id, rdma_cm_event_type type,
                         const std::optional<rdma::SessionRequest>& request)
{
  switch (type) {
  case RDMA_CM_EVENT_CONNECT_REQUEST:
    accept(id, request);
    return;
  case RDMA_CM_EVENT_ESTABLISHED:
    return;
  case RDMA_CM_EVENT_DISCONNECTED: {
    const auto it = m_connections.find(id);
    if (it != m_connections.end()) {
      if (it->second.endpoint) {
        // A client that has its echo disconnects at once; the send's completion may not have
        // been read yet (events are read before completions), or not yet be made (Soft-RoCE
        // makes it from the client's ACK, which a loaded host can deliver after the
        // disconnect), and the echo must still count (--once, the log). It is waited for by
        // the main loop (closing), up to k_closing_wait: a wait here held every other session
        // still, 200 ms for each client that disconnected with an echo in flight.
        Connection& c = it->second;
        if (!c.closing) {
          on_completions(c, true);
        }
        // As many may wait as may be served: past that the echo is not counted.
        if (m_connections.count(id) != 0 && c.sends > 0 && !c.closing &&
            count(true) < static_cast<size_t>(m_options.max_sessions)) {
          c.closing = Deadline(Clock::now(), static_cast<int>(k_closing_wait.count()));
          return;
        }
      } else {
        // The last echoes count; a connection spin() dropped is gone already.
        if (it->second.kind == SessionKind::latency && !spin(it->second)) {
          return;
        }
        finished(it->second);
      }
    }
    drop(id, "");
    return;
  }
  default:
    if (id != m_listener) {
      const auto it = m_connections.find(id);
      // A closing session's id may still see the end of its connection (TIMEWAIT_EXIT).
      drop(id, it != m_connections.end() && it->second.closing ? "" : rdma_event_str(type));
    }
    return;
  }
}

void Responder::echoed(const Connection& c, uint32_t bytes)
{
  ++m_served;
  m_log("echoed " + std::to_string(bytes) + " bytes to " + c.peer);
}

void Responder::on_completions(Connection& c, bool closing)
{
  for (const auto& wc : c.endpoint->completions()) {
    // By wr_id: a send that failed (the client gone) ends the wait for it too.
    if (wc.wr_id == rdma::Endpoint::k_send_id && c.sends > 0) {
      --c.sends;
    }
    if (closing) {
      if (wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_SEND) {
        echoed(c, wc.byte_len);
      }
      continue;  // the receive posted for a next ping is flushed: not an error
    }
    if (wc.status != IBV_WC_SUCCESS) {
      drop(c.id, std::string("work completion: ") + ibv_wc_status_str(wc.status));
      return;
    }
    c.idle = Deadline(Clock::now(), m_options.idle_ms);
    try {
      if (wc.opcode == IBV_WC_RECV) {
        std::memcpy(c.endpoint->send_buffer(), c.endpoint->recv_buffer(), wc.byte_len);
        // The client may ping again on the same connection.
        c.endpoint->post_recv();
        c.endpoint->post_send(wc.byte_len);
        ++c.sends;
      } else if (wc.opcode == IBV_WC_SEND) {
        echoed(c, wc.byte_len);
      }
    } catch (const std::runtime_error& e) {
      drop(c.id, e.what());
      return;
    }
  }
}

// A latency session's completions, busy-polled: a message goes back as it came, no larger.
bool Responder::spin(Connection& c)
{
  ibv_wc wc[4];
  try {
    const int got = c.perf->poll(wc, 4);
    for (int k = 0; k < got; ++k) {
      if (wc[k].status == IBV_WC_WR_FLUSH_ERR) {
        continue;  // the client disconnected; its event follows
      }
      if (wc[k].status != IBV_WC_SUCCESS) {
        drop(c.id, std::string("work completion: ") + ibv_wc_status_str(wc[k].status));
        return false;
      }
      if (wc[k].opcode == IBV_WC_RECV) {
        // The echo first: the receives posted ahead (k_lat_recvs) cover the client's next
        // message until this one is posted again.
        c.perf->post_send(wc[k].byte_len, true);
        c.perf->post_recv(c.size);
        c.last_recv = Clock::now();
        c.idle = Deadline(c.last_recv, m_options.idle_ms);
        ++c.echoes;
      }
    }
  } catch (const std::runtime_error& e) {
    drop(c.id, e.what());
    return false;
  }
  return true;
}

// The latency sessions' CQs, with nothing else in the loop while messages keep arriving: the
// time between a message's arrival and its echo is all a latency test measures of the
// responder. One look only when none has had a message within k_lat_spin.
bool Responder::spin_latency_sessions()
{
  std::vector<Connection*> sessions;
  for (auto& [id, c] : m_connections) {
    if (c.kind == SessionKind::latency) {
      sessions.push_back(&c);
    }
  }
  if (sessions.empty()) {
    return false;
  }
  const auto hot = [&sessions](Clock::time_point now) {
    return std::any_of(sessions.begin(), sessions.end(),
                       [now](const Connection* c) { return now - c->last_recv < k_lat_spin; });
  };
  const auto until = Clock::now() + k_lat_spin;
  for (unsigned turn = 1;; ++turn) {
    for (auto* c : sessions) {
      if (!spin(*c)) {
        return true;  // the map changed under the pointers; the loop comes back at once
      }
    }
    // The clock every 64 turns: under emulation a clock read costs as much as a poll.
    if (turn % 64 == 0 || turn == 1) {
      const auto now = Clock::now();
      if (!hot(now)) {
        return false;
      }
      if (now >= until) {
        return true;
      }
    }
  }
}

int Responder::latency_nap_ms(Clock::time_point now) const
{
  int nap = -1;
  for (const auto& [id, c] : m_connections) {
    if (c.kind == SessionKind::latency) {
      const int ms = now - c.last_recv < k_lat_recent ? k_lat_nap_recent_ms : k_lat_nap_ms;
      nap = nap < 0 ? ms : std::min(nap, ms);
    }
  }
  return nap;
}

void Responder::expire(Clock::time_point now)
{
  std::vector<std::pair<rdma_cm_id*, std::string>> over;
  for (const auto& [id, c] : m_connections) {
    if (c.closing) {
      if (c.closing->expired(now)) {
        over.emplace_back(id, "");  // its last echo's completion did not come
      }
    } else if (c.cap.expired(now)) {
      over.emplace_back(id,
                        "session longer than " + std::to_string(m_options.max_session_s) + " s");
    } else if (c.idle.expired(now)) {
      over.emplace_back(id, "idle for " + std::to_string(m_options.idle_ms) + " ms");
    }
  }
  for (const auto& [id, why] : over) {
    drop(id, why);
  }
}

int Responder::serve()
{
  const auto end = Clock::now() + std::chrono::seconds(std::max(m_options.timeout_s, 0));
  for (;;) {
    auto now = Clock::now();
    if (m_options.count > 0 && m_served >= m_options.count) {
      return m_served;
    }
    if (m_options.timeout_s > 0 && now >= end) {
      m_log("stopped after " + std::to_string(m_options.timeout_s) + " s");
      return m_served;
    }
    if (m_stop != nullptr && m_stop->load()) {
      return m_served;
    }
    expire(now);
    // Latency sessions are served by busy-polling their CQs while messages arrive, as
    // ib_send_lat's server does (waking up from poll() would be most of a small message's
    // latency); the event channel and the other sessions are still looked at every
    // millisecond. A quiet session's CQ is looked at after short naps instead.
    const bool spinning = spin_latency_sessions();
    now = Clock::now();
    std::vector<pollfd> fds{{m_channel->fd, POLLIN, 0}};
    std::vector<std::pair<rdma_cm_id*, uint64_t>> owners{{nullptr, 0}};
    std::vector<Deadline> deadlines;
    if (m_options.timeout_s > 0) {
      deadlines.emplace_back(
          now, clamp_ms(std::chrono::ceil<std::chrono::milliseconds>(end - now).count()));
    }
    if (m_stop != nullptr) {
      deadlines.emplace_back(now, 20);
    }
    for (const auto& [id, c] : m_connections) {
      if (c.endpoint) {
        fds.push_back({c.endpoint->fd(), POLLIN, 0});
        owners.emplace_back(id, c.serial);
      }
      if (c.closing) {
        deadlines.push_back(*c.closing);
        continue;
      }
      deadlines.push_back(c.idle);
      deadlines.push_back(c.cap);
    }
    int timeout = spinning ? 0 : rdma::poll_timeout_ms(deadlines, now);
    if (const int nap = latency_nap_ms(now); !spinning && nap >= 0) {
      timeout = timeout < 0 ? nap : std::min(timeout, nap);
    }
    const int rc = poll(fds.data(), fds.size(), timeout);
    if (rc < 0 && errno != EINTR) {
      throw EnvironmentError(std::string("responder: poll: ") + std::strerror(errno));
    }
    if (rc <= 0) {
      continue;
    }
    if (fds[0].revents != 0) {
      rdma_cm_event* event = nullptr;
      while (rdma_get_cm_event(m_channel, &event) == 0) {
        rdma_cm_id* id = event->id;
        const rdma_cm_event_type type = event->event;
        std::optional<rdma::SessionRequest> request;
        if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
          request = rdma::decode_request(
              static_cast<const unsigned char*>(event->param.conn.private_data),
              event->param.conn.private_data_len);
        }
        rdma_ack_cm_event(event);
        on_event(id, type, request);
      }
    }
    for (size_t i = 1; i < fds.size(); ++i) {
      // The connection polled, not one that took its id since (dropped above, a new one
      // accepted at the same address: a bandwidth session has no endpoint).
      const auto it = m_connections.find(owners[i].first);
      if (fds[i].revents == 0 || it == m_connections.end() ||
          it->second.serial != owners[i].second || !it->second.endpoint) {
        continue;
      }
      Connection& c = it->second;
      const bool closing = c.closing.has_value();
      on_completions(c, closing);
      // (c is gone when on_completions dropped it)
      if (closing && m_connections.count(owners[i].first) != 0 && c.sends == 0) {
        drop(owners[i].first, "");
      }
    }
  }
}

}  // namespace

int run_responder(const ResponderOptions& options,
                  const std::function<void(const std::string&)>& log)
{
  Responder responder(options, log);
  responder.listen();
  return responder.serve();
}

namespace rdma {

struct BackgroundResponder::Impl {
  explicit Impl(const ResponderOptions& o) : options(o), responder(options, log, &stop) {}
  ResponderOptions options;
  std::function<void(const std::string&)> log = [](const std::string&) {};
  std::atomic<bool> stop{false};
  Responder responder;
  std::thread thread;
};

BackgroundResponder::BackgroundResponder(const ResponderOptions& options)
    : m_impl(std::make_unique<Impl>(options))
{
  m_impl->responder.listen();
  m_impl->thread = std::thread([impl = m_impl.get()] {
    try {
      impl->responder.serve();
    } catch (const std::exception&) {
      // The measuring side then fails on its own deadline, with its own words.
    }
  });
}

BackgroundResponder::~BackgroundResponder()
{
  m_impl->stop = true;
  m_impl->thread.join();
}

uint16_t BackgroundResponder::port() const
{
  return m_impl->responder.port();
}

}  // namespace rdma

}  // namespace ibsetup::check
