// The dry run's view of apply's lock file: what ApplyLock would refuse, without taking it.
#pragma once

#include <string>

namespace ibsetup::apply {

// Throws EnvironmentError, with ApplyLock's message, when the real run would refuse path as
// its lock file (a symlink, a device, a file that holds something other than a pid, a
// missing directory). Takes no lock and creates nothing: a preview (apply --dry-run,
// Ansible's check mode) must not pass what the run would refuse.
void check_lock_file(const std::string& path);

}  // namespace ibsetup::apply
