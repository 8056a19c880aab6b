// OpenSM's partitions.conf from a Layout (osm_prtn_config.c's grammar, opensm(8) "PARTITION
// CONFIGURATION"): one partition per block, its definition line, then one member per line so
// that a changed member changes one line of the file.
#pragma once

#include "partitions/model.hpp"

#include <ibsetup/export.hpp>

#include <string>

namespace ibsetup::partitions {

// The file's text: render::k_marker and a header naming source (the profile) and saying ibsetup
// wrote it, then every partition in the Layout's order, members by GUID, each member's host and
// port as a comment and each missing member as a comment in the partition it is missing from. The
// same Layout gives the same bytes.
IBSETUP_EXPORT std::string write_opensm(const Layout& layout, const std::string& source);

}  // namespace ibsetup::partitions
