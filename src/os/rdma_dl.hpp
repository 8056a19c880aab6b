// libibverbs and librdmacm are loaded when a command first calls them, not linked: most commands
// never touch RDMA, and two more libraries (with their own dependencies) at every start cost
// them all (issue 15). rdma_dl.cpp defines, inside the library, every ibv_* and rdma_* function
// the code calls; each forwards to the real one, the same symbol version a link would bind.
// When a library or a function is missing, the function fails as documented (NULL, -1 or an
// errno value; errno ENOSYS) and the messages below say why.
#pragma once

#include <string>

namespace ibsetup::os {

// Empty when libibverbs.so.1 loaded (or was not needed yet), else why not: for the message of a
// command whose RDMA call failed with ENOSYS.
std::string verbs_load_error();
// The same for librdmacm.so.1.
std::string rdmacm_load_error();

// error's text: the load error above when error is ENOSYS and loading failed, else strerror.
std::string verbs_error_text(int error);
std::string rdmacm_error_text(int error);

// Tests only: load these files instead of the real sonames. Takes effect only before the first
// RDMA call of the process (the libraries are loaded once).
void rdma_dl_sonames_for_test(const char* verbs, const char* rdmacm);

}  // namespace ibsetup::os
