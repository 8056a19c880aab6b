// The loader of libibverbs and librdmacm (rdma_dl.hpp says why they are not linked); the
// functions forwarding to them are in rdma_dl_verbs.cpp and rdma_dl_cm.cpp.
#include "os/rdma_dl.hpp"

#include "os/dl_library.hpp"
#include "os/rdma_dl_impl.hpp"

#include <cerrno>
#include <cstring>

namespace ibsetup::os {
namespace {

constexpr const char* k_package =
    "rdma-core: libibverbs and librdmacm on Rocky 8, libibverbs1 and librdmacm1 on Debian";

DlLibrary& verbs()
{
  static DlLibrary lib("libibverbs.so.1", k_package);
  return lib;
}

DlLibrary& rdmacm()
{
  static DlLibrary lib("librdmacm.so.1", k_package);
  return lib;
}

std::string error_text(DlLibrary& lib, int error)
{
  std::string why = error == ENOSYS ? lib.first_error() : std::string();
  return why.empty() ? std::string(std::strerror(error)) : why;
}

}  // namespace

void* rdma_dl::resolve(rdma_dl::Lib lib, const char* name, const char* version)
{
  return (lib == rdma_dl::Lib::verbs ? verbs() : rdmacm()).symbol(name, version);
}

std::string verbs_load_error()
{
  return verbs().first_error();
}

std::string rdmacm_load_error()
{
  return rdmacm().first_error();
}

std::string verbs_error_text(int error)
{
  return error_text(verbs(), error);
}

std::string rdmacm_error_text(int error)
{
  return error_text(rdmacm(), error);
}

void rdma_dl_sonames_for_test(const char* verbs_soname, const char* rdmacm_soname)
{
  verbs().set_soname_for_test(verbs_soname);
  rdmacm().set_soname_for_test(rdmacm_soname);
}

}  // namespace ibsetup::os
