// The reader's directory descriptors: cached per resolved directory, and in a captured tree
// opened by walking each component without following links (see walk()).
#include "os/sysfs.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace ibsetup::inventory {

bool SysfsReader::release_descriptors() const
{
  const bool any = !m_spent.empty() || !m_dir_fds.empty();
  m_spent.flush();
  close_dir_fds();
  return any;
}

void SysfsReader::close_dir_fds() const
{
  for (const auto& entry : m_dir_fds) {
    if (entry.second >= 0) {
      close(entry.second);
    }
  }
  m_dir_fds.clear();
  m_last_dir_fd = -1;
}

int SysfsReader::dir_fd(const std::string& resolved) const
{
  // Attributes come in runs from one directory (a port's, its P_Key table): comparing with the
  // last one is cheaper than hashing a path of 80 characters per file.
  if (m_last_dir_fd >= 0 && resolved == m_last_dir) {
    return m_last_dir_fd;
  }
  const auto found = m_dir_fds.find(resolved);
  if (found != m_dir_fds.end()) {
    m_last_dir = resolved;
    m_last_dir_fd = found->second;
    return found->second;
  }
  if (m_dir_fds.size() >= m_max_dir_fds) {
    close_dir_fds();
  }
  // The attributes read so far are closed first, so that the directory takes the lowest free
  // number, below the attributes read from it: the run of spent descriptors that one
  // close_range closes is not split by a directory kept open in its middle.
  m_spent.flush();
  // The path is already resolved (no symlinks in it); O_NOFOLLOW refuses a last component that
  // became a link since, and then the attribute is not read at all. In a captured tree any
  // component may have become one: walk().
  int fd = -1;
  if (m_live) {
    const std::string full = m_root + "/" + resolved;
    fd = open(full.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  } else {
    fd = walk(resolved, O_PATH);
  }
  if (fd >= 0) {
    m_dir_fds.emplace(resolved, fd);
    m_last_dir = resolved;
    m_last_dir_fd = fd;
  }
  return fd;
}

// Opens a resolved path of a captured tree one component at a time from the nearest directory
// already open, each with O_NOFOLLOW: a directory swapped for a link after resolve() (by
// whoever can write the tree) ends the walk instead of leading it out of the root. The kernel's
// own /sys cannot be changed so, and is opened by path (fewer calls). `flags` are the last
// component's (O_PATH or O_RDONLY | O_NONBLOCK); every component must be a directory.
int SysfsReader::walk(const std::string& resolved, int flags) const
{
  constexpr int k_dir = O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  int at = root_fd();
  if (at < 0) {
    return -1;
  }
  if (resolved.empty()) {
    return openat(at, ".", flags | k_dir);
  }
  size_t start = 0;
  // The longest prefix with a cached descriptor saves walking from the root again.
  for (size_t cut = resolved.rfind('/'); cut != std::string::npos && cut > 0;
       cut = resolved.rfind('/', cut - 1)) {
    const auto found = m_dir_fds.find(resolved.substr(0, cut));
    if (found != m_dir_fds.end()) {
      at = found->second;
      start = cut + 1;
      break;
    }
  }
  bool owned = false;  // `at` was opened here, not the root's or a cached one
  for (;;) {
    const size_t end = std::min(resolved.find('/', start), resolved.size());
    const std::string part = resolved.substr(start, end - start);
    const bool last = end == resolved.size();
    int next = -1;
    if (part.empty() || part == "." || part == "..") {
      errno = ENOENT;  // a resolved path has none of these
    } else {
      next = openat(at, part.c_str(), (last ? flags : O_PATH) | k_dir);
    }
    const int error = errno;
    if (owned) {
      close(at);
    }
    if (next < 0 || last) {
      errno = error;
      return next;
    }
    at = next;
    owned = true;
    start = end + 1;
  }
}

// The captured tree's root, opened once: the root itself is the caller's choice (it may be a
// link); nothing below it is followed. -1 with errno when it cannot be opened (EMFILE is
// retried by open_with_retry like any other open).
int SysfsReader::root_fd() const
{
  if (m_root_fd < 0) {
    m_root_fd = open(m_root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  }
  return m_root_fd;
}

}  // namespace ibsetup::inventory
