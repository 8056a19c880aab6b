#include "os/cpus.hpp"

#include <fcntl.h>
#include <sched.h>  // sched_getaffinity
#include <unistd.h>

#include <algorithm>
#include <thread>

namespace ibsetup::inventory {

size_t usable_cpus()
{
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) {
    return static_cast<size_t>(CPU_COUNT(&set));
  }
  return std::max(1U, std::thread::hardware_concurrency());
}

std::optional<size_t> other_runnable_tasks(const std::string& loadavg)
{
  // "0.06 0.01 0.00 3/412 4567": the fourth field's numerator counts the reader too.
  size_t field = 0;
  size_t i = 0;
  while (i < loadavg.size() && field < 3) {
    if (loadavg[i] == ' ') {
      ++field;
      while (i < loadavg.size() && loadavg[i] == ' ') {
        ++i;
      }
      continue;
    }
    ++i;
  }
  size_t running = 0;
  size_t digits = 0;
  for (; i < loadavg.size() && loadavg[i] >= '0' && loadavg[i] <= '9' && digits < 9;
       ++i, ++digits) {
    running = running * 10 + static_cast<size_t>(loadavg[i] - '0');
  }
  if (field != 3 || digits == 0 || i >= loadavg.size() || loadavg[i] != '/') {
    return std::nullopt;
  }
  return running > 0 ? running - 1 : 0;
}

std::optional<size_t> other_runnable_tasks()
{
  const int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return std::nullopt;
  }
  char buf[128];
  const ssize_t n = read(fd, buf, sizeof buf);
  close(fd);
  if (n <= 0) {
    return std::nullopt;
  }
  return other_runnable_tasks(std::string(buf, static_cast<size_t>(n)));
}

size_t reader_workers(size_t devices, size_t cpus, std::optional<size_t> others_running)
{
  constexpr size_t k_max_workers = 4;
  // Unknown load counts as idle, as before this was measured.
  const size_t busy = std::min(cpus, others_running.value_or(0));
  const size_t free_cpus = cpus - busy;
  return free_cpus > 1 ? std::min({devices, k_max_workers, free_cpus}) : 0;
}

}  // namespace ibsetup::inventory
