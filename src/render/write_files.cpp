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

#include <cerrno>
#include <string>
#include <utility>
#include <vector>

namespace ibsetup::render {

using namespace detail;

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
  // A temporary file of this name is a run's that was killed (SIGKILL) between staging and
  // renaming: the root's lock keeps every live writer out. Removed even when the target is
  // unchanged, which would otherwise leave it for good (a profile put back as it was).
  const std::string tmp = "." + s.name + ".ibsetup-tmp";
  unlinkat(s.dir.get(), tmp.c_str(), 0);
  if (s.result == WriteResult::unchanged) {
    return s;
  }
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
    [[maybe_unused]] const int refused = fchown(out.get(), 0, 0);  // kept as it is: see above
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

std::vector<WriteResult> write_all(const std::string& root, const std::vector<RenderedFile>& files,
                                   OnStop on_stop)
{
  // Every refusal (a foreign file, a symlink, a FIFO on the way) before anything is created.
  // Staging rolls back as well, but only after directories and temporary files have existed
  // where NetworkManager's keyfile monitor (or anyone listing the directory) could see them;
  // the price of this pass is reading each existing file twice (keyfiles are a few KB).
  // Another ibsetup writing into this root would rename its temporary files (same names)
  // over these, or these over its: one at a time.
  const RootLock lock(root, on_stop);
  for (const auto& f : files) {
    check_file(root, f);
  }
  // A stop signal while staging or renaming would leave temporary files, or half a node: it
  // waits, and one that came before the renames undoes the staging instead (OnStop::undo).
  StopSignals held(on_stop);
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
