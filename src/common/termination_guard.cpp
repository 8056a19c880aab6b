#include "common/termination_guard.hpp"

#include <array>
#include <atomic>
#include <csignal>
#include <mutex>
#include <utility>

namespace ibsetup {

namespace {

// Written by the handler, read by every thread that waits for a child.
std::atomic<int> g_pending{0};
static_assert(std::atomic<int>::is_always_lock_free,
              "a signal handler may only touch lock-free atomics");

std::mutex g_mutex;
// Guards alive: changed under g_mutex, read without it by active().
std::atomic<int> g_guards{0};
std::array<bool, k_stop_signals.size()> g_caught{};

extern "C" void note_signal(int signal)
{
  g_pending = signal;
}

}  // namespace

TerminationGuard::TerminationGuard()
{
  const std::lock_guard<std::mutex> lock(g_mutex);
  if (g_guards++ > 0) {
    return;
  }
  for (size_t i = 0; i < k_stop_signals.size(); ++i) {
    struct sigaction old {};
    g_caught[i] = false;
    if (sigaction(k_stop_signals[i], nullptr, &old) != 0 || (old.sa_flags & SA_SIGINFO) != 0 ||
        old.sa_handler != SIG_DFL) {
      continue;
    }
    struct sigaction catcher {};
    catcher.sa_handler = note_signal;
    sigemptyset(&catcher.sa_mask);
    g_caught[i] = sigaction(k_stop_signals[i], &catcher, nullptr) == 0;
  }
}

TerminationGuard::~TerminationGuard()
{
  release();
}

int TerminationGuard::pending()
{
  return g_pending;
}

bool TerminationGuard::active()
{
  return g_guards > 0;
}

int TerminationGuard::release()
{
  if (m_released) {
    return 0;
  }
  m_released = true;
  const std::lock_guard<std::mutex> lock(g_mutex);
  if (--g_guards > 0) {
    return g_pending;  // the last guard out ends the process
  }
  struct sigaction restore {};
  restore.sa_handler = SIG_DFL;
  sigemptyset(&restore.sa_mask);
  for (size_t i = 0; i < k_stop_signals.size(); ++i) {
    struct sigaction now {};
    // Only while ours is still there: a handler installed meanwhile (apply's) stays.
    if (g_caught[i] && sigaction(k_stop_signals[i], nullptr, &now) == 0 &&
        (now.sa_flags & SA_SIGINFO) == 0 && now.sa_handler == note_signal) {
      sigaction(k_stop_signals[i], &restore, nullptr);
    }
    g_caught[i] = false;
  }
  const int signal = g_pending.exchange(0);
  if (signal != 0) {
    raise(signal);
  }
  return signal;
}

namespace {
thread_local StopRequest* t_stop = nullptr;
}  // namespace

StopRequest::StopRequest(std::function<bool()> asked) : m_asked(std::move(asked)), m_outer(t_stop)
{
  t_stop = this;
}

StopRequest::~StopRequest()
{
  t_stop = m_outer;
}

bool StopRequest::asked()
{
  return t_stop != nullptr && t_stop->m_asked && t_stop->m_asked();
}

}  // namespace ibsetup
