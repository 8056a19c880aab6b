// A shared library loaded when first needed instead of linked: libibverbs and librdmacm
// (rdma_dl.cpp) and libibmad (smp_port.cpp). Most commands never call them, and every linked
// library costs every start (issue 15).
#pragma once

#include <mutex>
#include <string>

namespace ibsetup::os {

class DlLibrary {
public:
  // `package`: where the library comes from, for the message when it cannot be loaded
  // ("rdma-core: libibverbs on Rocky 8, libibverbs1 on Debian").
  DlLibrary(const char* soname, const char* package) : m_soname(soname), m_package(package) {}
  DlLibrary(const DlLibrary&) = delete;
  DlLibrary& operator=(const DlLibrary&) = delete;

  // The function `name`, of version node `version` when not null (what a link would bind);
  // null when the library or the function is missing, and first_error() then says which. The
  // library is opened on the first call (RTLD_NOW | RTLD_LOCAL) and kept for the process's
  // life: its threads and its own dependencies may still use it. Thread-safe.
  void* symbol(const char* name, const char* version = nullptr);

  // Empty while nothing failed, else the first failure: "<soname> cannot be loaded (<package>):
  // <dlerror>" or "<soname> has no <name>[@<version>] (too old?)".
  std::string first_error();

  // Tests only: open this file instead, if the library has not been opened yet.
  void set_soname_for_test(const char* soname) { m_soname = soname; }

private:
  void note(const std::string& why);

  const char* m_soname;
  const char* m_package;
  std::once_flag m_once;
  void* m_handle = nullptr;
  std::mutex m_error_mutex;
  std::string m_error;
};

}  // namespace ibsetup::os
