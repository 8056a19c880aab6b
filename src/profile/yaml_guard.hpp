// Checks a profile's raw text while yaml-cpp parses it, once, into the reader's tree. yaml-cpp
// 0.6.2 (Rocky 8) has no recursion limit, so a deeply nested document overflows its recursive
// parser; both 0.6.2 and 0.7 build empty documents without end from a stray ',' (upstream issue
// 1040); 0.6.2 loops on "[a:]"; and a "billion laughs" alias tree explodes any walk over the nodes.
#pragma once

#include <ibsetup/diagnostics.hpp>
#include <ibsetup/profile.hpp>

#include "profile/yaml_tree.hpp"

#include <string>

namespace ibsetup::profile::detail {

// Reports invalid UTF-8, control characters, the shapes yaml-cpp loops on, nesting deeper than
// limits.max_depth (counted by yaml-cpp's own event parser, which builds no nodes, for every
// style: block, flow, tags, anchors), syntax errors, a file that is not exactly one document,
// and alias use that would expand to more than limits.max_alias_expansion nodes. Returns
// false when the text must not be read; when it returns true the text is exactly one document
// with at most limits.max_depth nested collections, and `tree` (when given) holds it as
// YAML::Load would have built it.
bool guard_text(const std::string& text, const Limits& limits, Diagnostics& diags,
                YamlDocument* tree = nullptr);

}  // namespace ibsetup::profile::detail
