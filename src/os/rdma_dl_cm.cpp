// librdmacm's functions as libibsetup calls them, each forwarding to librdmacm.so.1 loaded on the
// first call; rdma_dl_verbs.cpp says how the set is kept complete and which versions are bound.
#include "os/rdma_dl_impl.hpp"

#include <rdma/rdma_cma.h>

using ibsetup::os::rdma_dl::Lib;
using ibsetup::os::rdma_dl::real;
using ibsetup::os::rdma_dl::unavailable;

extern "C" {

// Failures are -1 with errno, or NULL.
IBSETUP_RDMA_HIDDEN rdma_event_channel* rdma_create_event_channel(void)
{
  static const auto f = real<decltype(&rdma_create_event_channel)>(
      Lib::rdmacm, "rdma_create_event_channel", "RDMACM_1.0");
  return f != nullptr ? f() : unavailable<rdma_event_channel*>(nullptr);
}

IBSETUP_RDMA_HIDDEN void rdma_destroy_event_channel(rdma_event_channel* channel)
{
  static const auto f = real<decltype(&rdma_destroy_event_channel)>(
      Lib::rdmacm, "rdma_destroy_event_channel", "RDMACM_1.0");
  if (f != nullptr) {
    f(channel);
  }
}

IBSETUP_RDMA_HIDDEN int rdma_create_id(rdma_event_channel* channel, rdma_cm_id** id, void* context,
                                       rdma_port_space ps)
{
  static const auto f =
      real<decltype(&rdma_create_id)>(Lib::rdmacm, "rdma_create_id", "RDMACM_1.0");
  return f != nullptr ? f(channel, id, context, ps) : unavailable(-1);
}

IBSETUP_RDMA_HIDDEN int rdma_destroy_id(rdma_cm_id* id)
{
  static const auto f =
      real<decltype(&rdma_destroy_id)>(Lib::rdmacm, "rdma_destroy_id", "RDMACM_1.0");
  return f != nullptr ? f(id) : unavailable(-1);
}

IBSETUP_RDMA_HIDDEN int rdma_bind_addr(rdma_cm_id* id, sockaddr* addr)
{
  static const auto f =
      real<decltype(&rdma_bind_addr)>(Lib::rdmacm, "rdma_bind_addr", "RDMACM_1.0");
  return f != nullptr ? f(id, addr) : unavailable(-1);
}

IBSETUP_RDMA_HIDDEN int rdma_resolve_addr(rdma_cm_id* id, sockaddr* src_addr, sockaddr* dst_addr,
                                          int timeout_ms)
{
  static const auto f =
      real<decltype(&rdma_resolve_addr)>(Lib::rdmacm, "rdma_resolve_addr", "RDMACM_1.0");
  return f != nullptr ? f(id, src_addr, dst_addr, timeout_ms) : unavailable(-1);
}

IBSETUP_RDMA_HIDDEN int rdma_resolve_route(rdma_cm_id* id, int timeout_ms)
{
  static const auto f =
      real<decltype(&rdma_resolve_route)>(Lib::rdmacm, "rdma_resolve_route", "RDMACM_1.0");
  return f != nullptr ? f(id, timeout_ms) : unavailable(-1);
}

IBSETUP_RDMA_HIDDEN int rdma_create_qp(rdma_cm_id* id, ibv_pd* pd, ibv_qp_init_attr* qp_init_attr)
{
  static const auto f =
      real<decltype(&rdma_create_qp)>(Lib::rdmacm, "rdma_create_qp", "RDMACM_1.0");
  return f != nullptr ? f(id, pd, qp_init_attr) : unavailable(-1);
}

IBSETUP_RDMA_HIDDEN void rdma_destroy_qp(rdma_cm_id* id)
{
  static const auto f =
      real<decltype(&rdma_destroy_qp)>(Lib::rdmacm, "rdma_destroy_qp", "RDMACM_1.0");
  if (f != nullptr) {
    f(id);
  }
}

IBSETUP_RDMA_HIDDEN int rdma_connect(rdma_cm_id* id, rdma_conn_param* conn_param)
{
  static const auto f = real<decltype(&rdma_connect)>(Lib::rdmacm, "rdma_connect", "RDMACM_1.0");
  return f != nullptr ? f(id, conn_param) : unavailable(-1);
}

IBSETUP_RDMA_HIDDEN int rdma_listen(rdma_cm_id* id, int backlog)
{
  static const auto f = real<decltype(&rdma_listen)>(Lib::rdmacm, "rdma_listen", "RDMACM_1.0");
  return f != nullptr ? f(id, backlog) : unavailable(-1);
}

IBSETUP_RDMA_HIDDEN int rdma_accept(rdma_cm_id* id, rdma_conn_param* conn_param)
{
  static const auto f = real<decltype(&rdma_accept)>(Lib::rdmacm, "rdma_accept", "RDMACM_1.0");
  return f != nullptr ? f(id, conn_param) : unavailable(-1);
}

IBSETUP_RDMA_HIDDEN int rdma_reject(rdma_cm_id* id, const void* private_data,
                                    uint8_t private_data_len)
{
  static const auto f = real<decltype(&rdma_reject)>(Lib::rdmacm, "rdma_reject", "RDMACM_1.0");
  return f != nullptr ? f(id, private_data, private_data_len) : unavailable(-1);
}

IBSETUP_RDMA_HIDDEN int rdma_disconnect(rdma_cm_id* id)
{
  static const auto f =
      real<decltype(&rdma_disconnect)>(Lib::rdmacm, "rdma_disconnect", "RDMACM_1.0");
  return f != nullptr ? f(id) : unavailable(-1);
}

IBSETUP_RDMA_HIDDEN int rdma_get_cm_event(rdma_event_channel* channel, rdma_cm_event** event)
{
  static const auto f =
      real<decltype(&rdma_get_cm_event)>(Lib::rdmacm, "rdma_get_cm_event", "RDMACM_1.0");
  return f != nullptr ? f(channel, event) : unavailable(-1);
}

IBSETUP_RDMA_HIDDEN int rdma_ack_cm_event(rdma_cm_event* event)
{
  static const auto f =
      real<decltype(&rdma_ack_cm_event)>(Lib::rdmacm, "rdma_ack_cm_event", "RDMACM_1.0");
  return f != nullptr ? f(event) : unavailable(-1);
}

IBSETUP_RDMA_HIDDEN const char* rdma_event_str(rdma_cm_event_type event)
{
  static const auto f =
      real<decltype(&rdma_event_str)>(Lib::rdmacm, "rdma_event_str", "RDMACM_1.0");
  // librdmacm's own text for an event it does not know.
  return f != nullptr ? f(event) : "UNKNOWN EVENT";
}

IBSETUP_RDMA_HIDDEN __be16 rdma_get_src_port(rdma_cm_id* id)
{
  static const auto f =
      real<decltype(&rdma_get_src_port)>(Lib::rdmacm, "rdma_get_src_port", "RDMACM_1.0");
  return f != nullptr ? f(id) : unavailable<__be16>(0);
}

IBSETUP_RDMA_HIDDEN ibv_context** rdma_get_devices(int* num_devices)
{
  static const auto f =
      real<decltype(&rdma_get_devices)>(Lib::rdmacm, "rdma_get_devices", "RDMACM_1.0");
  if (f != nullptr) {
    return f(num_devices);
  }
  if (num_devices != nullptr) {
    *num_devices = 0;
  }
  return unavailable<ibv_context**>(nullptr);
}

IBSETUP_RDMA_HIDDEN void rdma_free_devices(ibv_context** list)
{
  static const auto f =
      real<decltype(&rdma_free_devices)>(Lib::rdmacm, "rdma_free_devices", "RDMACM_1.0");
  if (f != nullptr) {
    f(list);
  }
}

}  // extern "C"
