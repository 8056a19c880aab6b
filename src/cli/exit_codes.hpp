// The one place where error kinds become process exit codes.
#pragma once

#include <ibsetup/error.hpp>

namespace ibsetup::cli {

// The exit code documented for kind (README "Exit codes", ibsetup(8), --help).
int exit_code(ErrorKind kind);

}  // namespace ibsetup::cli
