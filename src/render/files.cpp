#include "common/bounded_read.hpp"
#include "common/strings.hpp"
#include "common/unique_fd.hpp"
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

namespace {

// ROOT/ for messages: "/run/x", not "//run/x", when the root is / (the reboot marker).
std::string under(const std::string& root)
{
  return root == "/" ? root : root + "/";
}

using Fd = util::UniqueFd;

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

// A directory open_dirs created: its parent's descriptor and its name, so that a write that
// fails can take it away again without walking (or following) anything.
struct MadeDir {
  Fd parent;
  std::string name;
};

// Opens (creating when missing, if create) each directory of rel_dir below root with
// O_NOFOLLOW. Without create, a missing directory gives an invalid Fd. verb ("write",
// "read") says in messages what was refused. Directories it creates are set to 0755 whatever
// the umask (an image's /etc must stay readable; only a umask that denies their owner reading
// stops a run that is not root's from opening them), and are added to `made` when given.
Fd open_dirs(const std::string& root, const std::string& rel_dir, bool create = true,
             const char* verb = "write", std::vector<MadeDir>* made = nullptr)
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

// Removes the directories a failed write created, deepest first; one that is no longer empty
// (someone else wrote there since) stays.
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

// What writing file as name in dir would do; throws, as write_file does, for a foreign file,
// a symlink or a file that is not regular.
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

}  // namespace

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

namespace {

// A file written to a temporary name beside its target, synced, not yet renamed over it.
struct Staged {
  Fd dir{-1};
  std::string name;  // the target's, in dir
  std::string tmp;   // empty when the content is unchanged: nothing to rename
  std::string full;
  WriteResult result = WriteResult::unchanged;
};

void discard(Staged& staged)
{
  if (!staged.tmp.empty()) {
    unlinkat(staged.dir.get(), staged.tmp.c_str(), 0);
    staged.tmp.clear();
  }
}

Staged stage(const std::string& root, const RenderedFile& file, std::vector<MadeDir>* made)
{
  Staged s;
  const auto slash = file.path.rfind('/');
  const std::string rel_dir = slash == std::string::npos ? "" : file.path.substr(0, slash);
  s.name = slash == std::string::npos ? file.path : file.path.substr(slash + 1);
  s.full = under(root) + file.path;
  s.dir = open_dirs(root, rel_dir, true, "write", made);
  s.result = planned_result(s.dir.get(), s.name, s.full, file);
  if (s.result == WriteResult::unchanged) {
    return s;
  }
  const std::string tmp = "." + s.name + ".ibsetup-tmp";
  unlinkat(s.dir.get(), tmp.c_str(), 0);
  Fd out(openat(s.dir.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                file.mode));
  if (out.get() < 0) {
    fail("cannot create " + under(root) + rel_dir + "/" + tmp);
  }
  s.tmp = tmp;
  const char* data = file.content.data();
  size_t left = file.content.size();
  while (left > 0) {
    const ssize_t n = write(out.get(), data, left);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      const int error = errno;
      discard(s);
      errno = error;
      fail("cannot write " + s.full);
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  // The mode is set explicitly: the umask must not loosen or tighten it (NM ignores keyfiles
  // that are not 0600), and the owner is whoever runs ibsetup (root in kickstart; a file
  // rendered earlier by another user is replaced, so it becomes root's). Run as root, the
  // group is root's too: a set-group-ID directory or the caller's group would otherwise give
  // it another, which the next run (unchanged needs 0:0) would rewrite every time.
  // A root that refuses the change (NFS with root_squash, vfat) keeps the file as the old
  // writer did: it then counts as updated on every run, which says something is off.
  struct stat owner {};
  if (geteuid() == 0 && fstat(out.get(), &owner) == 0 && (owner.st_uid != 0 || owner.st_gid != 0)) {
    (void)fchown(out.get(), 0, 0);
  }
  if (fchmod(out.get(), file.mode) != 0 || fsync(out.get()) != 0) {
    const int error = errno;
    discard(s);
    errno = error;
    fail("cannot finish " + s.full);
  }
  return s;
}

void commit(Staged& s)
{
  if (s.tmp.empty()) {
    return;
  }
  if (renameat(s.dir.get(), s.tmp.c_str(), s.dir.get(), s.name.c_str()) != 0) {
    const int error = errno;
    discard(s);
    errno = error;
    fail("cannot rename into " + s.full);
  }
  s.tmp.clear();
  fsync(s.dir.get());
}

}  // namespace

WriteResult write_file(const std::string& root, const RenderedFile& file)
{
  return write_all(root, {file}).front();
}

std::vector<WriteResult> write_all(const std::string& root, const std::vector<RenderedFile>& files)
{
  // Every refusal (a foreign file, a symlink, a FIFO on the way) before anything is created.
  // Staging rolls back as well, but only after directories and temporary files have existed
  // where NetworkManager's keyfile monitor (or anyone listing the directory) could see them;
  // the price of this pass is reading each existing file twice (keyfiles are a few KB).
  // Another ibsetup writing into this root would rename its temporary files (same names)
  // over these, or these over its: one at a time.
  const RootLock lock(root);
  for (const auto& f : files) {
    check_file(root, f);
  }
  // A stop signal while staging or renaming would leave temporary files, or half a node: it
  // waits, and one that came before the renames undoes the staging instead.
  StopSignals held;
  std::vector<MadeDir> made;
  std::vector<Staged> staged;
  staged.reserve(files.size());
  try {
    for (const auto& f : files) {
      staged.push_back(stage(root, f, &made));
    }
    if (const int sig = held.take_pending(); sig != 0) {
      throw Error(ErrorKind::apply_failed, std::string("interrupted (") + util::signal_name(sig) +
                                               ") before any file was replaced; nothing was "
                                               "written under " +
                                               root);
    }
  } catch (...) {
    for (auto& s : staged) {
      discard(s);
    }
    remove_made(made);
    throw;
  }
  // Only renames are left, each in a directory already open: a failure now is the kernel's.
  std::vector<WriteResult> out;
  out.reserve(staged.size());
  for (size_t i = 0; i < staged.size(); ++i) {
    try {
      commit(staged[i]);
    } catch (const EnvironmentError& e) {
      std::string done;
      for (size_t k = 0; k < i; ++k) {
        if (staged[k].result != WriteResult::unchanged) {
          done += (done.empty() ? "" : ", ") + staged[k].full;
        }
      }
      for (size_t k = i + 1; k < staged.size(); ++k) {
        discard(staged[k]);
      }
      throw EnvironmentError(std::string(e.what()) + (done.empty()
                                                          ? "; nothing was replaced"
                                                          : "; already in place: " + done));
    }
    out.push_back(staged[i].result);
  }
  return out;
}

}  // namespace ibsetup::render
