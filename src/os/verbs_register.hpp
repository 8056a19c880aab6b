// Memory registration as an MPI library does it at start-up (ibv_reg_mr of a large buffer): the
// one place outside verbs_device.cpp that calls libibverbs for the mpi.reg_mr check.
#pragma once

#include <cstddef>
#include <string>

namespace ibsetup::os {

// What registering a buffer did. error is 0 on success, else the errno of the step that failed
// ("ibv_get_device_list", "ibv_open_device", "ibv_alloc_pd", "malloc", "ibv_reg_mr"); ENODEV
// with step "ibv_open_device" when libibverbs does not list the device.
struct RegisterOutcome {
  int error = 0;
  std::string step;
};

// Opens device, allocates a protection domain, registers a fresh buffer of bytes for local and
// remote access, then releases all of it. Never throws for what the device or kernel refuses.
RegisterOutcome register_memory(const std::string& device, size_t bytes);

}  // namespace ibsetup::os
