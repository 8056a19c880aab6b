#include "os/spent_fds.hpp"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>

// Rocky 8's glibc and kernel headers predate close_range. Its number is 436 on x86_64,
// aarch64 and ppc64le alike (every architecture but alpha since Linux 5.1 numbers new calls
// the same).
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

namespace ibsetup::inventory {

namespace {

// Set once close_range has failed: the kernel lacks it or a filter refuses it, and asking
// again for every batch would only add a failing call.
std::atomic<bool> g_no_close_range{false};

bool close_range_run(int first, int last)
{
  if (g_no_close_range.load(std::memory_order_relaxed)) {
    return false;
  }
  if (syscall(SYS_close_range, static_cast<unsigned>(first), static_cast<unsigned>(last), 0U) ==
      0) {
    return true;
  }
  // close_range fails only before it closes anything (EINVAL, ENOSYS, EPERM from seccomp).
  g_no_close_range.store(true, std::memory_order_relaxed);
  return false;
}

}  // namespace

void close_spent(std::vector<int>& fds, bool use_range)
{
  std::sort(fds.begin(), fds.end());
  // A number given twice would be closed twice, the second time perhaps another thread's new
  // descriptor; a negative one is no descriptor at all.
  fds.erase(std::unique(fds.begin(), fds.end()), fds.end());
  fds.erase(fds.begin(), std::lower_bound(fds.begin(), fds.end(), 0));
  size_t i = 0;
  while (i < fds.size()) {
    size_t j = i;
    while (j + 1 < fds.size() && fds[j + 1] == fds[j] + 1) {
      ++j;
    }
    if (j == i || !use_range || !close_range_run(fds[i], fds[j])) {
      for (size_t k = i; k <= j; ++k) {
        close(fds[k]);
      }
    }
    i = j + 1;
  }
  fds.clear();
}

bool own_descriptor_table()
{
  return unshare(CLONE_FILES) == 0;
}

void SpentFds::add(int fd)
{
  if (fd < 0) {
    return;
  }
  m_fds.push_back(fd);  // never reallocates: reserved in the constructor, flushed when full
  if (m_fds.size() >= m_capacity) {
    flush();
  }
}

}  // namespace ibsetup::inventory
