// How many CPUs inspect may use for its readers: the process's own (a Slurm job's cpuset,
// taskset), less those other runnable tasks are using right now.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace ibsetup::inventory {

// The CPUs this process may run on; at least 1.
size_t usable_cpus();

// Runnable tasks on the machine other than the caller, from /proc/loadavg's fourth field
// ("3/412": three runnable now, the caller among them); nullopt when it cannot be read.
std::optional<size_t> other_runnable_tasks();

// The same, from the text of /proc/loadavg.
std::optional<size_t> other_runnable_tasks(const std::string& loadavg);

// Worker threads for reading `devices` HCAs next to the calling thread, which reads the
// netdevs and then helps: one per CPU that nothing else is running on, at most four, and none
// when at most one CPU is free. On a busy node (a Slurm job on most cores) a thread that waits
// for a core costs more than it saves (issue 15: one core busy, 8 HCAs, 26 ms threaded).
size_t reader_workers(size_t devices, size_t cpus, std::optional<size_t> others_running);

}  // namespace ibsetup::inventory
