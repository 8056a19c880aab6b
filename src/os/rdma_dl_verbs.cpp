// libibverbs' functions as libibsetup calls them, each forwarding to libibverbs.so.1 loaded on
// the first call (rdma_dl.hpp says why). libibsetup links with --no-undefined and without
// libibverbs, so a function called but not defined here is a link error. Each dlvsym asks for the
// version node a link against the rdma-core 4x headers binds (`nm -D --undefined-only` of a
// linked build), never a newer default. The parentheses around ibv_query_port and ibv_reg_mr keep
// verbs.h's macros of those names off the definitions.
#include "os/rdma_dl_impl.hpp"

#include <infiniband/verbs.h>

using ibsetup::os::rdma_dl::Lib;
using ibsetup::os::rdma_dl::real;
using ibsetup::os::rdma_dl::unavailable;

extern "C" {

// The functions that report failure as an errno value return ENOSYS itself.
IBSETUP_RDMA_HIDDEN ibv_device** ibv_get_device_list(int* num_devices)
{
  static const auto f =
      real<decltype(&ibv_get_device_list)>(Lib::verbs, "ibv_get_device_list", "IBVERBS_1.1");
  return f != nullptr ? f(num_devices) : unavailable<ibv_device**>(nullptr);
}

IBSETUP_RDMA_HIDDEN void ibv_free_device_list(ibv_device** list)
{
  static const auto f =
      real<decltype(&ibv_free_device_list)>(Lib::verbs, "ibv_free_device_list", "IBVERBS_1.1");
  if (f != nullptr) {
    f(list);
  }
}

IBSETUP_RDMA_HIDDEN const char* ibv_get_device_name(ibv_device* device)
{
  static const auto f =
      real<decltype(&ibv_get_device_name)>(Lib::verbs, "ibv_get_device_name", "IBVERBS_1.1");
  return f != nullptr ? f(device) : unavailable<const char*>(nullptr);
}

IBSETUP_RDMA_HIDDEN ibv_context* ibv_open_device(ibv_device* device)
{
  static const auto f =
      real<decltype(&ibv_open_device)>(Lib::verbs, "ibv_open_device", "IBVERBS_1.1");
  return f != nullptr ? f(device) : unavailable<ibv_context*>(nullptr);
}

IBSETUP_RDMA_HIDDEN int ibv_close_device(ibv_context* context)
{
  static const auto f =
      real<decltype(&ibv_close_device)>(Lib::verbs, "ibv_close_device", "IBVERBS_1.1");
  return f != nullptr ? f(context) : unavailable(-1);
}

IBSETUP_RDMA_HIDDEN int ibv_query_device(ibv_context* context, ibv_device_attr* device_attr)
{
  static const auto f =
      real<decltype(&ibv_query_device)>(Lib::verbs, "ibv_query_device", "IBVERBS_1.1");
  return f != nullptr ? f(context, device_attr) : unavailable(ENOSYS);
}

IBSETUP_RDMA_HIDDEN int(ibv_query_port)(ibv_context* context, uint8_t port_num,
                                        _compat_ibv_port_attr* port_attr)
{
  static const auto f =
      real<decltype(&(ibv_query_port))>(Lib::verbs, "ibv_query_port", "IBVERBS_1.1");
  return f != nullptr ? f(context, port_num, port_attr) : unavailable(ENOSYS);
}

IBSETUP_RDMA_HIDDEN ibv_pd* ibv_alloc_pd(ibv_context* context)
{
  static const auto f = real<decltype(&ibv_alloc_pd)>(Lib::verbs, "ibv_alloc_pd", "IBVERBS_1.1");
  return f != nullptr ? f(context) : unavailable<ibv_pd*>(nullptr);
}

IBSETUP_RDMA_HIDDEN int ibv_dealloc_pd(ibv_pd* pd)
{
  static const auto f =
      real<decltype(&ibv_dealloc_pd)>(Lib::verbs, "ibv_dealloc_pd", "IBVERBS_1.1");
  return f != nullptr ? f(pd) : unavailable(ENOSYS);
}

IBSETUP_RDMA_HIDDEN ibv_mr*(ibv_reg_mr)(ibv_pd* pd, void* addr, size_t length, int access)
{
  static const auto f = real<decltype(&(ibv_reg_mr))>(Lib::verbs, "ibv_reg_mr", "IBVERBS_1.1");
  return f != nullptr ? f(pd, addr, length, access) : unavailable<ibv_mr*>(nullptr);
}

IBSETUP_RDMA_HIDDEN ibv_mr* ibv_reg_mr_iova2(ibv_pd* pd, void* addr, size_t length, uint64_t iova,
                                             unsigned int access)
{
  static const auto f =
      real<decltype(&ibv_reg_mr_iova2)>(Lib::verbs, "ibv_reg_mr_iova2", "IBVERBS_1.8");
  return f != nullptr ? f(pd, addr, length, iova, access) : unavailable<ibv_mr*>(nullptr);
}

IBSETUP_RDMA_HIDDEN int ibv_dereg_mr(ibv_mr* mr)
{
  static const auto f = real<decltype(&ibv_dereg_mr)>(Lib::verbs, "ibv_dereg_mr", "IBVERBS_1.1");
  return f != nullptr ? f(mr) : unavailable(ENOSYS);
}

IBSETUP_RDMA_HIDDEN ibv_comp_channel* ibv_create_comp_channel(ibv_context* context)
{
  static const auto f = real<decltype(&ibv_create_comp_channel)>(
      Lib::verbs, "ibv_create_comp_channel", "IBVERBS_1.0");
  return f != nullptr ? f(context) : unavailable<ibv_comp_channel*>(nullptr);
}

IBSETUP_RDMA_HIDDEN int ibv_destroy_comp_channel(ibv_comp_channel* channel)
{
  static const auto f = real<decltype(&ibv_destroy_comp_channel)>(
      Lib::verbs, "ibv_destroy_comp_channel", "IBVERBS_1.0");
  return f != nullptr ? f(channel) : unavailable(ENOSYS);
}

IBSETUP_RDMA_HIDDEN ibv_cq* ibv_create_cq(ibv_context* context, int cqe, void* cq_context,
                                          ibv_comp_channel* channel, int comp_vector)
{
  static const auto f = real<decltype(&ibv_create_cq)>(Lib::verbs, "ibv_create_cq", "IBVERBS_1.1");
  return f != nullptr ? f(context, cqe, cq_context, channel, comp_vector)
                      : unavailable<ibv_cq*>(nullptr);
}

IBSETUP_RDMA_HIDDEN int ibv_destroy_cq(ibv_cq* cq)
{
  static const auto f =
      real<decltype(&ibv_destroy_cq)>(Lib::verbs, "ibv_destroy_cq", "IBVERBS_1.1");
  return f != nullptr ? f(cq) : unavailable(ENOSYS);
}

IBSETUP_RDMA_HIDDEN int ibv_get_cq_event(ibv_comp_channel* channel, ibv_cq** cq, void** cq_context)
{
  static const auto f =
      real<decltype(&ibv_get_cq_event)>(Lib::verbs, "ibv_get_cq_event", "IBVERBS_1.1");
  return f != nullptr ? f(channel, cq, cq_context) : unavailable(-1);
}

IBSETUP_RDMA_HIDDEN void ibv_ack_cq_events(ibv_cq* cq, unsigned int nevents)
{
  static const auto f =
      real<decltype(&ibv_ack_cq_events)>(Lib::verbs, "ibv_ack_cq_events", "IBVERBS_1.1");
  if (f != nullptr) {
    f(cq, nevents);
  }
}

IBSETUP_RDMA_HIDDEN const char* ibv_wc_status_str(ibv_wc_status status)
{
  static const auto f =
      real<decltype(&ibv_wc_status_str)>(Lib::verbs, "ibv_wc_status_str", "IBVERBS_1.1");
  // libibverbs' own text for a status it does not know.
  return f != nullptr ? f(status) : "unknown";
}

}  // extern "C"
