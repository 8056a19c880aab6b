// What the ping-pong check and the responder share: one RC connection's verbs resources on a
// librdmacm id. Includes librdmacm, so only src/probe/ may include it.
#pragma once

#include <ibsetup/address.hpp>

#include "probe/rdma_rc.hpp"

#include <rdma/rdma_cma.h>
#include <sys/socket.h>

#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace ibsetup::check::rdma {

// Bytes of one ping and of its echo.
constexpr size_t k_message_size = 64;

// A protection domain, a completion queue whose completion channel is a pollable fd (so one
// poll() waits for CM events and completions together), a QP on the id, and one registered
// buffer for a send and a receive. Throws std::runtime_error ("ibv_create_cq: ...") when a
// resource cannot be made. The id itself stays the caller's.
class Endpoint {
public:
  explicit Endpoint(rdma_cm_id* id);
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;

  int fd() const { return m_rc.channel()->fd; }
  char* send_buffer() { return m_buffer.data(); }
  char* recv_buffer() { return m_buffer.data() + k_message_size; }
  // The work request ids of what post_recv and post_send post: a completion in error says
  // which it was by its wr_id alone (its opcode is then undefined).
  static constexpr uint64_t k_recv_id = 1;
  static constexpr uint64_t k_send_id = 2;
  void post_recv();
  void post_send(size_t length);
  // Takes the pending completion events and every completion; never blocks.
  std::vector<ibv_wc> completions();

private:
  // Declared first: the memory region over it goes before it does.
  std::array<char, 2 * k_message_size> m_buffer{};
  RcResources m_rc;
};

// An RC connection's parameters, the same on both sides.
rdma_conn_param connection_parameters();

}  // namespace ibsetup::check::rdma
