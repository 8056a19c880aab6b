// One RC connection's verbs resources for a bandwidth or latency session, on either side: a
// buffer of the session's size (registered for remote writes on the responder's side of a
// bandwidth session), a CQ that is busy-polled (as perftest does: a completion channel's
// wake-up would be most of a small message's latency), and a QP deep enough to keep the link
// busy. Includes librdmacm, so only src/probe/ may include it.
#pragma once

#include "probe/rdma_rc.hpp"

#include <rdma/rdma_cma.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ibsetup::check::rdma {

// Work requests a bandwidth sender keeps in flight per QP, and how often one is signalled
// (perftest's defaults: -t 128, cq_mod 100; a power of two here).
constexpr int k_bw_depth = 128;
constexpr int k_bw_signal_every = 16;

class PerfEndpoint {
public:
  // Throws std::runtime_error ("ibv_reg_mr: Cannot allocate memory") when a resource cannot be
  // made. The id stays the caller's.
  PerfEndpoint(rdma_cm_id* id, size_t buffer_bytes, bool remote_write, int send_depth,
               int recv_depth);
  PerfEndpoint(const PerfEndpoint&) = delete;
  PerfEndpoint& operator=(const PerfEndpoint&) = delete;

  char* buffer() { return m_buffer.data(); }
  size_t size() const { return m_buffer.size(); }
  uint64_t address() const { return reinterpret_cast<uintptr_t>(m_buffer.data()); }
  uint32_t rkey() const { return m_rc.rkey(); }
  uint32_t max_inline() const { return m_rc.max_inline(); }

  void post_recv(size_t length);
  void post_send(size_t length, bool signaled);
  void post_write(size_t length, uint64_t remote_address, uint32_t rkey, bool signaled);
  // Completions now, at most n into wc; never blocks. Throws on a CQ error.
  int poll(ibv_wc* wc, int n);

private:
  // Declared first: the memory region over it goes before it does.
  std::vector<char> m_buffer;
  RcResources m_rc;
};

}  // namespace ibsetup::check::rdma
