#include <ibsetup/apply.hpp>
#include "apply/callbacks.hpp"
#include "apply/lock_check.hpp"

#include <fcntl.h>
#include <linux/capability.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

namespace ibsetup::apply {

namespace {

constexpr uint64_t k_pid_max_limit = 4194304;  // PID_MAX_LIMIT on 64-bit kernels

// Why fd is not a lock file ibsetup may write its pid into; "" when it is.
std::string not_a_lock_file(int fd)
{
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    return std::strerror(errno);
  }
  if (!S_ISREG(st.st_mode)) {
    return "it is not a regular file";
  }
  constexpr off_t k_max_pid_line = 32;
  char buf[k_max_pid_line + 1] = {};
  const ssize_t n = st.st_size > k_max_pid_line ? -1 : pread(fd, buf, sizeof buf, 0);
  if (n < 0 || n > k_max_pid_line) {
    return "it holds " + std::to_string(st.st_size) + " bytes, not a pid";
  }
  // proc, sysfs and cgroup files say size 0 and read as more: a number in one of them
  // (/proc/sys/vm/nr_hugepages) is a kernel setting, not a pid. A holder that wrote its pid into
  // its emptied file between the two calls makes the file read as more too, but its size then
  // says so, which a kernel file's never does. (Less than the size is a holder emptying it.)
  struct stat now {};
  if (n > st.st_size && (fstat(fd, &now) != 0 || n > now.st_size)) {
    return "it reads as " + std::to_string(n) + " bytes but says " + std::to_string(st.st_size) +
           " (a kernel file, not a lock file)";
  }
  // One pid, as ibsetup writes it: digits and one newline at the end. "123\n456" or a number
  // no pid can be (the kernel's PID_MAX_LIMIT is 2^22) is someone else's file.
  ssize_t end = n;
  if (end > 0 && buf[end - 1] == '\n') {
    --end;
  }
  uint64_t value = 0;
  for (ssize_t i = 0; i < end; ++i) {
    if (buf[i] < '0' || buf[i] > '9') {
      return "it holds something other than a pid";
    }
    value = value * 10 + static_cast<uint64_t>(buf[i] - '0');
    if (value > k_pid_max_limit) {
      return "it holds a number larger than any pid";
    }
  }
  if (end > 0 && value == 0) {
    return "it holds 0, which is no pid";
  }
  return "";
}

[[noreturn]] void refuse(const std::string& path, const std::string& why)
{
  throw EnvironmentError("will not use " + path + " as the lock file: " + why +
                         "; give --lock-file a path of its own (nothing was changed)");
}

// Opens path as ApplyLock and check_lock_file do (flags: O_RDWR | O_CREAT to take it,
// O_RDONLY to look), refusing what is not a lock file; -1 when it does not exist (O_RDONLY).
int open_lock_file(const std::string& path, int flags)
{
  // A device is refused before it is opened: opening some has effects (/dev/watchdog arms).
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
    refuse(path, "it is not a regular file");
  }
  const int fd = open(path.c_str(), flags | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd < 0) {
    if (errno == ELOOP) {
      // O_NOFOLLOW's error, whose text ("Too many levels of symbolic links") misleads.
      refuse(path, "it is a symbolic link");
    }
    if (errno == ENOENT && (flags & O_CREAT) == 0) {
      return -1;
    }
    throw EnvironmentError("cannot open the lock file " + path + ": " + std::strerror(errno));
  }
  // The pid is written over the file: a path given by mistake (--lock-file /etc/hosts) must
  // not lose its contents, so only an empty file or one that holds a pid is taken.
  if (const std::string why = not_a_lock_file(fd); !why.empty()) {
    close(fd);
    refuse(path, why);
  }
  return fd;
}

}  // namespace

void check_lock_file(const std::string& path)
{
  const int fd = open_lock_file(path, O_RDONLY);
  if (fd >= 0) {
    close(fd);
    return;
  }
  // Missing: the run creates it, which needs its directory.
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0) {
    throw EnvironmentError("cannot open the lock file " + path + ": " + std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) {
    throw EnvironmentError("cannot open the lock file " + path + ": " + dir +
                           " is not a directory");
  }
}

ApplyLock::ApplyLock(const std::string& path, int wait_seconds)
    : ApplyLock(path, wait_seconds, std::function<bool()>())
{
}

ApplyLock::ApplyLock(const std::string& path, int wait_seconds, const std::function<bool()>& stop)
{
  m_fd = open_lock_file(path, O_RDWR | O_CREAT);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(wait_seconds);
  while (flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) {
      continue;
    }
    if (errno != EWOULDBLOCK) {
      // ENOLCK, or a file system without flock: no one holds the lock, it cannot be taken.
      const int err = errno;
      close(m_fd);
      m_fd = -1;
      throw EnvironmentError("cannot lock " + path + ": " + std::strerror(err));
    }
    const bool stopped = detail::ask_interrupted(stop);
    if (stopped || std::chrono::steady_clock::now() >= deadline) {
      char buf[32] = {};
      const ssize_t n = pread(m_fd, buf, sizeof buf - 1, 0);
      std::string holder = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "?";
      while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) {
        holder.pop_back();
      }
      close(m_fd);
      m_fd = -1;
      if (stopped) {
        throw Error(ErrorKind::apply_failed,
                    "stopped while waiting for " + path + " (held by pid " + holder + ")");
      }
      // apply and firmware --apply share the lock; the pid tells which one it is.
      throw Error(ErrorKind::busy, "another ibsetup run (apply or firmware --apply, pid " + holder +
                                       ") holds " + path + "; waited " +
                                       std::to_string(wait_seconds) +
                                       " s (use --wait SECONDS to wait longer)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // Empty the file, then write: every state a waiting run can read between the two calls (empty,
  // the first digits, the pid) is a lock file to it. Written first and cut after, a pid shorter
  // than the one before read as "123\n4\n" for a moment, and a waiting run with --wait took
  // that for someone else's file and gave up (exit 4) instead of waiting. The pid is a hint.
  const std::string pid = std::to_string(getpid()) + "\n";
  if (ftruncate(m_fd, 0) == 0) {
    // A hint only: a lock file without the pid still locks. (A (void) cast does not silence
    // glibc's warn_unused_result under _FORTIFY_SOURCE, which Rocky 8's RPM builds use.)
    [[maybe_unused]] const ssize_t written = pwrite(m_fd, pid.data(), pid.size(), 0);
  }
}

ApplyLock::~ApplyLock()
{
  if (m_fd >= 0) {
    close(m_fd);  // releases the flock
  }
}

void require_net_admin()
{
  __user_cap_header_struct header{};
  header.version = _LINUX_CAPABILITY_VERSION_3;
  header.pid = 0;
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capget, &header, data) != 0) {
    throw EnvironmentError(std::string("cannot read this process's capabilities: ") +
                           std::strerror(errno));
  }
  if ((data[0].effective & (1U << CAP_NET_ADMIN)) == 0) {
    throw EnvironmentError(
        "apply needs the CAP_NET_ADMIN capability to change interfaces; "
        "run it as root (nothing was changed)");
  }
}

}  // namespace ibsetup::apply
