// How apply is interrupted: SIGINT, SIGTERM, SIGHUP (the ssh session dropped) and a standard
// output nobody reads any more (`apply | head`) all stop it between steps, and it rolls back.
#pragma once

#include <string>

namespace ibsetup::cli {

// While alive: the signals above (unless ignored on entry, as under nohup) set a flag
// instead of killing the process (SIGPIPE is ignored for the whole run, cli/app.cpp, so a
// write to a closed pipe fails with EPIPE). The destructor restores the previous dispositions.
class InterruptGuard {
public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
};

// True once a signal arrived or standard output was found closed (a failed write, or a pipe
// whose reader is gone). The first time, says why on stderr, and, once changes_begin() was
// called, that the run stops after the current step and rolls back.
bool interrupted();

// Called when apply is about to change interfaces (after the lock and the firmware step).
void changes_begin();

// The signal an InterruptGuard noted that interrupted() never reported: it came after apply's
// last look (its report then stands as printed). 0 when none.
int unheeded_signal();

// From this call on, SIGINT, SIGTERM and SIGHUP whose action is the default (not ignored as
// under nohup) are held, as the library's TerminationGuard holds them: its waits (the apply
// lock, a program it runs; render's lock on its root and its inventories on standard input)
// end early with an error, a firmware set finishes and is recorded, and render's staged files
// are taken back (or, once renaming, all renamed). release_stop_signals(), once everything is
// printed, then ends the process by the signal, as it would have (exit 128+N). For `firmware
// --apply`, `render`, `apply --offline`, `partitions --output` and a signal after apply's last
// step, whose report or error would otherwise be lost.
// Returns the signal when the process is still alive after raising it (PID 1
// of a PID namespace does not die of a signal it sends itself), else 0. A held signal is
// first said on standard error with work_done(), when the command noted what it wrote.
void hold_stop_signals();
int release_stop_signals();

// Writes one line of apply's progress to standard output and flushes it; a write that fails
// (EPIPE, or ENOSPC and EFBIG, which are not a closed output) is recorded, and interrupted()
// and emit_report() then say why.
void progress_line(const std::string& line);

// Whether interrupted() or emit_report() has already told standard error that standard output
// is closed or cannot be written.
bool output_loss_said();

// What the command has done that stays done whatever becomes of its output ("the files under
// /mnt/sysimage are in place"): the message of a lost standard output ends with it, so that
// `render ... | head` does not leave the reader wondering, and so does the line that says a
// held signal waited for the write (release_stop_signals). Main thread only.
void note_work_done(std::string what);
const std::string& work_done();

// The error for a standard output that could not be written (error: the failed write's errno,
// 0 when unknown), ending with done when that is not empty.
std::string lost_output_text(int error, const std::string& done);

// Writes the final report to standard output; when that fails or output is closed, writes it
// to stderr instead, so that it is never lost silently.
void emit_report(const std::string& text);

}  // namespace ibsetup::cli
