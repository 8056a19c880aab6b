// The verbs resources every RC connection of the RDMA checks needs, whatever it does with them:
// the ping-pong endpoint and the perf endpoint build theirs here and keep their own logic.
// Includes librdmacm, so only src/probe/ may include it.
#pragma once

#include <rdma/rdma_cma.h>

#include <cstddef>
#include <cstdint>

namespace ibsetup::check::rdma {

// Throws std::runtime_error "call: strerror(error)".
[[noreturn]] void fail_verbs(const char* call, int error);

// Sets O_NONBLOCK on fd; throws std::runtime_error on failure.
void set_nonblocking(int fd, const char* what);

// What an RcResources is made of. The buffer stays the caller's and must outlive it.
struct RcShape {
  void* buffer = nullptr;
  size_t bytes = 0;
  int access = IBV_ACCESS_LOCAL_WRITE;
  int cq_depth = 4;
  // A non-blocking completion channel armed on the CQ, so that poll() can wait for completions;
  // without one the CQ is busy-polled.
  bool channel = false;
  uint32_t send_depth = 2;
  uint32_t recv_depth = 2;
  // Inline data asked for; a device that refuses it gets a QP without.
  uint32_t max_inline = 0;
};

// A protection domain, a CQ (with its completion channel if asked), the buffer's memory region
// and a QP on the id, released in reverse order. Throws std::runtime_error ("ibv_create_cq:
// ...") when a resource cannot be made. The id itself stays the caller's.
class RcResources {
public:
  RcResources(rdma_cm_id* id, const RcShape& shape);
  ~RcResources();
  RcResources(const RcResources&) = delete;
  RcResources& operator=(const RcResources&) = delete;

  ibv_cq* cq() const { return m_cq; }
  ibv_comp_channel* channel() const { return m_channel; }
  uint32_t lkey() const { return m_mr->lkey; }
  uint32_t rkey() const { return m_mr->rkey; }
  // The inline data the QP was created with (0 when the device refused it).
  uint32_t max_inline() const { return m_max_inline; }

  // Takes and acknowledges the channel's pending completion events; never blocks.
  void take_events();
  // Post one work request over [address, address + length) of the registered buffer; throw
  // std::runtime_error ("ibv_post_send: ...") when the QP refuses it.
  void post_recv(const char* address, size_t length, uint64_t wr_id);
  void post_send(const char* address, size_t length, uint64_t wr_id, unsigned flags);
  void post_write(const char* address, size_t length, uint64_t remote_address, uint32_t rkey,
                  uint64_t wr_id, unsigned flags);

private:
  void release();
  void post(ibv_send_wr& wr, const char* address, size_t length, const char* call);

  rdma_cm_id* m_id;
  ibv_pd* m_pd = nullptr;
  ibv_comp_channel* m_channel = nullptr;
  ibv_cq* m_cq = nullptr;
  ibv_mr* m_mr = nullptr;
  bool m_qp = false;
  uint32_t m_max_inline = 0;
  unsigned m_unacked = 0;
};

}  // namespace ibsetup::check::rdma
