// A memory bound for profile parsing. yaml-cpp has had bugs that allocate without
// end on a few bytes of input (upstream issues 499 and 1040); load_profile_text guards against
// the known ones, and this bound turns the next one into a clear error instead of an exhausted
// node. A library cannot count the heap of the program that links it, so the program does: its
// replacement global operator new/delete counts the live bytes of a thread while a budget is
// armed there, and it registers how to arm and read that budget here. ibsetup's own programs
// do (src/cli/alloc_hook.cpp is the whole of it); in a program that registers nothing, parsing
// is bounded by the other guards only.
#pragma once
#pragma GCC visibility push(default)  // the public API: export.hpp says why

#include <cstddef>

namespace ibsetup {

struct ParseBudgetHooks {
  // Starts counting the calling thread's live allocations, limit bytes at most; past it the
  // program's operator new throws std::bad_alloc.
  void (*arm)(std::size_t limit) = nullptr;
  // Stops counting on the calling thread; returns true when the limit was exceeded.
  bool (*disarm)() = nullptr;
};

// Registers the program's budget; load_profile_text arms it around the YAML parse with
// Limits::max_parse_memory. Call once, before any profile is loaded.
void set_parse_budget_hooks(const ParseBudgetHooks& hooks);

}  // namespace ibsetup
#pragma GCC visibility pop
