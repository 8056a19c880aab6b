#include "cli/textfile.hpp"

#include "common/termination_guard.hpp"

#include <ibsetup/check.hpp>
#include <ibsetup/error.hpp>

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>

namespace ibsetup::cli {

namespace {

constexpr size_t k_count = k_stop_signals.size();

char g_path[4096];
std::atomic<bool> g_armed{false};
struct sigaction g_old[k_count];
bool g_installed[k_count];

extern "C" void remove_and_die(int sig)
{
  if (g_armed) {
    ::unlink(g_path);
  }
  for (size_t i = 0; i < k_count; ++i) {
    if (k_stop_signals[i] == sig) {
      sigaction(sig, &g_old[i], nullptr);
    }
  }
  raise(sig);
}

}  // namespace

RemoveOnSignal::RemoveOnSignal(const std::string& path)
{
  if (path.size() >= sizeof g_path) {
    throw EnvironmentError(path + ": path too long");
  }
  std::memcpy(g_path, path.c_str(), path.size() + 1);
  g_armed = true;
  struct sigaction sa {};
  sa.sa_handler = remove_and_die;
  sigemptyset(&sa.sa_mask);
  for (int s : k_stop_signals) {
    sigaddset(&sa.sa_mask, s);  // one removal at a time
  }
  for (size_t i = 0; i < k_count; ++i) {
    sigaction(k_stop_signals[i], nullptr, &g_old[i]);
    // Ignored on entry (nohup, a shell's background job) stays ignored.
    g_installed[i] = g_old[i].sa_handler != SIG_IGN;
    if (g_installed[i]) {
      sigaction(k_stop_signals[i], &sa, nullptr);
    }
  }
}

RemoveOnSignal::~RemoveOnSignal()
{
  for (size_t i = 0; i < k_count; ++i) {
    if (g_installed[i]) {
      sigaction(k_stop_signals[i], &g_old[i], nullptr);
    }
  }
  g_armed = false;
}

void write_textfile(const std::string& dir, const std::string& text)
{
  const RemoveOnSignal guard(check::textfile_temp_path(dir));
  check::write_textfile(dir, text);
}

}  // namespace ibsetup::cli
