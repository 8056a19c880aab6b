#pragma once
// A library caller's callbacks (apply::Options::interrupted and ::progress, nm::Options' same)
// may be empty or may throw. Wrapped once where a run starts, every later call is safe: an
// exception out of one mid-run would leave the steps made so far in place. Header-only, so the
// NetworkManager plugin uses the same rule.

#include <functional>
#include <string>
#include <utility>

namespace ibsetup::apply::detail {

// Empty: never stops the run. One that throws stops it, as an interruption does, so the steps
// made so far are rolled back.
inline bool ask_interrupted(const std::function<bool()>& f) noexcept
{
  try {
    return f && f();
  } catch (...) {
    return true;
  }
}

// Progress lines are for display: one that throws loses its line, not the run.
inline void tell_progress(const std::function<void(const std::string&)>& f,
                          const std::string& line) noexcept
{
  try {
    if (f) {
      f(line);
    }
  } catch (...) {
  }
}

inline std::function<bool()> guarded_interrupted(std::function<bool()> f)
{
  return [f = std::move(f)] { return ask_interrupted(f); };
}

inline std::function<void(const std::string&)> guarded_progress(
    std::function<void(const std::string&)> f)
{
  if (!f) {
    return nullptr;
  }
  return [f = std::move(f)](const std::string& line) { tell_progress(f, line); };
}

}  // namespace ibsetup::apply::detail
