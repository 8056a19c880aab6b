#include "probe/rdma_perf_endpoint.hpp"

#include <stdexcept>

namespace ibsetup::check::rdma {

namespace {

// Small latency messages go inline (in the work request, not fetched by DMA), as ib_send_lat
// sends them; a device that refuses inline data gets a QP without.
constexpr uint32_t k_inline = 64;

RcShape perf_shape(std::vector<char>& buffer, bool remote_write, int send_depth, int recv_depth)
{
  RcShape shape;
  shape.buffer = buffer.data();
  shape.bytes = buffer.size();
  shape.access = IBV_ACCESS_LOCAL_WRITE | (remote_write ? IBV_ACCESS_REMOTE_WRITE : 0);
  shape.cq_depth = send_depth + recv_depth;
  shape.send_depth = static_cast<uint32_t>(send_depth);
  shape.recv_depth = static_cast<uint32_t>(recv_depth);
  shape.max_inline = k_inline;
  return shape;
}

}  // namespace

PerfEndpoint::PerfEndpoint(rdma_cm_id* id, size_t buffer_bytes, bool remote_write, int send_depth,
                           int recv_depth)
    : m_buffer(buffer_bytes > 0 ? buffer_bytes : 1),
      m_rc(id, perf_shape(m_buffer, remote_write, send_depth, recv_depth))
{
}

void PerfEndpoint::post_recv(size_t length)
{
  m_rc.post_recv(buffer(), length, 1);
}

void PerfEndpoint::post_send(size_t length, bool signaled)
{
  m_rc.post_send(
      buffer(), length, 2,
      (signaled ? IBV_SEND_SIGNALED : 0) | (length <= max_inline() ? IBV_SEND_INLINE : 0));
}

void PerfEndpoint::post_write(size_t length, uint64_t remote_address, uint32_t rkey, bool signaled)
{
  m_rc.post_write(buffer(), length, remote_address, rkey, 3, signaled ? IBV_SEND_SIGNALED : 0);
}

int PerfEndpoint::poll(ibv_wc* wc, int n)
{
  const int got = ibv_poll_cq(m_rc.cq(), n, wc);
  if (got < 0) {
    throw std::runtime_error("ibv_poll_cq failed");
  }
  return got;
}

}  // namespace ibsetup::check::rdma
