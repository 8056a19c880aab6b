// What write_textfile (include/ibsetup/check.hpp) does after its rename, kept apart for its
// tests.
#pragma once

#include <ctime>

namespace ibsetup::check {

// How long a killed writer's temporary file must have been left alone before it is removed.
constexpr long k_killed_temp_age_s = 600;

// Removes from the directory open at dfd the temporary files of killed writers: plain files
// named as textfile_temp_path names them whose process no longer exists (kill(pid, 0) says
// ESRCH) and whose last write is at least k_killed_temp_age_s before now. Everything else,
// links included, is left alone, and so is whatever comes after the first 10,000 entries.
// Errors are ignored: the textfile is already in place.
void remove_killed_temps(int dfd, time_t now);

}  // namespace ibsetup::check
