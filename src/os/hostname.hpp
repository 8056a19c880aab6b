// This machine's host name, read in one place for the profile (which node am I) and for
// inspect (the host field).
#pragma once

#include <optional>
#include <string>

namespace ibsetup::os {

// The host name up to its first '.' ("cn01" for "cn01.cluster"), as Slurm and the profile
// name nodes; nullopt when gethostname fails. Callers choose their own fallback.
std::optional<std::string> short_hostname();

// name cut at its first '.'.
std::string short_name(const std::string& name);

}  // namespace ibsetup::os
