#include <ibsetup/error.hpp>

#include "common/process.hpp"
#include "common/strings.hpp"
#include "common/termination_guard.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>

namespace ibsetup {

namespace {

class Pipe {
public:
  Pipe()
  {
    if (pipe2(m_fds.data(), O_CLOEXEC) != 0) {
      throw EnvironmentError(std::string("cannot create a pipe: ") + std::strerror(errno));
    }
  }
  ~Pipe()
  {
    close_read();
    close_write();
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  int read_end() const { return m_fds[0]; }
  int write_end() const { return m_fds[1]; }
  void close_read()
  {
    if (m_fds[0] >= 0) {
      close(m_fds[0]);
      m_fds[0] = -1;
    }
  }
  void close_write()
  {
    if (m_fds[1] >= 0) {
      close(m_fds[1]);
      m_fds[1] = -1;
    }
  }

private:
  std::array<int, 2> m_fds{-1, -1};
};

class SpawnSetup {
public:
  SpawnSetup()
  {
    posix_spawn_file_actions_init(&m_actions);
    posix_spawnattr_init(&m_attr);
  }
  ~SpawnSetup()
  {
    posix_spawn_file_actions_destroy(&m_actions);
    posix_spawnattr_destroy(&m_attr);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
  posix_spawn_file_actions_t* actions() { return &m_actions; }
  posix_spawnattr_t* attr() { return &m_attr; }

private:
  posix_spawn_file_actions_t m_actions{};
  posix_spawnattr_t m_attr{};
};

// Appends what fd has to offer to out, up to limit; the rest is drained and dropped so the
// child never blocks on a full pipe. Returns false at end of file.
bool drain(int fd, std::string& out, size_t limit, bool& truncated)
{
  std::array<char, 65536> buf{};
  const ssize_t n = read(fd, buf.data(), buf.size());
  if (n < 0) {
    return errno == EINTR || errno == EAGAIN;
  }
  if (n == 0) {
    return false;
  }
  const size_t room = out.size() < limit ? limit - out.size() : 0;
  const size_t take = static_cast<size_t>(n) < room ? static_cast<size_t>(n) : room;
  out.append(buf.data(), take);
  if (take < static_cast<size_t>(n)) {
    truncated = true;
  }
  return true;
}

// The step between looks at the child while its pipes are quiet, and how long output that is
// already there is still read once the child has exited.
constexpr std::chrono::milliseconds k_min_idle{1};
constexpr std::chrono::milliseconds k_max_idle{50};
constexpr std::chrono::milliseconds k_exit_grace{100};

// start + timeout without overflowing the clock: a huge timeout is no deadline at all.
std::chrono::steady_clock::time_point deadline_after(std::chrono::steady_clock::time_point start,
                                                     std::chrono::milliseconds timeout)
{
  using clock = std::chrono::steady_clock;
  if (timeout <= std::chrono::milliseconds::zero()) {
    return start;
  }
  if (timeout >=
      std::chrono::duration_cast<std::chrono::milliseconds>(clock::time_point::max() - start)) {
    return clock::time_point::max();
  }
  return start + timeout;
}

struct ChildState {
  bool exited = false;  // it has exited and is a zombie we may still signal and reap
  bool gone = false;    // reaped behind our back (the caller ignores SIGCHLD): status unknown
};

// Whether the child has exited, without reaping it (WNOWAIT): its pid, and so its process
// group id, stays ours until the final waitpid.
ChildState peek_child(pid_t pid)
{
  siginfo_t info{};
  while (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    if (errno != EINTR) {
      return {true, true};
    }
  }
  return {info.si_pid != 0, false};
}

// Descriptors the caller (or a library in it) opened without close-on-exec would reach the
// child, and a child that keeps one open can hold a lock or a socket past our run. glibc 2.28
// has no addclosefrom_np, so they are listed here and closed by spawn actions. Without /proc
// (a bare chroot) they are left as they are.
void close_inherited(posix_spawn_file_actions_t* actions)
{
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) {
    if (errno == ENOENT) {
      return;
    }
    throw EnvironmentError(std::string("cannot list this process's descriptors (/proc/self/fd): ") +
                           std::strerror(errno));
  }
  std::vector<int> inherited;
  const int own = dirfd(dir);
  while (const dirent* entry = readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || fd < 3 || fd == own ||
        fd > std::numeric_limits<int>::max()) {
      continue;
    }
    const int flags = fcntl(static_cast<int>(fd), F_GETFD);
    if (flags >= 0 && (flags & FD_CLOEXEC) == 0) {
      inherited.push_back(static_cast<int>(fd));
    }
  }
  closedir(dir);
  // glibc refuses a spawn action on a descriptor at or above the soft RLIMIT_NOFILE (EBADF),
  // which one inherited from a parent with a higher limit can be: that one is marked
  // close-on-exec instead (it is ours to close, being inherited; nothing here execs without
  // run_process).
  const int table = getdtablesize();
  for (const int fd : inherited) {
    if (fd >= table) {
      (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
      continue;
    }
    if (const int rc = posix_spawn_file_actions_addclose(actions, fd); rc != 0) {
      throw EnvironmentError(std::string("cannot prepare to run a program: ") + std::strerror(rc));
    }
  }
}

}  // namespace

std::string ProcessResult::describe(std::chrono::milliseconds timeout) const
{
  std::ostringstream s;
  if (timed_out) {
    s << "did not finish within " << static_cast<double>(timeout.count()) / 1000.0
      << " s and was killed";
  } else if (signal != 0) {
    s << "was killed by signal " << signal << " (" << strsignal(signal) << ")";
  } else {
    s << "exit status " << exit_status;
  }
  return s.str();
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options)
{
  if (argv.empty()) {
    throw Error(ErrorKind::internal, "run_process: empty argv");
  }
  std::string why;
  const auto program = find_program(argv[0], &why);
  if (!program) {
    throw EnvironmentError(util::escape_text(argv[0]) + ": " + why);
  }
  ProcessResult result;
  result.program = *program;

  Pipe out_pipe;
  Pipe err_pipe;
  SpawnSetup setup;
  posix_spawn_file_actions_addopen(setup.actions(), 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(setup.actions(), out_pipe.write_end(), 1);
  posix_spawn_file_actions_adddup2(setup.actions(), err_pipe.write_end(), 2);
  close_inherited(setup.actions());
  // Handlers the caller installed (apply's SIGINT/SIGTERM) or ignored signals must not leak
  // into the child; its own process group lets a timeout kill what it started too.
  sigset_t all;
  sigfillset(&all);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(setup.attr(), &all);
  posix_spawnattr_setsigmask(setup.attr(), &none);
  posix_spawnattr_setpgroup(setup.attr(), 0);
  posix_spawnattr_setflags(setup.attr(),
                           POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);

  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) {
    args.push_back(const_cast<char*>(a.c_str()));
  }
  args.push_back(nullptr);
  std::vector<char*> env;
  env.reserve(options.environment.size() + 1);
  for (const auto& e : options.environment) {
    env.push_back(const_cast<char*>(e.c_str()));
  }
  env.push_back(nullptr);

  TerminationGuard termination;
  pid_t pid = -1;
  const int rc =
      posix_spawn(&pid, program->c_str(), setup.actions(), setup.attr(), args.data(), env.data());
  if (rc != 0) {
    throw EnvironmentError("cannot run " + *program + ": " + std::strerror(rc));
  }
  out_pipe.close_write();
  err_pipe.close_write();

  const auto start = std::chrono::steady_clock::now();
  const auto deadline = deadline_after(start, options.timeout);
  std::array<pollfd, 2> fds{pollfd{out_pipe.read_end(), POLLIN, 0},
                            pollfd{err_pipe.read_end(), POLLIN, 0}};
  int open_fds = 2;
  ChildState child;
  std::chrono::steady_clock::time_point grace_end{};
  int poll_errno = 0;
  bool cut_short = false;
  auto idle = k_min_idle;
  for (;;) {
    if (TerminationGuard::pending() != 0 && !options.finish_on_signal) {
      cut_short = true;
      break;  // the child is killed below, then the signal ends this process
    }
    if (!child.exited) {
      child = peek_child(pid);
      if (child.exited) {
        grace_end = std::chrono::steady_clock::now() + k_exit_grace;
      }
    }
    if (open_fds == 0 && child.exited) {
      break;
    }
    const auto now = std::chrono::steady_clock::now();
    if (!child.exited && now >= deadline) {
      result.timed_out = true;
      break;
    }
    if (child.exited && now >= grace_end) {
      break;  // something the child started keeps writing
    }
    // Short polls: the child's exit is seen by peek_child, not by the pipes, which what it
    // started may hold open. The step grows while nothing happens so that a long silent run
    // costs few wake-ups; once the child has exited, only what is already there is read.
    const auto step = std::min<std::chrono::steady_clock::duration>(deadline - now, idle);
    const int wait_ms =
        child.exited ? 0
                     : static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(step).count());
    const int n = poll(fds.data(), fds.size(), wait_ms);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      poll_errno = errno;
      break;
    }
    if (n == 0 && child.exited) {
      break;  // what the child wrote has been read; what it started is not waited for
    }
    idle = n > 0 ? k_min_idle : std::min(idle * 2, k_max_idle);
    for (size_t i = 0; i < fds.size() && n > 0; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) {
        continue;
      }
      std::string& buf = i == 0 ? result.out : result.err;
      bool& truncated = i == 0 ? result.stdout_truncated : result.stderr_truncated;
      if (!drain(fds[i].fd, buf, options.output_limit, truncated)) {
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  // The child is not reaped yet (peek_child leaves it a zombie), so its pid still names its
  // process group: killing it cannot hit an unrelated group that reused the number. Nothing
  // the child started outlives the run, whether it timed out, exited or the poll failed.
  if (!child.gone) {
    kill(-pid, SIGKILL);
  }
  int status = 0;
  pid_t waited = -1;
  if (!child.gone) {
    while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
    }
  }
  // A run let finish is the caller's to use: an outer guard (firmware::set_step) holds the
  // signal until what the run did is recorded.
  if (const int signal = termination.release(); signal != 0 && cut_short) {
    // Still here: the signal is blocked in this thread, or an outer guard holds it. The run
    // was cut short all the same.
    throw EnvironmentError(*program + " was stopped: this process received signal " +
                           std::to_string(signal) + " (" + strsignal(signal) + ")");
  }
  if (poll_errno != 0) {
    throw EnvironmentError("cannot read the output of " + *program +
                           ": poll: " + std::strerror(poll_errno));
  }
  if (waited == pid && WIFEXITED(status)) {
    result.exit_status = WEXITSTATUS(status);
  } else if (waited == pid && WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  if (result.timed_out) {
    result.signal = 0;
  }
  return result;
}

}  // namespace ibsetup
