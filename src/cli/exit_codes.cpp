#include "cli/exit_codes.hpp"

#include <utility>

namespace ibsetup::cli {

namespace {

// Documented numbers: later kinds get new codes, these never change.
constexpr std::pair<ErrorKind, int> k_codes[] = {
    {ErrorKind::ok, 0},
    {ErrorKind::internal, 1},
    {ErrorKind::usage, 2},
    {ErrorKind::bad_input, 3},
    {ErrorKind::environment, 4},
    {ErrorKind::check_failed, 5},
    {ErrorKind::changes_pending, 6},
    {ErrorKind::apply_failed, 7},
    {ErrorKind::busy, 8},
    {ErrorKind::reboot_required, 9},
};

}  // namespace

int exit_code(ErrorKind kind)
{
  for (const auto& entry : k_codes) {
    if (entry.first == kind) {
      return entry.second;
    }
  }
  return 1;  // a kind without a code is a bug in ibsetup
}

}  // namespace ibsetup::cli
