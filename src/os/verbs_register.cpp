#include "os/verbs_register.hpp"

#include <infiniband/verbs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <memory>

namespace ibsetup::os {

namespace {

// errno after a call that failed, never 0: a provider may return NULL without setting it.
int last_error()
{
  return errno != 0 ? errno : EIO;
}

struct DeviceList {
  ibv_device** list = nullptr;
  ~DeviceList()
  {
    if (list != nullptr) {
      ibv_free_device_list(list);
    }
  }
};

}  // namespace

RegisterOutcome register_memory(const std::string& device, size_t bytes)
{
  RegisterOutcome out;
  const auto fail = [&](const char* step, int error) {
    out.step = step;
    out.error = error;
    return out;
  };
  int count = 0;
  errno = 0;
  DeviceList devices;
  devices.list = ibv_get_device_list(&count);
  if (devices.list == nullptr) {
    return fail("ibv_get_device_list", last_error());
  }
  ibv_device* dev = nullptr;
  for (int i = 0; i < count; ++i) {
    if (device == ibv_get_device_name(devices.list[i])) {
      dev = devices.list[i];
      break;
    }
  }
  if (dev == nullptr) {
    return fail("ibv_open_device", ENODEV);
  }
  errno = 0;
  const std::unique_ptr<ibv_context, int (*)(ibv_context*)> ctx(ibv_open_device(dev),
                                                                &ibv_close_device);
  if (!ctx) {
    return fail("ibv_open_device", last_error());
  }
  errno = 0;
  const std::unique_ptr<ibv_pd, int (*)(ibv_pd*)> pd(ibv_alloc_pd(ctx.get()), &ibv_dealloc_pd);
  if (!pd) {
    return fail("ibv_alloc_pd", last_error());
  }
  // Page-aligned, as MPI libraries allocate their registered pools.
  void* raw = nullptr;
  const long page = sysconf(_SC_PAGESIZE);
  if (const int e = posix_memalign(&raw, page > 0 ? static_cast<size_t>(page) : 4096, bytes);
      e != 0) {
    return fail("malloc", e);
  }
  // Not touched first: registering pins (and so faults in) every page, as it would for MPI.
  const std::unique_ptr<void, void (*)(void*)> buffer(raw, &std::free);
  errno = 0;
  ibv_mr* mr =
      ibv_reg_mr(pd.get(), buffer.get(), bytes,
                 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
  if (mr == nullptr) {
    return fail("ibv_reg_mr", last_error());
  }
  if (const int e = ibv_dereg_mr(mr); e != 0) {
    return fail("ibv_dereg_mr", e);
  }
  return out;
}

}  // namespace ibsetup::os
