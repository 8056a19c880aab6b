// Descriptors a reader has finished with, closed in batches. On this project's 2-CPU VM a
// system call costs about 1 us, so a port's 128-entry P_Key table spent more on close() than
// on anything else but open(); close_range(2) (Linux 5.9) closes a run of them in one call.
#pragma once

#include <cstddef>
#include <vector>

namespace ibsetup::inventory {

// Closes `fds` (each owned by the caller and still open) and empties it: one close_range per
// run of consecutive numbers, or one close per descriptor when `use_range` is false or the
// kernel refuses close_range (Rocky 8's 4.18 has none; a seccomp filter may say EPERM, or
// kill the process where it is set to, which no unit ibsetup ships does).
// Only a run made entirely of the caller's descriptors is closed as a range, so a descriptor
// another thread opened in between is never touched.
void close_spent(std::vector<int>& fds, bool use_range = true);

// Gives the calling thread a descriptor table of its own, a copy of the process's
// (unshare(CLONE_FILES)); false when the kernel refuses (ENOMEM, or EPERM from a seccomp
// filter; a filter set to kill would kill, which no unit ibsetup ships sets) and the thread
// goes on sharing. Threads that share a table contend for its lock on every open and close,
// and the kernel takes a reference on the file for every read; a table of one's own has
// neither. What the thread opens afterwards is its alone; that, and the copies, are closed
// once the thread has ended, which can be a moment after join() returns. What the copies cost
// the process: inventory/reader_tables.hpp.
bool own_descriptor_table();

// Collects descriptors and closes them when `capacity` are waiting, on flush() and on
// destruction. Not thread-safe: one per reader, as a reader is.
class SpentFds {
public:
  explicit SpentFds(std::size_t capacity) : m_capacity(capacity > 0 ? capacity : 1)
  {
    m_fds.reserve(m_capacity);
  }
  ~SpentFds() { flush(); }
  SpentFds(const SpentFds&) = delete;
  SpentFds& operator=(const SpentFds&) = delete;

  void add(int fd);
  void flush() { close_spent(m_fds); }
  bool empty() const { return m_fds.empty(); }

private:
  std::size_t m_capacity;
  std::vector<int> m_fds;
};

}  // namespace ibsetup::inventory
