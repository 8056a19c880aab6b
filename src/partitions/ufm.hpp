// `partitions --format ufm` (issue 16 item 1, UFM): the bodies of the UFM Enterprise REST calls
// that give each partition its port GUIDs, for sites where UFM, not a hand-kept
// partitions.conf, runs the subnet manager. ufm.cpp names the calls and their fields.
#pragma once

#include "partitions/model.hpp"

#include <ibsetup/export.hpp>

#include <string>

namespace ibsetup::partitions {

// One JSON document: "calls" (method, path, body; one call per line), "left_out" (partitions
// UFM's REST API cannot express, each with why) and "missing" (members the Layout could not
// resolve). The same Layout gives the same bytes. Never throws for a valid Layout.
IBSETUP_EXPORT std::string write_ufm(const Layout& layout);

// UFM's rate_limit (Gb/s) for an IBTA rate code (3 -> 10, 16 -> 100), or 0 when unknown.
double ufm_rate_gbps(int rate_code);

}  // namespace ibsetup::partitions
