// What the forwarding definitions of rdma_dl_verbs.cpp and rdma_dl_cm.cpp share with the loader
// (rdma_dl.cpp); rdma_dl.hpp says why the RDMA libraries are loaded and not linked.
#pragma once

#include <cerrno>

namespace ibsetup::os::rdma_dl {

enum class Lib { verbs, rdmacm };

// The function `name` of version node `version` of the library, loaded on the first call; null
// when the library or the function is missing (rdma_dl.hpp's messages then say which).
void* resolve(Lib lib, const char* name, const char* version);

template <typename F>
F real(Lib lib, const char* name, const char* version)
{
  return reinterpret_cast<F>(resolve(lib, name, version));
}

// The documented failure of a missing function: the value, errno ENOSYS.
template <typename T>
T unavailable(T value)
{
  errno = ENOSYS;
  return value;
}

}  // namespace ibsetup::os::rdma_dl

// Hidden, and local by the version script too: nothing outside libibsetup, libibverbs' own
// providers included, may bind to these definitions instead of the real functions.
#define IBSETUP_RDMA_HIDDEN __attribute__((visibility("hidden")))
