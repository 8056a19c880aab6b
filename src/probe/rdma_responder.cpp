// The peer side of rdma.pingpong: accepts RC connections through librdmacm and sends every
// message back. One event loop, any number of clients at once, each dropped when idle so that a
// vanished client cannot pin resources.
#include "common/sockaddr.hpp"
#include "probe/rdma_endpoint.hpp"
#include "probe/rdma_logic.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/rdma_check.hpp>

#include <poll.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>

namespace ibsetup::check {

namespace {

using rdma::Clock;
using rdma::Deadline;

struct Connection {
  rdma_cm_id* id = nullptr;
  std::unique_ptr<rdma::Endpoint> endpoint;
  std::string peer;
  Deadline idle;
};

class Responder {
public:
  Responder(const ResponderOptions& options, const std::function<void(const std::string&)>& log)
      : m_options(options), m_log(log)
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

private:
  void on_event(rdma_cm_id* id, rdma_cm_event_type type);
  void accept(rdma_cm_id* id);
  // closing: the peer has gone; only echoes already sent are counted, nothing is posted.
  void on_completions(Connection& c, bool closing = false);
  void echoed(const Connection& c, uint32_t bytes);
  void drop(rdma_cm_id* id, const std::string& why);

  const ResponderOptions& m_options;
  const std::function<void(const std::string&)>& m_log;
  rdma_event_channel* m_channel = nullptr;
  rdma_cm_id* m_listener = nullptr;
  std::map<rdma_cm_id*, Connection> m_connections;
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
    throw EnvironmentError(std::string("responder: cannot open the RDMA connection manager: ") +
                           std::strerror(errno) + " (no RDMA device, or rdma_ucm not loaded?)");
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
  it->second.endpoint.reset();
  m_connections.erase(it);
  rdma_destroy_id(id);
}

void Responder::accept(rdma_cm_id* id)
{
  const std::string peer = sockaddr_text(rdma_get_peer_addr(id));
  Connection c;
  c.id = id;
  c.peer = peer;
  c.idle = Deadline(Clock::now(), m_options.idle_ms);
  try {
    c.endpoint = std::make_unique<rdma::Endpoint>(id);
    c.endpoint->post_recv();
  } catch (const std::runtime_error& e) {
    m_log("refused " + peer + ": " + e.what());
    c.endpoint.reset();
    rdma_reject(id, nullptr, 0);
    rdma_destroy_id(id);
    return;
  }
  rdma_conn_param param = rdma::connection_parameters();
  if (rdma_accept(id, &param) != 0) {
    m_log("refused " + peer + ": rdma_accept: " + std::strerror(errno));
    c.endpoint.reset();
    rdma_destroy_id(id);
    return;
  }
  m_connections.emplace(id, std::move(c));
}

void Responder::on_event(rdma_cm_id* id, rdma_cm_event_type type)
{
  switch (type) {
  case RDMA_CM_EVENT_CONNECT_REQUEST:
    accept(id);
    return;
  case RDMA_CM_EVENT_ESTABLISHED:
    return;
  case RDMA_CM_EVENT_DISCONNECTED: {
    // A client that has its echo disconnects at once; the send's completion may not have
    // been read yet (events are read before completions), and the echo must still count
    // (--once, the log).
    const auto it = m_connections.find(id);
    if (it != m_connections.end()) {
      on_completions(it->second, true);
    }
    drop(id, "");
    return;
  }
  default:
    if (id != m_listener) {
      drop(id, rdma_event_str(type));
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
      } else if (wc.opcode == IBV_WC_SEND) {
        echoed(c, wc.byte_len);
      }
    } catch (const std::runtime_error& e) {
      drop(c.id, e.what());
      return;
    }
  }
}

int Responder::serve()
{
  const Deadline end(Clock::now(), m_options.timeout_s * 1000);
  for (;;) {
    const auto now = Clock::now();
    if (m_options.count > 0 && m_served >= m_options.count) {
      return m_served;
    }
    if (m_options.timeout_s > 0 && end.expired(now)) {
      m_log("stopped after " + std::to_string(m_options.timeout_s) + " s");
      return m_served;
    }
    std::vector<rdma_cm_id*> idle;
    for (const auto& [id, c] : m_connections) {
      if (c.idle.expired(now)) {
        idle.push_back(id);
      }
    }
    for (auto* id : idle) {
      drop(id, "idle for " + std::to_string(m_options.idle_ms) + " ms");
    }
    std::vector<pollfd> fds{{m_channel->fd, POLLIN, 0}};
    std::vector<rdma_cm_id*> owners{nullptr};
    std::vector<Deadline> deadlines;
    if (m_options.timeout_s > 0) {
      deadlines.push_back(end);
    }
    for (const auto& [id, c] : m_connections) {
      fds.push_back({c.endpoint->fd(), POLLIN, 0});
      owners.push_back(id);
      deadlines.push_back(c.idle);
    }
    const int rc = poll(fds.data(), fds.size(), rdma::poll_timeout_ms(deadlines, now));
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
        rdma_ack_cm_event(event);
        on_event(id, type);
      }
    }
    for (size_t i = 1; i < fds.size(); ++i) {
      const auto it = m_connections.find(owners[i]);
      if (fds[i].revents != 0 && it != m_connections.end()) {
        on_completions(it->second);
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

}  // namespace ibsetup::check
