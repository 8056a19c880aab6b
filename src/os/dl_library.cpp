#include "os/dl_library.hpp"

#include <dlfcn.h>

namespace ibsetup::os {

void* DlLibrary::symbol(const char* name, const char* version)
{
  std::call_once(m_once, [this] {
    // RTLD_LOCAL is enough: what else uses the library (librdmacm and libibverbs' providers
    // use libibverbs.so.1) names it as its own dependency, which binds it to this same copy.
    m_handle = dlopen(m_soname, RTLD_NOW | RTLD_LOCAL);
    if (m_handle == nullptr) {
      const char* why = dlerror();
      note(std::string(m_soname) + " cannot be loaded (" + m_package +
           "): " + (why != nullptr ? why : "unknown error"));
    }
  });
  if (m_handle == nullptr) {
    return nullptr;
  }
  void* fn = version != nullptr ? dlvsym(m_handle, name, version) : dlsym(m_handle, name);
  if (fn == nullptr) {
    note(std::string(m_soname) + " has no " + name +
         (version != nullptr ? std::string("@") + version : std::string()) + " (too old?)");
  }
  return fn;
}

std::string DlLibrary::first_error()
{
  const std::lock_guard<std::mutex> lock(m_error_mutex);
  return m_error;
}

void DlLibrary::note(const std::string& why)
{
  const std::lock_guard<std::mutex> lock(m_error_mutex);
  if (m_error.empty()) {
    m_error = why;
  }
}

}  // namespace ibsetup::os
