#include "probe/rdma_endpoint.hpp"

#include <fcntl.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace ibsetup::check::rdma {

namespace {

[[noreturn]] void fail(const char* call, int error)
{
  throw std::runtime_error(std::string(call) + ": " + std::strerror(error));
}

}  // namespace

Endpoint::Endpoint(rdma_cm_id* id) : m_id(id)
{
  try {
    m_pd = ibv_alloc_pd(id->verbs);
    if (m_pd == nullptr) {
      fail("ibv_alloc_pd", errno);
    }
    m_channel = ibv_create_comp_channel(id->verbs);
    if (m_channel == nullptr) {
      fail("ibv_create_comp_channel", errno);
    }
    set_nonblocking(m_channel->fd, "completion channel");
    m_cq = ibv_create_cq(id->verbs, 4, nullptr, m_channel, 0);
    if (m_cq == nullptr) {
      fail("ibv_create_cq", errno);
    }
    if (const int rc = ibv_req_notify_cq(m_cq, 0); rc != 0) {
      fail("ibv_req_notify_cq", rc);
    }
    m_mr = ibv_reg_mr(m_pd, m_buffer.data(), m_buffer.size(), IBV_ACCESS_LOCAL_WRITE);
    if (m_mr == nullptr) {
      fail("ibv_reg_mr", errno);
    }
    ibv_qp_init_attr attr{};
    attr.send_cq = m_cq;
    attr.recv_cq = m_cq;
    attr.qp_type = IBV_QPT_RC;
    attr.cap.max_send_wr = 2;
    attr.cap.max_recv_wr = 2;
    attr.cap.max_send_sge = 1;
    attr.cap.max_recv_sge = 1;
    if (rdma_create_qp(id, m_pd, &attr) != 0) {
      fail("rdma_create_qp", errno);
    }
    m_qp = true;
  } catch (...) {
    release();
    throw;
  }
}

Endpoint::~Endpoint()
{
  release();
}

void Endpoint::release()
{
  if (m_qp) {
    rdma_destroy_qp(m_id);
    m_qp = false;
  }
  if (m_mr != nullptr) {
    ibv_dereg_mr(m_mr);
    m_mr = nullptr;
  }
  if (m_cq != nullptr) {
    // Destroying a CQ waits for every completion event taken from it to be acknowledged.
    ibv_ack_cq_events(m_cq, m_unacked);
    m_unacked = 0;
    ibv_destroy_cq(m_cq);
    m_cq = nullptr;
  }
  if (m_channel != nullptr) {
    ibv_destroy_comp_channel(m_channel);
    m_channel = nullptr;
  }
  if (m_pd != nullptr) {
    ibv_dealloc_pd(m_pd);
    m_pd = nullptr;
  }
}

void Endpoint::post_recv()
{
  ibv_sge sge{};
  sge.addr = reinterpret_cast<uintptr_t>(recv_buffer());
  sge.length = k_message_size;
  sge.lkey = m_mr->lkey;
  ibv_recv_wr wr{};
  wr.wr_id = 1;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  if (const int rc = ibv_post_recv(m_id->qp, &wr, &bad); rc != 0) {
    fail("ibv_post_recv", rc);
  }
}

void Endpoint::post_send(size_t length)
{
  ibv_sge sge{};
  sge.addr = reinterpret_cast<uintptr_t>(send_buffer());
  sge.length = static_cast<uint32_t>(length);
  sge.lkey = m_mr->lkey;
  ibv_send_wr wr{};
  wr.wr_id = 2;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SIGNALED;
  ibv_send_wr* bad = nullptr;
  if (const int rc = ibv_post_send(m_id->qp, &wr, &bad); rc != 0) {
    fail("ibv_post_send", rc);
  }
}

std::vector<ibv_wc> Endpoint::completions()
{
  ibv_cq* cq = nullptr;
  void* context = nullptr;
  while (ibv_get_cq_event(m_channel, &cq, &context) == 0) {
    ++m_unacked;
  }
  if (m_unacked > 0) {
    ibv_ack_cq_events(m_cq, m_unacked);
    m_unacked = 0;
  }
  // Re-arm before draining: a completion that lands in between then raises a new event
  // instead of being missed.
  ibv_req_notify_cq(m_cq, 0);
  std::vector<ibv_wc> out;
  ibv_wc wc{};
  while (ibv_poll_cq(m_cq, 1, &wc) > 0) {
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

void set_nonblocking(int fd, const char* what)
{
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    throw std::runtime_error(std::string("cannot make the ") + what +
                             " non-blocking: " + std::strerror(errno));
  }
}

}  // namespace ibsetup::check::rdma
