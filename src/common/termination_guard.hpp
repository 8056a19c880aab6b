// What ends this process while it waits for a child: see TerminationGuard.
#pragma once

#include <ibsetup/export.hpp>

#include <array>
#include <csignal>
#include <functional>

namespace ibsetup {

// The signals that stop a run: Ctrl-C, a `kill` (Slurm, systemd, an Ansible timeout) and a
// dropped ssh session. Each of the stop mechanisms handles these and no others: this guard,
// apply's InterruptGuard (cli/interrupt), render's StopSignals (render/write_guard) and the
// metrics textfile's RemoveOnSignal (cli/textfile).
inline constexpr std::array<int, 3> k_stop_signals{SIGINT, SIGTERM, SIGHUP};

// run_process puts its child in a process group of its own, which neither the terminal's
// Ctrl-C nor a `kill PID` (Slurm, systemd, an Ansible timeout) reaches: killed while it waits,
// this process would leave the child running, a hung mstconfig for ever. While a guard is
// alive, SIGINT, SIGTERM and SIGHUP whose action is the default are caught instead and only
// noted; the caller polls pending(), kills and reaps its child, and release() then puts the
// default actions back and raises the signal again, so the process ends as it would have,
// without an orphan. Signals with a handler (apply's InterruptGuard) or ignored (nohup) are
// left alone. Guards may nest and overlap across threads: the first installs, the last
// restores.
// Exported for the CLI (IBSETUP_PRIVATE): the commands that write files (`firmware --apply`,
// `render`, `partitions --output`) hold one around their run so that what a signal stopped is
// printed before the signal ends the process.
class IBSETUP_EXPORT TerminationGuard {
public:
  TerminationGuard();
  ~TerminationGuard();  // release(), if not done
  TerminationGuard(const TerminationGuard&) = delete;
  TerminationGuard& operator=(const TerminationGuard&) = delete;

  // The signal that arrived since any guard was installed, or 0.
  static int pending();
  // Whether a guard is alive: a wait that a signal should end must then look at pending()
  // now and then, since a signal noted just before a blocking call does not interrupt it.
  static bool active();
  // Returns the signal that arrived, or 0. The last guard also restores the actions and raises
  // that signal (normally the process ends there).
  int release();

private:
  bool m_released = false;
};

// A caller's own stop flag, for the steps of the library that a signal with the caller's own
// handler must also end early: apply's interrupted() (SIGINT, SIGTERM or SIGHUP noted by its
// InterruptGuard, or a standard output found closed), which TerminationGuard does not see. The
// firmware step asks it before each card, as it asks pending(). Set for the constructing
// thread while alive; guards nest.
class StopRequest {
public:
  explicit StopRequest(std::function<bool()> asked);
  ~StopRequest();
  StopRequest(const StopRequest&) = delete;
  StopRequest& operator=(const StopRequest&) = delete;

  // Whether the innermost StopRequest of this thread asks to stop; false without one.
  static bool asked();

private:
  std::function<bool()> m_asked;
  StopRequest* m_outer;
};

}  // namespace ibsetup
