// What `ibsetup partitions` reports besides the file: members that are missing, GUIDs on two
// hosts, inventories of hosts the profile lacks, the sources' own problems and the warnings
// (issue 16 item 4: nothing is left out quietly), for people and as JSON.
#pragma once

#include "partitions/model.hpp"

#include <ibsetup/export.hpp>

#include <string>
#include <vector>

namespace ibsetup::partitions {

// True when every member was found and no GUID is on two ports: the file is complete.
IBSETUP_EXPORT bool layout_complete(const Layout& layout);

// One line per problem and warning, for people, in a fixed order: missing members, duplicate
// GUIDs, unknown hosts, the inventory sources' problems, then the warnings.
IBSETUP_EXPORT std::vector<std::string> report_lines(const Layout& layout,
                                                     const Inventories& inventories);

// The documented `partitions --json` object: the partitions with their members and every
// list of report_lines, each in its own key.
IBSETUP_EXPORT std::string layout_to_json(const Layout& layout, const Inventories& inventories);

}  // namespace ibsetup::partitions
