#pragma once
// The walk below a root that render's reads and writes share (files.cpp, write_files.cpp):
// every directory opened with O_NOFOLLOW from the root down, so nothing outside it is touched.

#include "common/unique_fd.hpp"

#include <ibsetup/render.hpp>

#include <string>
#include <vector>

namespace ibsetup::render::detail {

using Fd = util::UniqueFd;

// ROOT/ for messages: "/run/x", not "//run/x", when the root is / (the reboot marker).
std::string under(const std::string& root);

// Throws EnvironmentError(what: strerror(errno)).
[[noreturn]] void fail(const std::string& what);

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
             const char* verb = "write", std::vector<MadeDir>* made = nullptr);

// Removes the directories a failed write created, deepest first; one that is no longer empty
// (someone else wrote there since) stays.
void remove_made(std::vector<MadeDir>& made);

// What writing file as name in dir would do; throws, as write_file does, for a foreign file,
// a symlink or a file that is not regular.
WriteResult planned_result(int dir, const std::string& name, const std::string& full,
                           const RenderedFile& file);

}  // namespace ibsetup::render::detail
