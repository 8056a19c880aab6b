// Reading a file that may be hostile: a FIFO, a device or a huge file must neither block nor
// fill memory. Shared by the profile loader, the template lookup and the inventory readers,
// which map the outcome to their own error kinds.
#pragma once
#pragma GCC visibility push(default)  // for the CLI's report: src/libibsetup.map.in says why

#include <sys/types.h>

#include <cstddef>
#include <string>

namespace ibsetup::util {

// What a file of this mode is, for messages: "a FIFO", "a character device".
const char* file_kind(mode_t mode);

// Throws a usage error when fd is a terminal: reading would wait for typing, a forgotten pipe
// rather than input. option names where `-` was given ("--inventory -"); pipe says what to
// pipe into it.
void refuse_terminal(int fd, const std::string& option, const std::string& pipe);

struct BoundedRead {
  enum class Status { ok, not_regular, too_large, failed };
  Status status = Status::ok;
  std::string text;  // the content when ok
  mode_t mode = 0;   // the file's mode (not_regular says what it is with file_kind)
  int error = 0;     // errno when failed
};

// Reads the open file fd when it is a regular file of at most max_bytes. Reads at most
// max_bytes + 1 bytes, so a file that grows while it is read is still caught. Open the file
// with O_NONBLOCK: a FIFO then never waits for a writer (it is refused here).
BoundedRead read_bounded(int fd, size_t max_bytes);

// read(2) that retries EINTR and, on a descriptor left non-blocking (O_NONBLOCK is shared by
// every process holding the same pipe), waits in poll() instead of failing with EAGAIN. A stop
// signal a TerminationGuard holds (the CLI's, in the commands that write files) ends the wait: -1
// with errno EINTR. Regular files are read by read_bounded, which never stops for one.
ssize_t read_waiting(int fd, void* buf, size_t n);

// Reads a stream (standard input, a pipe) to its end, within max_bytes: past them it stops
// with too_large instead of reading on. Never not_regular.
BoundedRead read_stream_bounded(int fd, size_t max_bytes);

}  // namespace ibsetup::util

#pragma GCC visibility pop
