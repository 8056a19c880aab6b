// Writing a node's files all or none: internal to libibsetup (render_node and the udev rules
// use it), so that the public write_file keeps its one-file contract.
#pragma once

#include <ibsetup/render.hpp>

#include <string>
#include <vector>

namespace ibsetup::render {

// Writes `files` under root as write_file does each, but all or none: every file is checked
// first (a refusal throws before anything is created), then each is written to a temporary
// file beside its target and synced, and only then are they renamed into place. A failure
// before the renames removes the temporary files and the directories it created. The results
// come in the order of `files`.
std::vector<WriteResult> write_all(const std::string& root, const std::vector<RenderedFile>& files);

}  // namespace ibsetup::render
