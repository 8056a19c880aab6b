#include "probe/rdma_rc.hpp"

#include <fcntl.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace ibsetup::check::rdma {

void fail_verbs(const char* call, int error)
{
  throw std::runtime_error(std::string(call) + ": " + std::strerror(error));
}

void set_nonblocking(int fd, const char* what)
{
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    throw std::runtime_error(std::string("cannot make the ") + what +
                             " non-blocking: " + std::strerror(errno));
  }
}

RcResources::RcResources(rdma_cm_id* id, const RcShape& shape) : m_id(id)
{
  try {
    m_pd = ibv_alloc_pd(id->verbs);
    if (m_pd == nullptr) {
      fail_verbs("ibv_alloc_pd", errno);
    }
    if (shape.channel) {
      m_channel = ibv_create_comp_channel(id->verbs);
      if (m_channel == nullptr) {
        fail_verbs("ibv_create_comp_channel", errno);
      }
      set_nonblocking(m_channel->fd, "completion channel");
    }
    m_cq = ibv_create_cq(id->verbs, shape.cq_depth, nullptr, m_channel, 0);
    if (m_cq == nullptr) {
      fail_verbs("ibv_create_cq", errno);
    }
    if (m_channel != nullptr) {
      if (const int rc = ibv_req_notify_cq(m_cq, 0); rc != 0) {
        fail_verbs("ibv_req_notify_cq", rc);
      }
    }
    m_mr = ibv_reg_mr(m_pd, shape.buffer, shape.bytes, shape.access);
    if (m_mr == nullptr) {
      fail_verbs("ibv_reg_mr", errno);
    }
    ibv_qp_init_attr attr{};
    attr.send_cq = m_cq;
    attr.recv_cq = m_cq;
    attr.qp_type = IBV_QPT_RC;
    attr.cap.max_send_wr = shape.send_depth;
    attr.cap.max_recv_wr = shape.recv_depth;
    attr.cap.max_send_sge = 1;
    attr.cap.max_recv_sge = 1;
    attr.cap.max_inline_data = shape.max_inline;
    if (rdma_create_qp(id, m_pd, &attr) != 0) {
      if (shape.max_inline == 0) {
        fail_verbs("rdma_create_qp", errno);
      }
      attr.cap.max_inline_data = 0;
      if (rdma_create_qp(id, m_pd, &attr) != 0) {
        fail_verbs("rdma_create_qp", errno);
      }
    }
    m_max_inline = attr.cap.max_inline_data;
    m_qp = true;
  } catch (...) {
    release();
    throw;
  }
}

RcResources::~RcResources()
{
  release();
}

void RcResources::release()
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

void RcResources::take_events()
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
}

void RcResources::post_recv(const char* address, size_t length, uint64_t wr_id)
{
  ibv_sge sge{};
  sge.addr = reinterpret_cast<uintptr_t>(address);
  sge.length = static_cast<uint32_t>(length);
  sge.lkey = m_mr->lkey;
  ibv_recv_wr wr{};
  wr.wr_id = wr_id;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  if (const int rc = ibv_post_recv(m_id->qp, &wr, &bad); rc != 0) {
    fail_verbs("ibv_post_recv", rc);
  }
}

void RcResources::post_send(const char* address, size_t length, uint64_t wr_id, unsigned flags)
{
  ibv_send_wr wr{};
  wr.wr_id = wr_id;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = flags;
  post(wr, address, length, "ibv_post_send");
}

void RcResources::post_write(const char* address, size_t length, uint64_t remote_address,
                             uint32_t rkey, uint64_t wr_id, unsigned flags)
{
  ibv_send_wr wr{};
  wr.wr_id = wr_id;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.send_flags = flags;
  wr.wr.rdma.remote_addr = remote_address;
  wr.wr.rdma.rkey = rkey;
  post(wr, address, length, "ibv_post_send (RDMA WRITE)");
}

void RcResources::post(ibv_send_wr& wr, const char* address, size_t length, const char* call)
{
  ibv_sge sge{};
  sge.addr = reinterpret_cast<uintptr_t>(address);
  sge.length = static_cast<uint32_t>(length);
  sge.lkey = m_mr->lkey;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_send_wr* bad = nullptr;
  if (const int rc = ibv_post_send(m_id->qp, &wr, &bad); rc != 0) {
    fail_verbs(call, rc);
  }
}

}  // namespace ibsetup::check::rdma
