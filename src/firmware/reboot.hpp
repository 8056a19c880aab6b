// What a reboot is owed for, beyond the public PortLinkType::reboot_pending().
#pragma once

#include <ibsetup/firmware.hpp>

#include <string>
#include <vector>

namespace ibsetup::firmware::detail {

// p is pending, or this run set it (done) while its running type cannot be read.
bool reboot_owed(const DeviceLinkTypes& d, const PortLinkType& p, const std::vector<Change>& done);

// update_reboot_marker, counting the ports done set as reboot_owed does.
void write_reboot_marker(const std::string& path, const State& state,
                         const std::vector<Change>& done);

}  // namespace ibsetup::firmware::detail
