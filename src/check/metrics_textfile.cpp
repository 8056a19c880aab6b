// The textfile for node_exporter's textfile collector, replaced atomically: the collector may
// read the directory at any moment and must see the old file or the new one, never half of one.
#include "check/metrics_textfile.hpp"

#include <ibsetup/check.hpp>
#include <ibsetup/error.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace ibsetup::check {

namespace {

std::string join(const std::string& dir, const std::string& name)
{
  return !dir.empty() && dir.back() == '/' ? dir + name : dir + "/" + name;
}

// /proc/sys/kernel/pid_max cannot exceed 2^22 (PID_MAX_LIMIT on 64-bit): pids end below it.
constexpr long long k_max_pid = 4194303;
// How many directory entries the sweep looks at: a textfile directory holds a few dozen files,
// and one grown huge must not hold up the check (the sweep runs before Slurm is told).
constexpr int k_max_swept_entries = 10000;

std::string why(const std::string& path, const char* what, int err)
{
  return path + ": " + what + ": " + std::strerror(err);
}

// Closes the file and removes it unless released: the temporary file of every early exit.
class PendingFile {
public:
  explicit PendingFile(std::string path) : m_path(std::move(path)) {}
  ~PendingFile()
  {
    if (m_fd >= 0) {
      ::close(m_fd);
    }
    if (!m_released) {
      ::unlink(m_path.c_str());
    }
  }
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;

  int m_fd = -1;
  bool m_released = false;

private:
  std::string m_path;
};

// The pid in ".ibsetup.prom.<pid>.tmp", or 0 when name is not such a name.
pid_t temp_pid(const char* name)
{
  const std::string prefix = std::string(".") + k_textfile_name + ".";
  if (std::strncmp(name, prefix.c_str(), prefix.size()) != 0) {
    return 0;
  }
  const char* p = name + prefix.size();
  long long pid = 0;
  const char* digits = p;
  while (*p >= '0' && *p <= '9' && p - digits < 10) {
    pid = pid * 10 + (*p - '0');
    ++p;
  }
  if (p == digits || *digits == '0' || std::strcmp(p, ".tmp") != 0 || pid > k_max_pid) {
    return 0;
  }
  return static_cast<pid_t>(pid);
}

}  // namespace

void remove_killed_temps(int dfd, time_t now)
{
  // A check ended by SIGKILL (Slurm after KillWait, the OOM killer) cannot remove its temporary
  // file. Without this sweep the directory would keep one such file per kill for ever.
  const int fd = ::dup(dfd);
  DIR* d = fd < 0 ? nullptr : ::fdopendir(fd);
  if (d == nullptr) {
    if (fd >= 0) {
      ::close(fd);
    }
    return;
  }
  ::rewinddir(d);
  const pid_t self = ::getpid();
  int seen = 0;
  for (const dirent* e = nullptr; seen < k_max_swept_entries && (e = ::readdir(d)) != nullptr;
       ++seen) {
    const pid_t pid = temp_pid(e->d_name);
    if (pid == 0 || pid == self) {
      continue;
    }
    // Both must hold: the process is gone (in this pid namespace) and the file has not been
    // written for a while, so a writer in another pid namespace that shares the directory,
    // whose pid means nothing here, is not robbed of its file between its write and rename.
    struct stat st {};
    if (::fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
        now - st.st_mtime < k_killed_temp_age_s) {
      continue;
    }
    if (::kill(pid, 0) == 0 || errno != ESRCH) {
      continue;
    }
    // Not closed: a new process given this pid between kill() and here, which then took the
    // leftover over (write_textfile does), loses its temporary file and reports the failed
    // rename. That needs the pid to come round again within microseconds.
    ::unlinkat(dfd, e->d_name, 0);
  }
  ::closedir(d);
}

std::string textfile_temp_path(const std::string& dir)
{
  return join(dir, std::string(".") + k_textfile_name + "." + std::to_string(::getpid()) + ".tmp");
}

void write_textfile(const std::string& dir, const std::string& text)
{
  if (dir.empty()) {
    // "" would join to "/ibsetup.prom": the file system's root, not a directory given.
    throw EnvironmentError("no directory given for " + std::string(k_textfile_name));
  }
  const std::string temp = textfile_temp_path(dir);
  const std::string target = join(dir, k_textfile_name);
  // O_EXCL: a file of that name is a leftover of a process that had this pid and was killed;
  // it is taken over only after it is known to be a plain file (not a link planted there).
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0 && errno == EEXIST) {
    struct stat st {};
    if (::lstat(temp.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      ::unlink(temp.c_str());
    }
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  }
  if (fd < 0) {
    throw EnvironmentError(why(temp, "cannot create", errno));
  }
  PendingFile pending(temp);
  pending.m_fd = fd;
  // The collector runs as another user: readable by all whatever the caller's umask.
  if (::fchmod(fd, 0644) != 0) {
    throw EnvironmentError(why(temp, "cannot set mode 0644", errno));
  }
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      throw EnvironmentError(why(target, "cannot write", n < 0 ? errno : ENOSPC));
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    throw EnvironmentError(why(target, "cannot write (fsync)", errno));
  }
  pending.m_fd = -1;
  if (::close(fd) != 0) {
    throw EnvironmentError(why(target, "cannot write (close)", errno));
  }
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    throw EnvironmentError(why(target, "cannot replace", errno));
  }
  pending.m_released = true;
  // The rename itself survives a crash only once the directory is synced; a failure here
  // leaves a good file in place, so it is not an error.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    remove_killed_temps(dfd, ::time(nullptr));
    ::close(dfd);
  }
}

}  // namespace ibsetup::check
