// What keeps a node's files all or none against other writers and signals (write_all):
// a lock on the root, so that two renders into one root never rename each other's temporary
// files into place, and the stop signals held while files are staged and renamed.
#pragma once

#include "common/unique_fd.hpp"

#include <signal.h>

#include <string>

namespace ibsetup::render {

// What a stop signal (SIGINT, SIGTERM, SIGHUP) does to a write that has not renamed anything
// yet. undo: the staging is removed and the write fails, saying so; a signal a
// TerminationGuard holds counts (render's CLI holds them so that what was written is printed
// before the signal ends the process). finish: the write goes on and the signal is delivered
// after it (the firmware reboot marker, which must say what a set changed).
enum class OnStop { undo, finish };

// An exclusive flock(2) on the root directory, waited for up to 10 s (then ErrorKind::busy).
// A root whose file system has no locks (ENOLCK) is written unlocked. With OnStop::undo, a
// signal a TerminationGuard holds ends the wait (ErrorKind::apply_failed).
class RootLock {
public:
  RootLock(const std::string& root, OnStop on_stop);

private:
  util::UniqueFd m_fd;
};

// Blocks SIGINT, SIGTERM and SIGHUP in this thread while alive; the destructor restores the
// mask, and a signal still pending is then delivered as it would have been.
class StopSignals {
public:
  explicit StopSignals(OnStop on_stop);
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  // With OnStop::undo, a stop signal that arrived and would have ended or interrupted the
  // process (not ignored, not blocked by the caller), or one a TerminationGuard noted before;
  // 0 when none, and always 0 with OnStop::finish. One at its default action is taken off the
  // pending set (it would end the process before the error is reported); one with a handler
  // (apply's, or a TerminationGuard's) stays pending, for the handler to run when the mask is
  // restored.
  int take_pending();

private:
  sigset_t m_old;
  OnStop m_on_stop;
};

// Refuses, before anything is written (and in a dry run), what the kernel would refuse later,
// half-way through a node: a target file `name` in dir, or dir itself, marked immutable or
// append-only (chattr +i, +a), or a dir this process cannot write in (a read-only mount).
// dir_path names dir and full the target in messages; name may be empty (dir is where missing
// directories will be made). Throws EnvironmentError.
void check_replaceable(int dir, const std::string& dir_path, const std::string& name,
                       const std::string& full);

}  // namespace ibsetup::render
