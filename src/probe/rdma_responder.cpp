// The peer side of rdma.pingpong, rdma.bandwidth and rdma.latency: accepts RC connections
// through librdmacm. One event loop, a bounded number of clients at once, each dropped when
// idle or past its time cap, so that a vanished or greedy client cannot pin resources. What a
// client asks for (its connection's private data) is validated before anything is allocated.
#include "probe/rdma_responder.hpp"

#include "common/sockaddr.hpp"
#include "probe/rdma_responder_loop.hpp"

#include <ibsetup/error.hpp>

#include <poll.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace ibsetup::check {

namespace {

std::string where(const ResponderOptions& o)
{
  return (o.bind.empty() ? std::string("every address") : o.bind) + " port " +
         std::to_string(o.port);
}

}  // namespace

namespace responder {

void Responder::listen()
{
  // --bind is read before the RDMA CM is opened: text that is no address is the same error
  // (exit 3) on a host without a device.
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
  if (rdma_bind_addr(m_listener, reinterpret_cast<sockaddr*>(&address)) != 0 ||
      rdma_listen(m_listener, 16) != 0) {
    throw EnvironmentError("responder: cannot listen on " + where(m_options) + ": " +
                           std::strerror(errno));
  }
  // The devices there are now: one removed in the first second is seen going.
  m_devices.sync();
  m_last_sync = Clock::now();
  m_next_sync = m_last_sync + k_device_sync;
  m_log("listening on " + where(m_options));
}

void Responder::drop(rdma_cm_id* id, const std::string& why)
{
  const auto it = m_connections.find(id);
  if (it == m_connections.end()) {
    return;
  }
  if (it->second.endpoint && it->second.echoes > 1) {
    m_log("echoed " + std::to_string(it->second.echoes - 1) + " more messages to " +
          it->second.peer);
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
  case RDMA_CM_EVENT_DEVICE_REMOVAL:
    if (id == m_listener) {
      // A listener bound to an address is bound to its device, and the kernel waits for the
      // listener's id to be destroyed (with ibverbs' context on a device that cannot
      // disassociate, for the process to end) before the device is gone: serving on would
      // hold `rdma link delete`, a driver unload or a firmware reset until the responder
      // stops. It ends instead, as an error, so that systemd's Restart=on-failure starts it
      // again once the address is back. (A wildcard listener sees no such event: the RDMA CM
      // listens on each device for it, and on a device added later too.)
      throw EnvironmentError("responder: the RDMA device under " + where(m_options) +
                             " was removed; no longer listening");
    }
    drop(id, "its RDMA device was removed");
    return;
  default:
    if (id != m_listener) {
      const auto it = m_connections.find(id);
      // A closing session's id may still see the end of its connection (TIMEWAIT_EXIT).
      drop(id, it != m_connections.end() && it->second.closing ? "" : rdma_event_str(type));
    }
    return;
  }
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
    if (now >= m_next_sync) {
      // Not while a latency session is measured (a listing takes a netlink dump), unless that
      // has put it off for k_device_sync_most: back-to-back sessions must not hold a removal.
      if (!latency_recent(now) || now - m_last_sync >= k_device_sync_most) {
        m_devices.sync();
        m_last_sync = now;
      }
      m_next_sync = now + k_device_sync;
    }
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
    deadlines.emplace_back(
        now, clamp_ms(std::chrono::ceil<std::chrono::milliseconds>(m_next_sync - now).count()));
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

}  // namespace responder

}  // namespace ibsetup::check
