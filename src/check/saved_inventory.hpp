// `check --inventory`: a saved `ibsetup inspect --json`, from a file or standard input.
#pragma once

#include <ibsetup/inventory.hpp>

#include <string>

namespace ibsetup::check::detail {

// Reads and parses the inventory at path ("-": standard input), at most 16 MiB. A FIFO or a
// device is refused before it is opened (a FIFO would wait for a writer until the watchdog
// ends the check; opening a device can act on it). Throws InputError for what is not an
// inventory, EnvironmentError when it cannot be read, Error(usage) for a terminal on "-".
inventory::Host read_saved(const std::string& path);

}  // namespace ibsetup::check::detail
