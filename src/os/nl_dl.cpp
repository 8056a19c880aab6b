// libnl-3's functions as libibsetup calls them (nl_dl.hpp says why they are not linked). Like
// rdma_dl_verbs.cpp: libibsetup links with --no-undefined and without libnl-3, so a function
// called but not defined here is a link error. Each function has one version in libnl-3.so.200
// (none in Debian's build; upstream's libnl_3* nodes, as on Rocky 8, give each one default
// version), so dlsym binds what a link would.
#include "os/nl_dl.hpp"

#include "os/dl_library.hpp"

#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/handlers.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

namespace ibsetup::os {
namespace {

DlLibrary& libnl()
{
  static DlLibrary lib("libnl-3.so.200", "libnl3 on Rocky 8, libnl-3-200 on Debian");
  return lib;
}

template <typename F>
F real(const char* name)
{
  return reinterpret_cast<F>(libnl().symbol(name));
}

}  // namespace

std::string nl_load_error()
{
  if (libnl().symbol("nl_socket_alloc") != nullptr) {
    return {};
  }
  return libnl().first_error();
}

}  // namespace ibsetup::os

using ibsetup::os::real;

// Hidden, and local by the version script too: nothing outside libibsetup may bind to these
// definitions instead of libnl's.
#define IBSETUP_NL_HIDDEN __attribute__((visibility("hidden")))

extern "C" {

IBSETUP_NL_HIDDEN nl_sock* nl_socket_alloc(void)
{
  static const auto f = real<decltype(&nl_socket_alloc)>("nl_socket_alloc");
  return f != nullptr ? f() : nullptr;
}

IBSETUP_NL_HIDDEN void nl_socket_free(nl_sock* sock)
{
  static const auto f = real<decltype(&nl_socket_free)>("nl_socket_free");
  if (f != nullptr) {
    f(sock);
  }
}

IBSETUP_NL_HIDDEN void nl_socket_disable_msg_peek(nl_sock* sock)
{
  static const auto f = real<decltype(&nl_socket_disable_msg_peek)>("nl_socket_disable_msg_peek");
  if (f != nullptr) {
    f(sock);
  }
}

IBSETUP_NL_HIDDEN int nl_connect(nl_sock* sock, int protocol)
{
  static const auto f = real<decltype(&nl_connect)>("nl_connect");
  return f != nullptr ? f(sock, protocol) : -NLE_FAILURE;
}

IBSETUP_NL_HIDDEN const char* nl_geterror(int error)
{
  static const auto f = real<decltype(&nl_geterror)>("nl_geterror");
  return f != nullptr ? f(error) : "libnl-3 is not loaded";
}

IBSETUP_NL_HIDDEN int nl_send_auto(nl_sock* sock, nl_msg* msg)
{
  static const auto f = real<decltype(&nl_send_auto)>("nl_send_auto");
  return f != nullptr ? f(sock, msg) : -NLE_FAILURE;
}

IBSETUP_NL_HIDDEN int nl_recvmsgs(nl_sock* sock, nl_cb* cb)
{
  static const auto f = real<decltype(&nl_recvmsgs)>("nl_recvmsgs");
  return f != nullptr ? f(sock, cb) : -NLE_FAILURE;
}

IBSETUP_NL_HIDDEN nl_cb* nl_cb_alloc(enum nl_cb_kind kind)
{
  static const auto f = real<decltype(&nl_cb_alloc)>("nl_cb_alloc");
  return f != nullptr ? f(kind) : nullptr;
}

IBSETUP_NL_HIDDEN void nl_cb_put(nl_cb* cb)
{
  static const auto f = real<decltype(&nl_cb_put)>("nl_cb_put");
  if (f != nullptr) {
    f(cb);
  }
}

IBSETUP_NL_HIDDEN int nl_cb_set(nl_cb* cb, enum nl_cb_type type, enum nl_cb_kind kind,
                                nl_recvmsg_msg_cb_t func, void* arg)
{
  static const auto f = real<decltype(&nl_cb_set)>("nl_cb_set");
  return f != nullptr ? f(cb, type, kind, func, arg) : -NLE_FAILURE;
}

IBSETUP_NL_HIDDEN int nl_cb_err(nl_cb* cb, enum nl_cb_kind kind, nl_recvmsg_err_cb_t func,
                                void* arg)
{
  static const auto f = real<decltype(&nl_cb_err)>("nl_cb_err");
  return f != nullptr ? f(cb, kind, func, arg) : -NLE_FAILURE;
}

IBSETUP_NL_HIDDEN nl_msg* nlmsg_alloc_simple(int type, int flags)
{
  static const auto f = real<decltype(&nlmsg_alloc_simple)>("nlmsg_alloc_simple");
  return f != nullptr ? f(type, flags) : nullptr;
}

IBSETUP_NL_HIDDEN void nlmsg_free(nl_msg* msg)
{
  static const auto f = real<decltype(&nlmsg_free)>("nlmsg_free");
  if (f != nullptr) {
    f(msg);
  }
}

IBSETUP_NL_HIDDEN int nlmsg_append(nl_msg* msg, void* data, size_t length, int pad)
{
  static const auto f = real<decltype(&nlmsg_append)>("nlmsg_append");
  return f != nullptr ? f(msg, data, length, pad) : -NLE_NOMEM;
}

IBSETUP_NL_HIDDEN nlmsghdr* nlmsg_hdr(nl_msg* msg)
{
  static const auto f = real<decltype(&nlmsg_hdr)>("nlmsg_hdr");
  return f != nullptr ? f(msg) : nullptr;
}

IBSETUP_NL_HIDDEN void* nlmsg_data(const nlmsghdr* header)
{
  static const auto f = real<decltype(&nlmsg_data)>("nlmsg_data");
  return f != nullptr ? f(header) : nullptr;
}

IBSETUP_NL_HIDDEN int nla_put(nl_msg* msg, int type, int length, const void* data)
{
  static const auto f = real<decltype(&nla_put)>("nla_put");
  return f != nullptr ? f(msg, type, length, data) : -NLE_NOMEM;
}

IBSETUP_NL_HIDDEN int nla_put_string(nl_msg* msg, int type, const char* text)
{
  static const auto f = real<decltype(&nla_put_string)>("nla_put_string");
  return f != nullptr ? f(msg, type, text) : -NLE_NOMEM;
}

IBSETUP_NL_HIDDEN int nla_put_u16(nl_msg* msg, int type, uint16_t value)
{
  static const auto f = real<decltype(&nla_put_u16)>("nla_put_u16");
  return f != nullptr ? f(msg, type, value) : -NLE_NOMEM;
}

IBSETUP_NL_HIDDEN int nla_put_u32(nl_msg* msg, int type, uint32_t value)
{
  static const auto f = real<decltype(&nla_put_u32)>("nla_put_u32");
  return f != nullptr ? f(msg, type, value) : -NLE_NOMEM;
}

IBSETUP_NL_HIDDEN nlattr* nla_nest_start(nl_msg* msg, int type)
{
  static const auto f = real<decltype(&nla_nest_start)>("nla_nest_start");
  return f != nullptr ? f(msg, type) : nullptr;
}

IBSETUP_NL_HIDDEN int nla_nest_end(nl_msg* msg, nlattr* start)
{
  static const auto f = real<decltype(&nla_nest_end)>("nla_nest_end");
  return f != nullptr ? f(msg, start) : -NLE_NOMEM;
}

}  // extern "C"
