#include "common/bounded_read.hpp"

#include "common/termination_guard.hpp"

#include <ibsetup/error.hpp>

#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

namespace ibsetup::util {

const char* file_kind(mode_t mode)
{
  if (S_ISREG(mode)) {
    return "a regular file";
  }
  if (S_ISDIR(mode)) {
    return "a directory";
  }
  if (S_ISFIFO(mode)) {
    return "a FIFO";
  }
  if (S_ISCHR(mode)) {
    return "a character device";
  }
  if (S_ISBLK(mode)) {
    return "a block device";
  }
  if (S_ISSOCK(mode)) {
    return "a socket";
  }
  if (S_ISLNK(mode)) {
    return "a symlink";
  }
  return "not a regular file";
}

namespace {

// Until fd has something to read (data, an end, an error) or a held stop signal is noted:
// false, with errno EINTR, for the signal. Short polls, because a signal noted just before a
// blocking call would not interrupt it.
bool wait_readable_or_stop(int fd)
{
  for (;;) {
    if (TerminationGuard::pending() != 0) {
      errno = EINTR;
      return false;
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, 50);
    if (ready > 0 || (ready < 0 && errno != EINTR)) {
      return true;  // the read says what it is
    }
  }
}

ssize_t read_file(int fd, void* buf, size_t n)
{
  for (;;) {
    const ssize_t got = read(fd, buf, n);
    if (got >= 0 || errno != EINTR) {
      return got;
    }
  }
}

}  // namespace

ssize_t read_waiting(int fd, void* buf, size_t n)
{
  for (;;) {
    if (TerminationGuard::active() && !wait_readable_or_stop(fd)) {
      return -1;
    }
    const ssize_t got = read(fd, buf, n);
    if (got >= 0) {
      return got;
    }
    if (errno == EINTR) {
      continue;  // a held stop signal is seen at the top
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      return got;
    }
    if (!TerminationGuard::active()) {
      pollfd p{fd, POLLIN, 0};
      (void)poll(&p, 1, -1);
    }  // else the short polls at the top wait, looking at the guard
  }
}

BoundedRead read_stream_bounded(int fd, size_t max_bytes)
{
  BoundedRead r;
  std::vector<char> chunk(65536);
  for (;;) {
    const ssize_t n = read_waiting(fd, chunk.data(), chunk.size());
    if (n < 0) {
      r.status = BoundedRead::Status::failed;
      r.error = errno;
      return r;
    }
    if (n == 0) {
      return r;
    }
    if (static_cast<size_t>(n) > max_bytes - std::min(max_bytes, r.text.size())) {
      r.status = BoundedRead::Status::too_large;
      r.text.clear();
      return r;
    }
    r.text.append(chunk.data(), static_cast<size_t>(n));
  }
}

BoundedRead read_bounded(int fd, size_t max_bytes)
{
  BoundedRead r;
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    r.status = BoundedRead::Status::failed;
    r.error = errno;
    return r;
  }
  r.mode = st.st_mode;
  if (!S_ISREG(st.st_mode)) {
    r.status = BoundedRead::Status::not_regular;
    return r;
  }
  if (static_cast<unsigned long long>(st.st_size) > max_bytes) {
    r.status = BoundedRead::Status::too_large;
    return r;
  }
  // Sized from st_size (plus one byte to see growth), not from the cap: a small file costs
  // little even when the cap is large.
  std::vector<char> buf(static_cast<size_t>(st.st_size) + 1);
  size_t have = 0;
  for (;;) {
    if (have == buf.size()) {
      if (have > max_bytes) {
        r.status = BoundedRead::Status::too_large;
        return r;
      }
      buf.resize(std::min(buf.size() * 2, max_bytes + 1));
    }
    // A regular file never blocks: a held stop signal must not cut it short (the reboot
    // marker's other lines are read while firmware --apply holds one).
    const ssize_t n = read_file(fd, buf.data() + have, buf.size() - have);
    if (n < 0) {
      r.status = BoundedRead::Status::failed;
      r.error = errno;
      return r;
    }
    if (n == 0) {
      break;
    }
    have += static_cast<size_t>(n);
  }
  if (have > max_bytes) {
    r.status = BoundedRead::Status::too_large;
    return r;
  }
  r.text.assign(buf.data(), have);
  return r;
}

void refuse_terminal(int fd, const std::string& option, const std::string& pipe)
{
  if (::isatty(fd) == 1) {
    throw Error(ErrorKind::usage,
                option + ": standard input is a terminal; pipe " + pipe + " into it");
  }
}

}  // namespace ibsetup::util
