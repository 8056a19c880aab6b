#include "probe/rdma_perf_endpoint.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace ibsetup::check::rdma {

namespace {

[[noreturn]] void fail(const char* call, int error)
{
  throw std::runtime_error(std::string(call) + ": " + std::strerror(error));
}

// Small latency messages go inline (in the work request, not fetched by DMA), as ib_send_lat
// sends them; a device that refuses inline data gets a QP without.
constexpr uint32_t k_inline = 64;

}  // namespace

PerfEndpoint::PerfEndpoint(rdma_cm_id* id, size_t buffer_bytes, bool remote_write, int send_depth,
                           int recv_depth)
    : m_id(id), m_buffer(buffer_bytes > 0 ? buffer_bytes : 1)
{
  try {
    m_pd = ibv_alloc_pd(id->verbs);
    if (m_pd == nullptr) {
      fail("ibv_alloc_pd", errno);
    }
    m_cq = ibv_create_cq(id->verbs, send_depth + recv_depth, nullptr, nullptr, 0);
    if (m_cq == nullptr) {
      fail("ibv_create_cq", errno);
    }
    const int access = IBV_ACCESS_LOCAL_WRITE | (remote_write ? IBV_ACCESS_REMOTE_WRITE : 0);
    m_mr = ibv_reg_mr(m_pd, m_buffer.data(), m_buffer.size(), access);
    if (m_mr == nullptr) {
      fail("ibv_reg_mr", errno);
    }
    ibv_qp_init_attr attr{};
    attr.send_cq = m_cq;
    attr.recv_cq = m_cq;
    attr.qp_type = IBV_QPT_RC;
    attr.cap.max_send_wr = static_cast<uint32_t>(send_depth);
    attr.cap.max_recv_wr = static_cast<uint32_t>(recv_depth);
    attr.cap.max_send_sge = 1;
    attr.cap.max_recv_sge = 1;
    attr.cap.max_inline_data = k_inline;
    if (rdma_create_qp(id, m_pd, &attr) != 0) {
      attr.cap.max_inline_data = 0;
      if (rdma_create_qp(id, m_pd, &attr) != 0) {
        fail("rdma_create_qp", errno);
      }
    }
    m_max_inline = attr.cap.max_inline_data;
    m_qp = true;
  } catch (...) {
    release();
    throw;
  }
}

PerfEndpoint::~PerfEndpoint()
{
  release();
}

void PerfEndpoint::release()
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
    ibv_destroy_cq(m_cq);
    m_cq = nullptr;
  }
  if (m_pd != nullptr) {
    ibv_dealloc_pd(m_pd);
    m_pd = nullptr;
  }
}

uint32_t PerfEndpoint::rkey() const
{
  return m_mr->rkey;
}

void PerfEndpoint::post_recv(size_t length)
{
  ibv_sge sge{};
  sge.addr = address();
  sge.length = static_cast<uint32_t>(length);
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

void PerfEndpoint::post_send(size_t length, bool signaled)
{
  ibv_sge sge{};
  sge.addr = address();
  sge.length = static_cast<uint32_t>(length);
  sge.lkey = m_mr->lkey;
  ibv_send_wr wr{};
  wr.wr_id = 2;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags =
      (signaled ? IBV_SEND_SIGNALED : 0) | (length <= m_max_inline ? IBV_SEND_INLINE : 0);
  ibv_send_wr* bad = nullptr;
  if (const int rc = ibv_post_send(m_id->qp, &wr, &bad); rc != 0) {
    fail("ibv_post_send", rc);
  }
}

void PerfEndpoint::post_write(size_t length, uint64_t remote_address, uint32_t rkey, bool signaled)
{
  ibv_sge sge{};
  sge.addr = address();
  sge.length = static_cast<uint32_t>(length);
  sge.lkey = m_mr->lkey;
  ibv_send_wr wr{};
  wr.wr_id = 3;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.send_flags = signaled ? IBV_SEND_SIGNALED : 0;
  wr.wr.rdma.remote_addr = remote_address;
  wr.wr.rdma.rkey = rkey;
  ibv_send_wr* bad = nullptr;
  if (const int rc = ibv_post_send(m_id->qp, &wr, &bad); rc != 0) {
    fail("ibv_post_send (RDMA WRITE)", rc);
  }
}

int PerfEndpoint::poll(ibv_wc* wc, int n)
{
  const int got = ibv_poll_cq(m_cq, n, wc);
  if (got < 0) {
    throw std::runtime_error("ibv_poll_cq failed");
  }
  return got;
}

}  // namespace ibsetup::check::rdma
