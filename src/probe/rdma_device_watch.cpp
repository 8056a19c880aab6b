#include "probe/rdma_device_watch.hpp"

#include "os/rdma_dl.hpp"

#include <ibsetup/error.hpp>

#include <dirent.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <string_view>

namespace ibsetup::check::rdma {

namespace {

// Whether this process holds a uverbs device node open: asked when no device is listed, so
// any it holds is of a removed device, which the kernel may be waiting for. (Not "(deleted)"
// in the link: where /dev is not devtmpfs, in a container, the node stays.)
bool holds_uverbs()
{
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) {
    return true;  // cannot tell: ending is what lets a removal finish
  }
  bool held = false;
  while (const dirent* e = readdir(dir)) {
    char target[PATH_MAX];
    const std::string link = std::string("/proc/self/fd/") + e->d_name;
    const ssize_t n = readlink(link.c_str(), target, sizeof target);
    if (n <= 0) {
      continue;
    }
    const std::string_view t(target, static_cast<size_t>(n));
    constexpr std::string_view prefix = "/dev/infiniband/uverbs";
    if (t.substr(0, prefix.size()) == prefix) {
      held = true;
      break;
    }
  }
  closedir(dir);
  return held;
}

// Syncs a device no longer listed may still be in sysfs before the responder, holding a
// uverbs device open with no device listed, ends for it.
constexpr int k_last_device_grace = 5;

bool safe_name(const std::string& name)
{
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos;
}

}  // namespace

void DeviceWatch::sync()
{
  int n = 0;
  ibv_device** list = ibv_get_device_list(&n);
  if (list == nullptr) {
    return;  // no listing this time (out of memory, netlink refused): the next one
  }
  std::vector<std::pair<ibv_device*, std::string>> listed;
  for (int i = 0; i < n && list[i] != nullptr; ++i) {
    const char* name = ibv_get_device_name(list[i]);
    listed.emplace_back(list[i], name != nullptr ? name : "");
  }
  ibv_free_device_list(list);
  std::sort(listed.begin(), listed.end());
  bool gone = false;
  for (const auto& device : m_listed) {
    if (std::binary_search(listed.begin(), listed.end(), device)) {
      continue;
    }
    gone = true;
    if (safe_name(device.second)) {
      m_vanished.insert_or_assign(device.second, 0);
    }
  }
  // A device back under its name is another device: its predecessor's removal has finished.
  for (const auto& device : listed) {
    m_vanished.erase(device.second);
  }
  m_listed = std::move(listed);
  if (m_listed.empty()) {
    m_short = false;  // nothing to open; a device listed later starts afresh
  } else if (gone || m_short) {
    int opened = 0;
    if (ibv_context** contexts = rdma_get_devices(&opened); contexts != nullptr) {
      rdma_free_devices(contexts);
    }
    // A device librdmacm fails to open here stays dead to it for the process's life: every
    // connection through it would fail. Short once may be a device that left between the two
    // listings; short twice is a device it could not open, and the responder ends.
    const bool was_short = m_short;
    m_short = opened < static_cast<int>(m_listed.size());
    if (m_short && was_short) {
      throw EnvironmentError("responder: librdmacm opened " + std::to_string(opened) + " of the " +
                             std::to_string(m_listed.size()) +
                             " RDMA devices after a removal; connections through the others "
                             "would fail, so the responder ends");
    }
  }
  for (auto it = m_vanished.begin(); it != m_vanished.end();) {
    if (access((m_sysfs_root + "/class/infiniband/" + it->first).c_str(), F_OK) != 0) {
      it = m_vanished.erase(it);  // its removal has finished
    } else {
      ++it->second;
      ++it;
    }
  }
  if (!m_listed.empty()) {
    return;
  }
  // A later look: a removal that does not wait for this process (a driver that takes its
  // contexts back, as mlx5 does) has finished by then.
  for (const auto& [name, syncs] : m_vanished) {
    if (syncs > k_last_device_grace && holds_uverbs()) {
      throw EnvironmentError("responder: the RDMA device " + name +
                             " is being removed and it was the last one; the responder ends "
                             "so that the removal can finish");
    }
  }
}

void release_removed_devices()
{
  if (ibv_context** contexts = rdma_get_devices(nullptr); contexts != nullptr) {
    rdma_free_devices(contexts);
  }
}

}  // namespace ibsetup::check::rdma
