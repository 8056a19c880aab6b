// The loader of libibverbs and librdmacm (rdma_dl.hpp says why they are not linked); the
// functions forwarding to them are in rdma_dl_verbs.cpp and rdma_dl_cm.cpp.
#include "os/rdma_dl.hpp"

#include "os/rdma_dl_impl.hpp"

#include <dlfcn.h>

#include <cerrno>
#include <cstring>
#include <mutex>

namespace ibsetup::os {
namespace {

struct Library {
  const char* soname;
  std::once_flag once;
  void* handle = nullptr;
  std::mutex error_mutex;
  std::string error;  // the first failure, for the messages

  explicit Library(const char* name) : soname(name) {}

  void note(const std::string& why)
  {
    const std::lock_guard<std::mutex> lock(error_mutex);
    if (error.empty()) {
      error = why;
    }
  }
  std::string first_error()
  {
    const std::lock_guard<std::mutex> lock(error_mutex);
    return error;
  }
};

Library& verbs()
{
  static Library lib("libibverbs.so.1");
  return lib;
}

Library& rdmacm()
{
  static Library lib("librdmacm.so.1");
  return lib;
}

void* lookup(Library& lib, const char* name, const char* version)
{
  std::call_once(lib.once, [&lib] {
    // RTLD_LOCAL is enough: librdmacm and libibverbs' providers name libibverbs.so.1 as their
    // own dependency, which binds them to this same copy.
    lib.handle = dlopen(lib.soname, RTLD_NOW | RTLD_LOCAL);
    if (lib.handle == nullptr) {
      const char* why = dlerror();
      lib.note(std::string(lib.soname) + " cannot be loaded (rdma-core: libibverbs and " +
               "librdmacm on Rocky 8, libibverbs1 and librdmacm1 on Debian): " +
               (why != nullptr ? why : "unknown error"));
    }
    // Kept loaded for the life of the process: providers and threads may still use it.
  });
  if (lib.handle == nullptr) {
    return nullptr;
  }
  void* fn = dlvsym(lib.handle, name, version);
  if (fn == nullptr) {
    lib.note(std::string(lib.soname) + " has no " + name + "@" + version + " (rdma-core too old?)");
  }
  return fn;
}

std::string error_text(Library& lib, int error)
{
  std::string why = error == ENOSYS ? lib.first_error() : std::string();
  return why.empty() ? std::string(std::strerror(error)) : why;
}

}  // namespace

void* rdma_dl::resolve(rdma_dl::Lib lib, const char* name, const char* version)
{
  return lookup(lib == rdma_dl::Lib::verbs ? verbs() : rdmacm(), name, version);
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
  verbs().soname = verbs_soname;
  rdmacm().soname = rdmacm_soname;
}

}  // namespace ibsetup::os
