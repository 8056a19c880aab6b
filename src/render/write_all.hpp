// Writing a node's files all or none: internal to libibsetup (render_node uses it, and
// write_file writes its one file through it), so that the public API does not change.
#pragma once

#include "render/write_guard.hpp"

#include <ibsetup/render.hpp>

#include <string>
#include <vector>

namespace ibsetup::render {

// Writes `files` under root as write_file does each, but all or none: every file is checked
// first (a refusal throws before anything is created), then each is written to a temporary
// file beside its target and synced, and only then are they renamed into place. A failure
// before the renames removes the temporary files and the directories it created; a failed
// rename (only the kernel's doing, or someone writing in the directory meanwhile) names the
// files already in place. The results come in the order of `files`. A stop signal waits until
// the renames are done; before them, on_stop says whether it undoes the staging (write_guard.hpp).
std::vector<WriteResult> write_all(const std::string& root, const std::vector<RenderedFile>& files,
                                   OnStop on_stop = OnStop::undo);

}  // namespace ibsetup::render
