// check --textfile-dir: the library's atomic write, plus what only a process can promise: a
// stop signal in the middle of it leaves no temporary file behind.
#pragma once

#include <string>

namespace ibsetup::cli {

// While alive: SIGINT, SIGTERM and SIGHUP (those not ignored on entry) remove path, then end
// the process as they would have (the previous disposition, raised again). Any thread may be
// the one the signal lands on; path is kept in a fixed buffer the handler only reads.
class RemoveOnSignal {
public:
  explicit RemoveOnSignal(const std::string& path);
  ~RemoveOnSignal();
  RemoveOnSignal(const RemoveOnSignal&) = delete;
  RemoveOnSignal& operator=(const RemoveOnSignal&) = delete;
};

// check::write_textfile under RemoveOnSignal for its temporary file. Throws as it does.
void write_textfile(const std::string& dir, const std::string& text);

}  // namespace ibsetup::cli
