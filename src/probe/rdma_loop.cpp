// rdma.route and rdma.pingpong: every peer address at once in one librdmacm event loop, so
// that one unreachable peer costs its deadline once, not once per peer, and nothing waits
// longer than its deadline whatever the kernel or the fabric does.
#include "common/sockaddr.hpp"
#include "probe/rdma_checks.hpp"
#include "probe/rdma_endpoint.hpp"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace ibsetup::check::rdma {

namespace {

enum class Stage { address, route, connect, exchange, done };

struct Probe {
  Target target;
  std::string subject;
  rdma_cm_id* id = nullptr;
  Stage stage = Stage::address;
  Deadline route_deadline;
  Deadline ping_deadline;
  Clock::time_point address_done;
  Clock::time_point established_at;
  Clock::time_point sent_at;
  std::unique_ptr<Endpoint> endpoint;
  bool established = false;
  Result route;
  Result ping;
};

std::string errno_text(const char* call, int error)
{
  return std::string(call) + ": " + std::strerror(error);
}

class Loop {
public:
  Loop(const RdmaOptions& options, rdma_event_channel* channel)
      : m_options(options), m_channel(channel)
  {
  }
  ~Loop()
  {
    for (auto& p : m_probes) {
      close(*p);
    }
  }
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;

  void add(Probe probe) { m_probes.push_back(std::make_unique<Probe>(std::move(probe))); }
  void run();
  const std::vector<std::unique_ptr<Probe>>& probes() const { return m_probes; }

private:
  void start(Probe& p);
  void on_event(Probe& p, rdma_cm_event_type type, int status);
  void on_completions(Probe& p);
  void start_ping(Probe& p);
  void send_ping(Probe& p);
  void expire(Clock::time_point now);
  void fail_route(Probe& p, bool timed_out, const std::string& detail);
  void fail_ping(Probe& p, bool timed_out, const std::string& detail);
  static void close(Probe& p);

  const RdmaOptions& m_options;
  rdma_event_channel* m_channel;
  std::vector<std::unique_ptr<Probe>> m_probes;
};

void Loop::close(Probe& p)
{
  p.stage = Stage::done;
  if (p.endpoint && p.established) {
    rdma_disconnect(p.id);
  }
  p.endpoint.reset();
  if (p.id != nullptr) {
    rdma_destroy_id(p.id);
    p.id = nullptr;
  }
}

void Loop::fail_route(Probe& p, bool timed_out, const std::string& detail)
{
  const auto now = Clock::now();
  p.route.status = Status::fail;
  p.route.observed =
      timed_out ? "not resolved within " + std::to_string(p.route_deadline.budget_ms()) + " ms"
                : detail;
  p.route.message = route_failure_message(p.target, timed_out, p.route_deadline.budget_ms(),
                                          elapsed_ms(p.route_deadline.start(), now), detail);
  p.ping.status = Status::skip;
  p.ping.observed = "no route";
  p.ping.message = p.subject + ": ping-pong not tried: the RDMA route was not resolved";
  close(p);
}

void Loop::fail_ping(Probe& p, bool timed_out, const std::string& detail)
{
  const auto now = Clock::now();
  p.ping.status = Status::fail;
  p.ping.observed =
      timed_out ? "not finished within " + std::to_string(p.ping_deadline.budget_ms()) + " ms"
                : detail;
  p.ping.message =
      pingpong_failure_message(p.target, m_options.port, timed_out, p.ping_deadline.budget_ms(),
                               elapsed_ms(p.ping_deadline.start(), now), detail);
  close(p);
}

void Loop::start(Probe& p)
{
  p.route_deadline = Deadline(Clock::now(), m_options.deadline_ms);
  if (rdma_create_id(m_channel, &p.id, &p, RDMA_PS_TCP) != 0) {
    p.id = nullptr;
    fail_route(p, false, errno_text("rdma_create_id", errno));
    return;
  }
  sockaddr_storage src{};
  if (p.target.source) {
    src = to_sockaddr(*p.target.source);
  }
  sockaddr_storage dst = to_sockaddr(p.target.address, m_options.port);
  // The kernel gets the same budget: it then reports ETIMEDOUT itself (with its reason) when
  // it can, and the loop's own deadline is the backstop.
  if (rdma_resolve_addr(p.id, p.target.source ? reinterpret_cast<sockaddr*>(&src) : nullptr,
                        reinterpret_cast<sockaddr*>(&dst),
                        std::max(1, p.route_deadline.remaining_ms(Clock::now()))) != 0) {
    const int e = errno;
    std::string detail = errno_text("rdma_resolve_addr", e);
    if (e == EADDRNOTAVAIL && p.target.source) {
      detail += ": is " + p.target.source->str() + " configured on this host?";
    }
    fail_route(p, false, detail);
  }
}

void Loop::start_ping(Probe& p)
{
  p.ping_deadline = Deadline(Clock::now(), m_options.deadline_ms);
  p.stage = Stage::connect;
  try {
    p.endpoint = std::make_unique<Endpoint>(p.id);
    // Posted before connecting: the echo can arrive before this side polls again.
    p.endpoint->post_recv();
  } catch (const std::runtime_error& e) {
    fail_ping(p, false, e.what());
    return;
  }
  rdma_conn_param param = connection_parameters();
  if (rdma_connect(p.id, &param) != 0) {
    fail_ping(p, false, errno_text("rdma_connect", errno));
  }
}

void Loop::send_ping(Probe& p)
{
  p.established = true;
  p.established_at = Clock::now();
  std::snprintf(p.endpoint->send_buffer(), k_message_size, "ibsetup ping %s %s",
                p.target.host.c_str(), p.target.address.str().c_str());
  p.stage = Stage::exchange;
  p.sent_at = Clock::now();
  try {
    p.endpoint->post_send(k_message_size);
  } catch (const std::runtime_error& e) {
    fail_ping(p, false, e.what());
  }
}

void Loop::on_event(Probe& p, rdma_cm_event_type type, int status)
{
  const auto now = Clock::now();
  const std::string name = rdma_event_str(type);
  switch (type) {
  case RDMA_CM_EVENT_ADDR_RESOLVED:
    p.address_done = now;
    p.stage = Stage::route;
    if (rdma_resolve_route(p.id, std::max(1, p.route_deadline.remaining_ms(now))) != 0) {
      fail_route(p, false, errno_text("rdma_resolve_route", errno));
    }
    return;
  case RDMA_CM_EVENT_ADDR_ERROR:
  case RDMA_CM_EVENT_ROUTE_ERROR:
    fail_route(p, status == -ETIMEDOUT, event_detail(name, status, false));
    return;
  case RDMA_CM_EVENT_ROUTE_RESOLVED: {
    p.route.status = Status::pass;
    const std::string device =
        p.id->verbs != nullptr ? ibv_get_device_name(p.id->verbs->device) : "?";
    p.route.observed = "address " + format_duration(p.address_done - p.route_deadline.start()) +
                       ", route " + format_duration(now - p.address_done) + ", via " + device +
                       " port " + std::to_string(p.id->port_num);
    p.route.message = p.subject + ": RDMA route to " + p.target.address.str() + " resolved (" +
                      p.route.observed + ")";
    if (m_options.pingpong) {
      start_ping(p);
    } else {
      close(p);
    }
    return;
  }
  case RDMA_CM_EVENT_ESTABLISHED:
    send_ping(p);
    return;
  case RDMA_CM_EVENT_REJECTED:
    fail_ping(p, false, event_detail(name, status, true));
    return;
  case RDMA_CM_EVENT_DISCONNECTED:
    // A responder that exits after its echo (--once) can disconnect before this loop read the
    // echo's completion: events are handled before completions. The echo still counts.
    if (p.endpoint && p.stage == Stage::exchange) {
      on_completions(p);
      if (p.stage == Stage::done) {
        return;
      }
    }
    break;
  default:
    break;
  }
  if (p.stage == Stage::address || p.stage == Stage::route) {
    fail_route(p, false, event_detail(name, status, false));
  } else {
    fail_ping(p, false, event_detail(name, status, false));
  }
}

void Loop::on_completions(Probe& p)
{
  for (const auto& wc : p.endpoint->completions()) {
    if (wc.status != IBV_WC_SUCCESS) {
      fail_ping(p, false, std::string("work completion: ") + ibv_wc_status_str(wc.status));
      return;
    }
    if (wc.opcode != IBV_WC_RECV) {
      continue;
    }
    const auto now = Clock::now();
    if (wc.byte_len != k_message_size ||
        std::memcmp(p.endpoint->recv_buffer(), p.endpoint->send_buffer(), k_message_size) != 0) {
      fail_ping(p, false, "the echo differs from the message sent");
      return;
    }
    p.ping.status = Status::pass;
    p.ping.observed = "round trip " + format_duration(now - p.sent_at) + " (" +
                      std::to_string(k_message_size) + "-byte send/recv echo; connected in " +
                      format_duration(p.established_at - p.ping_deadline.start()) + ")";
    p.ping.message = p.subject + ": RDMA ping-pong with " + p.target.address.str() + " port " +
                     std::to_string(m_options.port) + ": " + p.ping.observed;
    close(p);
    return;
  }
}

void Loop::expire(Clock::time_point now)
{
  for (auto& pp : m_probes) {
    Probe& p = *pp;
    switch (p.stage) {
    case Stage::address:
      if (p.route_deadline.expired(now)) {
        fail_route(p, true, "address resolution got no answer: no ARP/ND reply from the peer?");
      }
      break;
    case Stage::route:
      if (p.route_deadline.expired(now)) {
        fail_route(p, true, "route resolution got no answer: no path record from the SM?");
      }
      break;
    case Stage::connect:
      if (p.ping_deadline.expired(now)) {
        fail_ping(p, true, "no connection: is `ibsetup responder` running there?");
      }
      break;
    case Stage::exchange:
      if (p.ping_deadline.expired(now)) {
        fail_ping(p, true, "connected, but no echo came back");
      }
      break;
    case Stage::done:
      break;
    }
  }
}

void Loop::run()
{
  for (auto& p : m_probes) {
    start(*p);
  }
  for (;;) {
    const auto now = Clock::now();
    expire(now);
    std::vector<pollfd> fds{{m_channel->fd, POLLIN, 0}};
    std::vector<Probe*> owners{nullptr};
    std::vector<Deadline> deadlines;
    for (auto& p : m_probes) {
      if (p->stage == Stage::done) {
        continue;
      }
      const bool pinging = p->stage == Stage::connect || p->stage == Stage::exchange;
      deadlines.push_back(pinging ? p->ping_deadline : p->route_deadline);
      if (p->endpoint) {
        fds.push_back({p->endpoint->fd(), POLLIN, 0});
        owners.push_back(p.get());
      }
    }
    if (deadlines.empty()) {
      return;
    }
    const int rc = poll(fds.data(), fds.size(), poll_timeout_ms(deadlines, now));
    if (rc < 0 && errno != EINTR) {
      const std::string detail = errno_text("poll", errno);
      for (auto& p : m_probes) {
        if (p->stage == Stage::address || p->stage == Stage::route) {
          fail_route(*p, false, detail);
        } else if (p->stage != Stage::done) {
          fail_ping(*p, false, detail);
        }
      }
      return;
    }
    if (rc <= 0) {
      continue;
    }
    if (fds[0].revents != 0) {
      rdma_cm_event* event = nullptr;
      while (rdma_get_cm_event(m_channel, &event) == 0) {
        auto* p = static_cast<Probe*>(event->id->context);
        const rdma_cm_event_type type = event->event;
        const int status = event->status;
        // Acknowledge first: destroying the id waits for its events to be acknowledged.
        rdma_ack_cm_event(event);
        if (p != nullptr && p->stage != Stage::done) {
          on_event(*p, type, status);
        }
      }
    }
    for (size_t i = 1; i < fds.size(); ++i) {
      if (fds[i].revents != 0 && owners[i]->endpoint) {
        on_completions(*owners[i]);
      }
    }
  }
}

}  // namespace

void resolve_all(const RdmaOptions& options, rdma_event_channel* channel,
                 const std::vector<Target>& targets, std::vector<Result>& routes,
                 std::vector<Result>& pings)
{
  Loop loop(options, channel);
  for (size_t i = 0; i < targets.size(); ++i) {
    Probe p;
    p.target = targets[i];
    p.subject = routes[i].subject;
    p.route = routes[i];
    p.ping = pings[i];
    loop.add(std::move(p));
  }
  loop.run();
  for (size_t i = 0; i < targets.size(); ++i) {
    routes[i] = loop.probes()[i]->route;
    pings[i] = loop.probes()[i]->ping;
  }
}

}  // namespace ibsetup::check::rdma
