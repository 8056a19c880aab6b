#include "os/sysfs.hpp"

#include <ibsetup/error.hpp>

#include <dirent.h>  // struct dirent64, for the getdents64 record layout
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cerrno>
#include <cstring>
#include <string_view>

namespace ibsetup::inventory {

namespace {

constexpr size_t k_max_attribute = 65536;

// Directory descriptors kept open at most per reader. A device needs about ten and devices are
// read one after another, so a full cache is simply emptied. inspect runs up to five readers at
// once (four workers and the caller), so each keeps at most 1/16 of the descriptor limit (64
// with the usual 1024), plus half as many spent ones (spent_capacity): five readers hold at
// most 15/32 of the limit when they share one table (the library's default; with tables of
// their own, inventory/reader_tables.hpp, each has the whole limit).
rlim_t descriptor_limit()
{
  rlimit limit{};
  return getrlimit(RLIMIT_NOFILE, &limit) == 0 ? limit.rlim_cur : 1024;
}

size_t max_dir_fds(rlim_t soft)
{
  return static_cast<size_t>(std::max<rlim_t>(1, std::min<rlim_t>(64, soft / 16)));
}

// Attribute descriptors waiting to be closed per reader: half the directory cache's share.
size_t spent_capacity(size_t max_dir_fds)
{
  return std::max<size_t>(1, max_dir_fds / 2);
}

bool out_of_descriptors()
{
  return errno == EMFILE || errno == ENFILE;
}

}  // namespace

SysfsReader::SysfsReader(std::string root, bool live)
    : SysfsReader(std::move(root), live, descriptor_limit())
{
}

SysfsReader::SysfsReader(std::string root, bool live, unsigned long long descriptors)
    : m_root(std::move(root)),
      m_live(live),
      m_max_dir_fds(max_dir_fds(static_cast<rlim_t>(descriptors))),
      m_spent(spent_capacity(m_max_dir_fds))
{
  while (m_root.size() > 1 && m_root.back() == '/') {
    m_root.pop_back();
  }
  if (!m_live) {
    root_fd();  // now, while descriptors are to be had; retried when needed if it failed
  }
}

SysfsReader::~SysfsReader()
{
  close_dir_fds();
  if (m_root_fd >= 0) {
    close(m_root_fd);
  }
}

// Runs `attempt` (an open); when the process is out of descriptors, gives back the spent and
// cached ones and tries once more, then throws naming the path `describe` returns: a missing
// value must never be silently the result of EMFILE. The path is built only then: built for
// every open, it was a quarter of inspect's instructions (issue 15).
template <class Open, class Describe>
int SysfsReader::open_with_retry(const Open& attempt, const Describe& describe) const
{
  int fd = attempt();
  if (fd < 0 && out_of_descriptors() && release_descriptors()) {
    fd = attempt();
  }
  if (fd < 0 && out_of_descriptors()) {
    const int error = errno;
    throw EnvironmentError(describe() + ": " + std::strerror(error));
  }
  return fd;
}

int SysfsReader::open_attribute(const std::string& dir, const char* name) const
{
  // O_NONBLOCK: a FIFO planted in a captured tree must not hang the reader.
  constexpr int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
  return open_with_retry(
      [&] {
        if (dir.empty()) {
          if (m_live) {
            return open((m_root + "/" + name).c_str(), flags);
          }
          const int root = root_fd();
          return root < 0 ? -1 : openat(root, name, flags);
        }
        const int at = dir_fd(dir);  // again on the retry: the release closed the cached one
        return at < 0 ? -1 : openat(at, name, flags);
      },
      [&] { return m_root + "/" + dir + (dir.empty() ? "" : "/") + name; });
}

// Where fstatat and readlinkat find `name` (one component) in the resolved directory `dir`: by
// its full path `path` in the kernel's /sys, else relative to the directory's descriptor
// (dir_fd, which walks a captured tree without following links). A directory that cannot be
// opened gives a descriptor of -1, and the calls then fail with EBADF: the name is missing.
SysfsReader::Entry SysfsReader::entry_in(const std::string& dir, const std::string& name,
                                         const std::string& path) const
{
  if (m_live) {
    return {AT_FDCWD, m_root + "/" + path};
  }
  const int fd = open_with_retry([&] { return dir.empty() ? root_fd() : dir_fd(dir); },
                                 [&] { return m_root + "/" + dir; });
  return {fd, name};
}

bool SysfsReader::is_dir(const std::string& rel) const
{
  const auto r = resolve(rel);
  if (!r) {
    return false;
  }
  if (!m_live) {
    // resolve() said no link; walking it says whether it is (still) a directory. The
    // descriptor is kept with the others, for the reads in it that usually follow.
    return open_with_retry([&] { return dir_fd(*r); }, [&] { return m_root + "/" + *r; }) >= 0;
  }
  struct stat st {};
  return stat((m_root + "/" + *r).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::optional<std::string> SysfsReader::read(const std::string& rel) const
{
  m_unreadable.clear();
  // No sysfs name holds a NUL; the system calls would cut the path short there.
  if (rel.find('\0') != std::string::npos) {
    return std::nullopt;
  }
  const auto slash = rel.rfind('/');
  if (slash == std::string::npos) {
    return read_in("", rel);
  }
  // The directory's resolution is used where the cache keeps it, and the name where `rel` ends:
  // copies of both, per attribute, were a tenth of inspect's instructions (issue 15).
  m_key.assign(rel, 0, slash);
  auto dir = m_resolved.find(m_key);
  if (dir == m_resolved.end()) {
    const std::string key = m_key;
    resolve_depth(key, 0);  // from scratch (no link followed yet), so its answer is kept
    dir = m_resolved.find(key);
    if (dir == m_resolved.end()) {
      return std::nullopt;  // not reached
    }
  }
  return dir->second ? read_component(*dir->second, rel.c_str() + slash + 1) : std::nullopt;
}

std::optional<std::string> SysfsReader::read_in(const std::string& dir,
                                                const std::string& name) const
{
  m_unreadable.clear();
  // One component: openat would follow links in the middle of "a/b" (O_NOFOLLOW guards only
  // the last), and ".." would leave the directory. (A NUL inside would cut the name short.)
  if (name.find('/') != std::string::npos || name.find('\0') != std::string::npos) {
    return std::nullopt;
  }
  return read_component(dir, name.c_str());
}

void SysfsReader::note_refusal(int error) const
{
  // Missing (ENOENT), a link (ELOOP under O_NOFOLLOW), a directory in the live /sys (EISDIR;
  // in a captured tree a directory opens, and is "not a regular file") or a refusal the kernel
  // gives routinely are "not there"; these say the file is there and cannot be read.
  if (error == EACCES || error == EPERM || error == EIO) {
    m_unreadable = std::strerror(error);
  }
}

std::optional<std::string> SysfsReader::read_component(const std::string& dir,
                                                       const char* name) const
{
  if (name[0] == '\0' || std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) {
    return std::nullopt;
  }
  const int fd = open_attribute(dir, name);
  if (fd < 0) {
    note_refusal(errno);
    return std::nullopt;
  }
  struct stat st {};
  if (!m_live && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
    m_spent.add(fd);  // sysfs attributes are regular files; never read a device node in a tree
    m_unreadable = "not a regular file";
    return std::nullopt;
  }
  std::string out;
  char buf[4096];
  ssize_t n = 0;
  // sysfs hands out a whole attribute in one read; a short read means the end.
  while ((n = ::read(fd, buf, sizeof buf)) > 0 && out.size() < k_max_attribute) {
    out.append(buf, static_cast<size_t>(n));
    if (static_cast<size_t>(n) < sizeof buf) {
      break;
    }
  }
  const int error = errno;
  m_spent.add(fd);
  // A kernel attribute fits in a page; one that reaches the cap is not one, and its first
  // 64 KiB could read as a valid value ("99.0" followed by padding and the rest cut off).
  if (n < 0) {
    note_refusal(error);
    return std::nullopt;
  }
  if (out.size() >= k_max_attribute) {
    m_unreadable = "larger than 64 KiB, so not a kernel attribute";
    return std::nullopt;
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ' || out.back() == '\t' ||
                          out.back() == '\r' || out.back() == '\0')) {
    out.pop_back();
  }
  return out;
}

std::vector<std::string> SysfsReader::list(const std::string& rel) const
{
  std::vector<std::string> out;
  const auto dir = resolve(rel);
  if (!dir) {
    return out;
  }
  const std::string full = m_root + "/" + *dir;
  // Not opendir(): it mallocs a 32 KiB buffer per directory, and on a VM each fresh heap page
  // costs a fault (issue 15). O_NOFOLLOW: the path is resolved, so a last component that is a
  // link now became one since.
  constexpr int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
  const int fd = open_with_retry(
      [&] { return m_live ? open(full.c_str(), flags) : walk(*dir, O_RDONLY | O_NONBLOCK); },
      [&]() -> const std::string& { return full; });
  if (fd < 0) {
    return out;
  }
  constexpr size_t k_reclen_at = offsetof(struct dirent64, d_reclen);
  constexpr size_t k_name_at = offsetof(struct dirent64, d_name);
  // getdents64 has no glibc wrapper before 2.30 (Rocky 8 has 2.28).
  alignas(8) char buf[4096];
  long n = 0;
  bool malformed = false;
  while (!malformed && (n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
    for (long at = 0; at < n;) {
      uint16_t reclen = 0;
      uint64_t ino = 0;
      if (static_cast<size_t>(n - at) <= k_name_at) {
        malformed = true;  // a record cut short
        break;
      }
      std::memcpy(&reclen, buf + at + k_reclen_at, sizeof reclen);
      if (reclen <= k_name_at || at + reclen > n) {
        malformed = true;  // the kernel never writes this: trust nothing after it
        break;
      }
      std::memcpy(&ino, buf + at, sizeof ino);
      const char* name = buf + at + k_name_at;
      const std::string_view entry(name, strnlen(name, reclen - k_name_at));
      // Inode 0 marks a deleted entry on some file systems; glibc's readdir skipped those
      // before 2.33, as this reader did when it used readdir.
      if (ino != 0 && entry != "." && entry != "..") {
        out.emplace_back(entry);
      }
      at += reclen;
    }
  }
  close(fd);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ibsetup::inventory
