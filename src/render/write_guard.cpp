#include "render/write_guard.hpp"

#include "common/strings.hpp"
#include "common/termination_guard.hpp"

#include <ibsetup/error.hpp>

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace ibsetup::render {

namespace {

// "immutable" or "append-only" when fd carries the flag; "" otherwise, and where the file
// system keeps no such flags (ENOTTY, EOPNOTSUPP: nothing to refuse there).
const char* pinned(int fd)
{
  int flags = 0;
  if (ioctl(fd, FS_IOC_GETFLAGS, &flags) != 0) {
    return "";
  }
  if ((flags & FS_IMMUTABLE_FL) != 0) {
    return "immutable (chattr +i)";
  }
  if ((flags & FS_APPEND_FL) != 0) {
    return "append-only (chattr +a)";
  }
  return "";
}

}  // namespace

void check_replaceable(int dir, const std::string& dir_path, const std::string& name,
                       const std::string& full)
{
  if (const char* why = pinned(dir); *why != '\0') {
    throw EnvironmentError(dir_path + " is " + why + "; nothing can be written in it");
  }
  if (faccessat(dir, ".", W_OK | X_OK, AT_EACCESS) != 0) {
    throw EnvironmentError("cannot write in " + dir_path + ": " + std::strerror(errno));
  }
  if (name.empty()) {
    return;
  }
  const util::UniqueFd fd(
      openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() >= 0) {
    if (const char* why = pinned(fd.get()); *why != '\0') {
      throw EnvironmentError(full + " is " + why + "; ibsetup cannot replace it");
    }
  }
}

RootLock::RootLock(const std::string& root, OnStop on_stop)
    : m_fd(open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC))
{
  if (m_fd.get() < 0) {
    return;  // open_dirs says why, in the caller's words
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (flock(m_fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) {
      continue;
    }
    if (errno != EWOULDBLOCK) {
      return;  // no locks here (ENOLCK on some NFS mounts): written as before, unlocked
    }
    if (const int s = TerminationGuard::pending(); s != 0 && on_stop == OnStop::undo) {
      throw Error(ErrorKind::apply_failed, std::string("interrupted (") + util::signal_name(s) +
                                               ") while waiting for the lock on " + root +
                                               "; nothing was written");
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      throw Error(ErrorKind::busy, "another process has held a lock on " + root +
                                       " for 10 s (another ibsetup writing there, or see "
                                       "/proc/locks); nothing was written");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

StopSignals::StopSignals(OnStop on_stop) : m_on_stop(on_stop)
{
  sigemptyset(&m_old);  // what the destructor restores, should the call below fail
  sigset_t stop;
  sigemptyset(&stop);
  for (int s : k_stop_signals) {
    sigaddset(&stop, s);
  }
  pthread_sigmask(SIG_BLOCK, &stop, &m_old);
}

StopSignals::~StopSignals()
{
  pthread_sigmask(SIG_SETMASK, &m_old, nullptr);
}

int StopSignals::take_pending()
{
  if (m_on_stop == OnStop::finish) {
    return 0;
  }
  if (const int s = TerminationGuard::pending(); s != 0) {
    return s;  // noted before this write began (the CLI held it while the files were rendered)
  }
  sigset_t pending;
  if (sigpending(&pending) != 0) {
    return 0;
  }
  for (int s : k_stop_signals) {
    struct sigaction now {};
    if (sigismember(&pending, s) != 1 || sigismember(&m_old, s) == 1 ||
        sigaction(s, nullptr, &now) != 0 || now.sa_handler == SIG_IGN) {
      continue;
    }
    if (now.sa_handler != SIG_DFL) {
      // Someone handles it (apply's interrupt flag, a TerminationGuard): left pending, so that
      // the handler runs when the mask is restored; the staging is undone all the same.
      return s;
    }
    // Its default would end the process when the mask is restored, before the error that
    // says nothing was written: taken here instead.
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, s);
    const timespec none{0, 0};
    if (sigtimedwait(&one, nullptr, &none) == s) {
      return s;
    }
  }
  return 0;
}

}  // namespace ibsetup::render
