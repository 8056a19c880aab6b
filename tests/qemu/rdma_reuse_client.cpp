// A client that reuses the responder's connection ids (tests/qemu/guest_perf.sh): each round
// a ping-pong session A sends its ping and disconnects, and a bandwidth or latency session B
// connects straight after. The responder frees A's rdma_cm_id on the disconnect and the RDMA
// CM often hands B the same address; the responder then took A's readable completion
// descriptor for B's and read a completion channel B does not have (SIGSEGV within a few
// rounds, from an attack of 2026-12-06). Exits 0 when every round's B was accepted, 1 when the
// responder stopped answering, 2 on usage or setup errors.
//
// KIND 0 is one ping-pong session that pings ROUNDS times, each after the last echo came
// back: the responder logs its first echo and then one line for the rest, not a line each.
//
//   rdma_reuse_client DST PORT ROUNDS KIND    (KIND 0 ping-pong, 1 bandwidth, 2 latency)
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <rdma/rdma_cma.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

const char* g_dst = nullptr;
int g_port = 0;

// One client connection with its own event channel, PD, CQ and a registered buffer.
struct Conn {
  rdma_event_channel* ch = nullptr;
  rdma_cm_id* id = nullptr;
  ibv_pd* pd = nullptr;
  ibv_cq* cq = nullptr;
  ibv_mr* mr = nullptr;
  std::vector<char> buf = std::vector<char>(128);
  bool established = false;
  std::string reject;

  Conn() = default;
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;
  ~Conn()
  {
    if (established) {
      rdma_disconnect(id);
    }
    if (id != nullptr && id->qp != nullptr) {
      rdma_destroy_qp(id);
    }
    if (mr != nullptr) {
      ibv_dereg_mr(mr);
    }
    if (cq != nullptr) {
      ibv_destroy_cq(cq);
    }
    if (pd != nullptr) {
      ibv_dealloc_pd(pd);
    }
    if (id != nullptr) {
      rdma_destroy_id(id);
    }
    if (ch != nullptr) {
      rdma_destroy_event_channel(ch);
    }
  }

  // The next CM event's type, or -1 when none came within timeout_ms.
  int wait_event(int timeout_ms)
  {
    pollfd p{ch->fd, POLLIN, 0};
    if (poll(&p, 1, timeout_ms) <= 0) {
      return -1;
    }
    rdma_cm_event* e = nullptr;
    if (rdma_get_cm_event(ch, &e) != 0) {
      return -1;
    }
    const int type = e->event;
    if (type == RDMA_CM_EVENT_REJECTED && e->param.conn.private_data != nullptr) {
      const auto* data = static_cast<const char*>(e->param.conn.private_data);
      reject.assign(data, strnlen(data, e->param.conn.private_data_len));
    }
    rdma_ack_cm_event(e);
    return type;
  }

  bool prepare()
  {
    ch = rdma_create_event_channel();
    if (ch == nullptr || rdma_create_id(ch, &id, nullptr, RDMA_PS_TCP) != 0) {
      return false;
    }
    sockaddr_in dst{};
    dst.sin_family = AF_INET;
    dst.sin_port = htons(static_cast<uint16_t>(g_port));
    if (inet_pton(AF_INET, g_dst, &dst.sin_addr) != 1 ||
        rdma_resolve_addr(id, nullptr, reinterpret_cast<sockaddr*>(&dst), 2000) != 0 ||
        wait_event(3000) != RDMA_CM_EVENT_ADDR_RESOLVED || rdma_resolve_route(id, 2000) != 0 ||
        wait_event(3000) != RDMA_CM_EVENT_ROUTE_RESOLVED) {
      return false;
    }
    pd = ibv_alloc_pd(id->verbs);
    cq = ibv_create_cq(id->verbs, 16, nullptr, nullptr, 0);
    mr = pd == nullptr ? nullptr
                       : ibv_reg_mr(pd, buf.data(), buf.size(),
                                    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (pd == nullptr || cq == nullptr || mr == nullptr) {
      return false;
    }
    ibv_qp_init_attr a{};
    a.send_cq = cq;
    a.recv_cq = cq;
    a.qp_type = IBV_QPT_RC;
    a.cap.max_send_wr = 4;
    a.cap.max_recv_wr = 4;
    a.cap.max_send_sge = 1;
    a.cap.max_recv_sge = 1;
    return rdma_create_qp(id, pd, &a) == 0;
  }

  // 1 established, 0 rejected (reject holds the reason), -1 neither within 4 s.
  int connect(const void* data, uint8_t size)
  {
    rdma_conn_param p{};
    p.responder_resources = 1;
    p.initiator_depth = 1;
    p.retry_count = 7;
    p.rnr_retry_count = 7;
    p.private_data = data;
    p.private_data_len = size;
    if (rdma_connect(id, &p) != 0) {
      return -1;
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(4);
    while (std::chrono::steady_clock::now() < until) {
      const int type = wait_event(100);
      if (type == RDMA_CM_EVENT_ESTABLISHED) {
        established = true;
        return 1;
      }
      if (type == RDMA_CM_EVENT_REJECTED) {
        return 0;
      }
      if (type >= 0) {
        return -1;
      }
    }
    return -1;
  }

  bool post(bool send)
  {
    ibv_sge s{reinterpret_cast<uintptr_t>(buf.data() + (send ? 0 : 64)), 64, mr->lkey};
    if (send) {
      ibv_send_wr w{};
      ibv_send_wr* bad = nullptr;
      w.opcode = IBV_WR_SEND;
      w.send_flags = IBV_SEND_SIGNALED;
      w.sg_list = &s;
      w.num_sge = 1;
      return ibv_post_send(id->qp, &w, &bad) == 0;
    }
    ibv_recv_wr w{};
    ibv_recv_wr* bad = nullptr;
    w.sg_list = &s;
    w.num_sge = 1;
    return ibv_post_recv(id->qp, &w, &bad) == 0;
  }
};

// The session request of src/probe/rdma_perf_logic.cpp: "IBS1", the kind, size, duration.
void request(unsigned char* d, unsigned kind, uint32_t size, uint32_t duration_s)
{
  std::memset(d, 0, 16);
  std::memcpy(d, "IBS1", 4);
  d[4] = static_cast<unsigned char>(kind);
  for (int i = 0; i < 4; ++i) {
    d[8 + i] = static_cast<unsigned char>(size >> (24 - 8 * i));
    d[12 + i] = static_cast<unsigned char>(duration_s >> (24 - 8 * i));
  }
}

// KIND 0: ROUNDS pings on one connection; 0 when every echo came back within 2 s.
int ping_again(int rounds)
{
  Conn a;
  if (!a.prepare() || !a.post(false) || a.connect(nullptr, 0) != 1) {
    std::printf("pingpong: session not accepted (%s)\n", a.reject.c_str());
    return 1;
  }
  int echoes = 0;
  for (int i = 0; i < rounds; ++i) {
    if (!a.post(true)) {
      std::printf("pingpong: cannot post ping %d\n", i + 1);
      return 2;
    }
    bool sent = false;
    bool back = false;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (!(sent && back) && std::chrono::steady_clock::now() < until) {
      ibv_wc wc[4];
      const int n = ibv_poll_cq(a.cq, 4, wc);
      for (int k = 0; k < n; ++k) {
        if (wc[k].status != IBV_WC_SUCCESS) {
          std::printf("pingpong: ping %d: %s\n", i + 1, ibv_wc_status_str(wc[k].status));
          return 1;
        }
        sent = sent || wc[k].opcode == IBV_WC_SEND;
        back = back || wc[k].opcode == IBV_WC_RECV;
      }
    }
    if (!(sent && back)) {
      break;
    }
    ++echoes;
    if (!a.post(false)) {
      std::printf("pingpong: cannot post receive %d\n", i + 2);
      return 2;
    }
  }
  std::printf("pingpong: %d of %d echoes\n", echoes, rounds);
  return echoes == rounds ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv)
{
  if (argc != 5) {
    std::fprintf(stderr, "usage: rdma_reuse_client DST PORT ROUNDS KIND\n");
    return 2;
  }
  g_dst = argv[1];
  g_port = std::atoi(argv[2]);
  const int rounds = std::atoi(argv[3]);
  const unsigned kind = static_cast<unsigned>(std::atoi(argv[4]));
  if (kind == 0) {
    return ping_again(rounds);
  }
  int accepted = 0;
  for (int i = 0; i < rounds; ++i) {
    Conn a;
    Conn b;
    if (!a.prepare() || !a.post(false) || a.connect(nullptr, 0) != 1) {
      std::printf("reuse: round %d: ping-pong session not accepted (%s)\n", i + 1,
                  a.reject.c_str());
      break;
    }
    if (!b.prepare()) {
      std::printf("reuse: round %d: setup failed\n", i + 1);
      return 2;
    }
    unsigned char d[16];
    request(d, kind, kind == 1 ? 4096 : 64, 1);
    // Back to back: A's echo (its descriptor readable), A's disconnect, B's connect request.
    if (!a.post(true)) {
      std::printf("reuse: round %d: cannot post the ping\n", i + 1);
      return 2;
    }
    rdma_disconnect(a.id);
    a.established = false;
    const int r = b.connect(d, sizeof d);
    if (r != 1) {
      std::printf("reuse: round %d: session not accepted (%s)\n", i + 1,
                  r == 0 ? b.reject.c_str() : "no answer");
      break;
    }
    ++accepted;
  }
  std::printf("reuse: %d of %d rounds accepted\n", accepted, rounds);
  return accepted == rounds ? 0 : 1;
}
