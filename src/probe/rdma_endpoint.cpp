#include "probe/rdma_endpoint.hpp"

namespace ibsetup::check::rdma {

namespace {

RcShape ping_pong_shape(std::array<char, 2 * k_message_size>& buffer)
{
  RcShape shape;
  shape.buffer = buffer.data();
  shape.bytes = buffer.size();
  shape.channel = true;
  return shape;
}

}  // namespace

Endpoint::Endpoint(rdma_cm_id* id) : m_rc(id, ping_pong_shape(m_buffer)) {}

void Endpoint::post_recv()
{
  m_rc.post_recv(recv_buffer(), k_message_size, k_recv_id);
}

void Endpoint::post_send(size_t length)
{
  m_rc.post_send(send_buffer(), length, k_send_id, IBV_SEND_SIGNALED);
}

std::vector<ibv_wc> Endpoint::completions()
{
  m_rc.take_events();
  // Re-arm before draining: a completion that lands in between then raises a new event
  // instead of being missed.
  ibv_req_notify_cq(m_rc.cq(), 0);
  std::vector<ibv_wc> out;
  ibv_wc wc{};
  while (ibv_poll_cq(m_rc.cq(), 1, &wc) > 0) {
    out.push_back(wc);
  }
  return out;
}

rdma_conn_param connection_parameters()
{
  rdma_conn_param p{};
  p.responder_resources = 1;
  p.initiator_depth = 1;
  p.retry_count = 7;
  p.rnr_retry_count = 7;
  return p;
}

}  // namespace ibsetup::check::rdma
