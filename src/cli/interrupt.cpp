#include "cli/interrupt.hpp"

#include "common/strings.hpp"
#include "common/termination_guard.hpp"

#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>
#include <optional>

namespace ibsetup::cli {

namespace {

std::atomic<int> g_signal{0};
std::atomic<bool> g_output_closed{false};
std::atomic<int> g_output_error{0};  // errno of a write to standard output that failed
std::atomic<bool> g_loss_said{false};
std::atomic<bool> g_told{false};
std::atomic<bool> g_report_moved{false};
std::atomic<bool> g_changing{false};     // changes_begin() was called
std::atomic<bool> g_signal_seen{false};  // interrupted() returned true with g_signal set
std::string g_work_done;                 // note_work_done's, main thread only

extern "C" void on_signal(int sig)
{
  g_signal = sig;
}

struct sigaction g_old[k_stop_signals.size()];

// A pipe or socket whose reader has gone reports POLLERR/POLLHUP on the writing end without
// a write: this catches `apply --json | head`, which writes nothing until the end.
bool stdout_closed()
{
  if (g_output_closed) {
    return true;
  }
  pollfd p{STDOUT_FILENO, 0, 0};
  if (!std::cout.good() || (poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) != 0)) {
    g_output_closed = true;
  }
  return g_output_closed;
}

// After a write of ours to standard output failed.
void note_failed_write(int error)
{
  g_output_error = error;
  g_output_closed = true;
}

// Why standard output cannot be written: a full disk (ENOSPC) or `ulimit -f` (EFBIG) is not a
// closed output, and the message says which.
std::string output_problem()
{
  const int error = g_output_error;
  if (error != 0 && error != EPIPE) {
    return std::string("cannot write to standard output: ") + std::strerror(error);
  }
  return "standard output is closed";
}

}  // namespace

InterruptGuard::InterruptGuard()
{
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < k_stop_signals.size(); ++i) {
    // A signal ignored on entry stays ignored: `nohup ibsetup apply` means SIGHUP must not
    // stop it, and a shell's background jobs ignore SIGINT.
    sigaction(k_stop_signals[i], nullptr, &g_old[i]);
    if (g_old[i].sa_handler != SIG_IGN) {
      sigaction(k_stop_signals[i], &sa, nullptr);
    }
  }
}

InterruptGuard::~InterruptGuard()
{
  std::cout.flush();
  for (size_t i = 0; i < k_stop_signals.size(); ++i) {
    sigaction(k_stop_signals[i], &g_old[i], nullptr);
  }
}

namespace {
// Released by run() at its end. exit_now's _exit skips it (a held signal would be lost there),
// but its one caller, check's watchdog, never holds.
std::optional<TerminationGuard> g_held;
}  // namespace

void hold_stop_signals()
{
  if (!g_held) {
    g_held.emplace();
  }
}

int release_stop_signals()
{
  std::cout.flush();  // an end by the signal flushes nothing
  if (!g_held) {
    return 0;
  }
  // Said even with -q, where nothing else would tell what the signal found done: the files
  // listed (or not, with -q) before ibsetup ends by it are whole and stay.
  if (const int sig = TerminationGuard::pending(); sig != 0 && !g_work_done.empty()) {
    std::cerr << "ibsetup: " << util::signal_name(sig) << " held until the write was complete; "
              << g_work_done << '\n'
              << std::flush;
  }
  const int signal = g_held->release();
  g_held.reset();
  return signal;
}

int unheeded_signal()
{
  const int sig = g_signal;
  return g_signal_seen ? 0 : sig;
}

void changes_begin()
{
  g_changing = true;
}

bool interrupted()
{
  const int sig = g_signal;
  if (sig == 0 && !stdout_closed()) {
    return false;
  }
  if (sig != 0) {
    g_signal_seen = true;
  }
  if (!g_told.exchange(true)) {
    g_loss_said = g_loss_said || sig == 0;
    // Before the first change (waiting for the lock) there is no step to finish and nothing
    // to roll back; the error that follows says so.
    std::cerr << "ibsetup: "
              << (sig != 0 ? std::string(util::signal_name(sig)) + " received" : output_problem())
              << (g_changing ? ": stopping after the current step and rolling back\n"
                             : ": stopping\n");
  }
  return true;
}

void progress_line(const std::string& line)
{
  errno = 0;
  std::cout << line << std::endl;
  if (!std::cout.good() && !g_output_closed) {
    note_failed_write(errno);
  }
}

void note_work_done(std::string what)
{
  g_work_done = std::move(what);
}

const std::string& work_done()
{
  return g_work_done;
}

std::string lost_output_text(int error, const std::string& done)
{
  return std::string("cannot write to standard output") +
         (error != 0 ? std::string(": ") + std::strerror(error) : std::string()) +
         "; what it shows is incomplete" + (done.empty() ? std::string() : ", but " + done);
}

bool output_loss_said()
{
  return g_loss_said;
}

void emit_report(const std::string& text)
{
  if (!stdout_closed()) {
    errno = 0;
    std::cout << text << std::flush;
    if (std::cout.good()) {
      return;
    }
    note_failed_write(errno);
  }
  // Said once: apply's firmware step and its final report may both come here.
  g_loss_said = true;
  if (!g_report_moved.exchange(true)) {
    std::cerr << "ibsetup: " << output_problem() << "; the report follows here\n";
  }
  std::cerr << text;
  // Delivered, to standard error, with the reason: apply's exit status stays that of the
  // changes (the end of the run, finish_output, would otherwise make a done apply exit 4).
  std::cout.clear();
}

}  // namespace ibsetup::cli
