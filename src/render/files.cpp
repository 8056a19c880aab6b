#include "common/bounded_read.hpp"
#include "common/strings.hpp"
#include "common/unique_fd.hpp"
#include "render/rooted.hpp"
#include "render/write_all.hpp"
#include "render/write_guard.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/render.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

namespace ibsetup::render {

const char* const k_marker = "# Managed by ibsetup; changes are overwritten on the next render.";

const char* to_string(WriteResult result)
{
  switch (result) {
  case WriteResult::created:
    return "created";
  case WriteResult::updated:
    return "updated";
  case WriteResult::unchanged:
  default:
    return "unchanged";
  }
}

namespace detail {

std::string under(const std::string& root)
{
  return root == "/" ? root : root + "/";
}

[[noreturn]] void fail(const std::string& what)
{
  throw EnvironmentError(what + ": " + std::strerror(errno));
}

// Reads the open file fd (full names it in messages) when it is a regular file of at most
// max_bytes.
std::string read_regular(int fd, const std::string& full, size_t max_bytes)
{
  auto r = util::read_bounded(fd, max_bytes);
  switch (r.status) {
  case util::BoundedRead::Status::ok:
    return std::move(r.text);
  case util::BoundedRead::Status::not_regular:
    throw EnvironmentError(full + " is " + util::file_kind(r.mode) + ", not a regular file");
  case util::BoundedRead::Status::too_large:
    throw EnvironmentError(full + " is larger than " + std::to_string(max_bytes >> 10U) +
                           " KiB; refusing to read it");
  case util::BoundedRead::Status::failed:
  default:
    errno = r.error;
    fail("cannot read " + full);
  }
}

Fd open_dirs(const std::string& root, const std::string& rel_dir, bool create, const char* verb,
             std::vector<MadeDir>* made)
{
  Fd dir(open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) {
    fail("cannot open the directory " + root);
  }
  std::string walked = root;
  size_t start = 0;
  while (start < rel_dir.size()) {
    size_t end = rel_dir.find('/', start);
    if (end == std::string::npos) {
      end = rel_dir.size();
    }
    const std::string part = rel_dir.substr(start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") {
      continue;
    }
    if (part == "..") {
      throw EnvironmentError("refusing '..' in " + rel_dir);
    }
    walked += "/" + part;
    bool created = false;
    if (create) {
      created = mkdirat(dir.get(), part.c_str(), 0755) == 0;
      if (!created && errno != EEXIST) {
        fail("cannot create " + walked);
      }
      if (created && made != nullptr) {
        // Recorded at once: a failure to open or chmod it below must take it away too.
        made->push_back({Fd(fcntl(dir.get(), F_DUPFD_CLOEXEC, 0)), part});
      }
    }
    Fd next(openat(dir.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (next.get() < 0 && !create && errno == ENOENT) {
      return next;
    }
    if (next.get() < 0) {
      if (errno == ELOOP || errno == ENOTDIR) {
        throw EnvironmentError(walked + " is a symlink or not a directory; refusing to " + verb +
                               " through it (nothing outside the root is touched)");
      }
      fail("cannot open " + walked);
    }
    if (created && fchmod(next.get(), 0755) != 0) {
      fail("cannot set the mode of " + walked);
    }
    dir = std::move(next);
  }
  return dir;
}

void remove_made(std::vector<MadeDir>& made)
{
  for (auto it = made.rbegin(); it != made.rend(); ++it) {
    if (it->parent.get() >= 0) {
      unlinkat(it->parent.get(), it->name.c_str(), AT_REMOVEDIR);
    }
  }
  made.clear();
}

// The start of the current content of name in dir, at most max_bytes + 1 bytes (enough to
// tell whether it carries the marker and whether it equals a file of max_bytes; a planted
// huge or endless file is never read whole); nullopt when it does not exist.
std::optional<std::string> read_existing(int dir, const std::string& name, const std::string& full,
                                         size_t max_bytes)
{
  // Looked at before it is opened: opening a device is an act of its own (a watchdog starts,
  // a tape rewinds, a tty becomes the controlling terminal of a kickstart %post).
  struct stat before {};
  if (fstatat(dir, name.c_str(), &before, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) {
      return std::nullopt;
    }
    fail("cannot read " + full);
  }
  if (S_ISLNK(before.st_mode)) {
    throw EnvironmentError(full + " is a symlink; refusing to replace it");
  }
  if (!S_ISREG(before.st_mode)) {
    throw EnvironmentError(full + " is " + util::file_kind(before.st_mode) +
                           ", not a regular file; refusing to replace it");
  }
  Fd fd(openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() < 0) {
    if (errno == ENOENT) {
      return std::nullopt;
    }
    if (errno == ELOOP) {
      throw EnvironmentError(full + " is a symlink; refusing to replace it");
    }
    fail("cannot read " + full);
  }
  struct stat st {};
  if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    throw EnvironmentError(full + " is not a regular file; refusing to replace it");
  }
  const size_t want = std::max(max_bytes, std::strlen(k_marker)) + 1;
  std::string out;
  char buf[8192];
  while (out.size() < want) {
    const ssize_t n = read(fd.get(), buf, std::min(sizeof buf, want - out.size()));
    if (n == 0) {
      break;
    }
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      fail("cannot read " + full);
    }
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

WriteResult planned_result(int dir, const std::string& name, const std::string& full,
                           const RenderedFile& file)
{
  const auto existing = read_existing(dir, name, full, file.content.size());
  if (existing && existing->compare(0, std::strlen(k_marker), k_marker) != 0) {
    throw EnvironmentError(full +
                           " exists and was not written by ibsetup; leaving it alone "
                           "(move it away to let ibsetup manage it)");
  }
  if (existing && *existing == file.content) {
    struct stat st {};
    // Run as root (kickstart, apply --offline), a file some other user rendered earlier is
    // not "unchanged": NetworkManager ignores keyfiles that root does not own.
    if (fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        (st.st_mode & 07777) == file.mode &&
        (geteuid() != 0 || (st.st_uid == 0 && st.st_gid == 0))) {
      return WriteResult::unchanged;
    }
  }
  check_replaceable(dir, full.substr(0, full.rfind('/')), name, full);
  return existing ? WriteResult::updated : WriteResult::created;
}

}  // namespace detail

using namespace detail;

WriteResult check_file(const std::string& root, const RenderedFile& file)
{
  const auto slash = file.path.rfind('/');
  const std::string rel_dir = slash == std::string::npos ? "" : file.path.substr(0, slash);
  const std::string name = slash == std::string::npos ? file.path : file.path.substr(slash + 1);
  const Fd dir = open_dirs(root, rel_dir, false);
  if (dir.get() < 0) {
    // A directory on the way is missing, so is the file: the deepest one there must take
    // the new ones.
    std::string up = rel_dir;
    while (!up.empty()) {
      const auto cut = up.rfind('/');
      up = cut == std::string::npos ? std::string() : up.substr(0, cut);
      const Fd there = open_dirs(root, up, false);
      if (there.get() >= 0) {
        check_replaceable(there.get(), up.empty() ? root : under(root) + up, "",
                          under(root) + file.path);
        break;
      }
    }
    return WriteResult::created;
  }
  return planned_result(dir.get(), name, under(root) + file.path, file);
}

std::optional<std::string> read_file_under(const std::string& root, const std::string& path,
                                           size_t max_bytes)
{
  const auto slash = path.rfind('/');
  const std::string rel_dir = slash == std::string::npos ? "" : path.substr(0, slash);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::string full = under(root) + path;
  const Fd dir = open_dirs(root, rel_dir, false, "read");
  if (dir.get() < 0) {
    return std::nullopt;
  }
  // Anything but a regular file or a symlink (refused below, with its target) is refused
  // unopened: opening a device is an act of its own. O_NONBLOCK: a FIFO put there after the
  // look must not wait for a writer (it is refused right after).
  struct stat before {};
  if (fstatat(dir.get(), name.c_str(), &before, AT_SYMLINK_NOFOLLOW) == 0 &&
      !S_ISREG(before.st_mode) && !S_ISLNK(before.st_mode)) {
    throw EnvironmentError(full + " is " + util::file_kind(before.st_mode) +
                           ", not a regular file");
  }
  const Fd fd(
      openat(dir.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() < 0) {
    if (errno == ENOENT) {
      return std::nullopt;
    }
    if (errno == ELOOP) {
      std::string target(4096, '\0');
      const ssize_t n = readlinkat(dir.get(), name.c_str(), &target[0], target.size());
      target.resize(n > 0 ? static_cast<size_t>(n) : 0);
      // The target is named only when printable: a planted name must not reach the terminal.
      if (std::any_of(target.begin(), target.end(), [](char c) { return c < 0x20 || c > 0x7e; })) {
        target.clear();
      }
      throw EnvironmentError(full + " is a symlink" +
                             (target.empty() ? std::string() : " to " + target) +
                             "; files under the root are read without following symlinks, "
                             "so nothing outside it is read");
    }
    fail("cannot read " + full);
  }
  return read_regular(fd.get(), full, max_bytes);
}

std::optional<std::string> read_named_file(const std::string& path, size_t max_bytes)
{
  struct stat before {};
  if (stat(path.c_str(), &before) == 0 && !S_ISREG(before.st_mode)) {
    throw EnvironmentError(path + " is " + util::file_kind(before.st_mode) +
                           ", not a regular file");
  }
  const Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() < 0) {
    if (errno == ENOENT) {
      return std::nullopt;
    }
    fail("cannot read " + path);
  }
  return read_regular(fd.get(), path, max_bytes);
}

bool remove_file(const std::string& root, const std::string& path)
{
  const auto slash = path.rfind('/');
  const std::string rel_dir = slash == std::string::npos ? "" : path.substr(0, slash);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::string full = under(root) + path;
  const Fd dir = open_dirs(root, rel_dir, false);
  if (dir.get() < 0) {
    return false;
  }
  const auto existing = read_existing(dir.get(), name, full, 0);
  if (!existing || existing->compare(0, std::strlen(k_marker), k_marker) != 0) {
    return false;
  }
  if (unlinkat(dir.get(), name.c_str(), 0) != 0 && errno != ENOENT) {
    fail("cannot remove " + full);
  }
  return true;
}

}  // namespace ibsetup::render
