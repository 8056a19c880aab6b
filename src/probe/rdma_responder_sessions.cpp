// What the responder does with each session's completions: ping-pong echoes, and the latency
// sessions' busy-polled echoes (bandwidth sessions need nothing here: the client writes).
#include "probe/rdma_responder_loop.hpp"

#include <cstring>
#include <stdexcept>
#include <vector>

namespace ibsetup::check::responder {

// A client may ping again and again on one connection, as fast as round trips go: only the
// first echo is a line of its own, the others are summed up when the connection ends (drop).
void Responder::echoed(Connection& c, uint32_t bytes)
{
  ++m_served;
  if (c.echoes++ == 0) {
    m_log("echoed " + std::to_string(bytes) + " bytes to " + c.peer);
  }
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

bool Responder::latency_recent(Clock::time_point now) const
{
  return std::any_of(m_connections.begin(), m_connections.end(), [now](const auto& e) {
    return e.second.kind == SessionKind::latency && now - e.second.last_recv < k_lat_recent;
  });
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

}  // namespace ibsetup::check::responder
