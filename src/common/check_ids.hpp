// The ids of ibsetup's checks and their groups ("port.rate", "port"). The profile names them
// in checks.disable and checks.warn and the checks report them, so the list lives below both:
// the profile must not depend on the checks.
#pragma once

#include <string>
#include <vector>

namespace ibsetup::util {

// Every check id, in the order the checks run.
const std::vector<std::string>& check_ids();

// The group of an id: what comes before the first '.'.
std::string check_group(const std::string& id);

// True for an id or a group of ids.
bool is_check_id_or_group(const std::string& name);

}  // namespace ibsetup::util
