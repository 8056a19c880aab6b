// RDMA devices removed while a process that used them runs (a driver unload, an HCA's reset,
// `rdma link delete`): what it takes for librdmacm to let them go.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

struct ibv_device;

namespace ibsetup::check::rdma {

// The responder's view of the device list, taken again every k_device_sync. librdmacm (rdma-core
// 31 and later) closes a removed device's verbs context only when a listing of its own no
// longer shows the device, and rdma_get_devices is the only call that lists them again. Until
// then the kernel waits for it before it removes a Soft-RoCE or siw device (their contexts
// cannot be taken back from a process). So when a device leaves the list, the watch has
// librdmacm list them again, which opens every device left. With no device left librdmacm
// cannot list (an empty list is an error to it): then a device that is still being removed
// after k_last_device_grace syncs, while this process holds a uverbs device open, ends it.
class DeviceWatch {
public:
  explicit DeviceWatch(std::string sysfs_root) : m_sysfs_root(std::move(sysfs_root)) {}

  // Throws EnvironmentError when the process must end for a removal to finish, or when
  // librdmacm could not open the devices left, twice in a row.
  void sync();

private:
  std::string m_sysfs_root;
  std::vector<std::pair<ibv_device*, std::string>> m_listed;  // sorted
  std::map<std::string, int> m_vanished;  // left the list, still in sysfs: syncs since
  // (a name listed again is taken off: it is another device)
  bool m_short = false;  // the last rdma_get_devices opened fewer than listed
};

// Has librdmacm list the devices again, closing what it holds of removed ones: for a process
// that goes on after a removal ended one of its sessions.
void release_removed_devices();

}  // namespace ibsetup::check::rdma
