// A strict parser for the plain subset of YAML that profiles are written in (block maps and
// sequences indented with spaces, one-line flow collections, one-line plain and quoted scalars,
// comments). yaml-cpp's scanner spends most of a no-op apply's instructions on a few kilobytes
// of such text; this parser produces the very events yaml-cpp's parser would, marks included,
// so that the guard and the tree cannot tell the two apart. A differential test
// (tests/unit/profile/yaml_fast_test.cpp) holds it to that against both yaml-cpp versions.
#pragma once

#include <yaml-cpp/eventhandler.h>

#include <string>

namespace ibsetup::profile::detail {

// When `text` lies in the subset, hands `handler` the events yaml-cpp's YAML::Parser would
// (one document) and returns true; exceptions thrown by the handler propagate. Otherwise
// returns false without calling the handler at all: the caller then asks yaml-cpp.
bool fast_parse(const std::string& text, YAML::EventHandler& handler);

}  // namespace ibsetup::profile::detail
