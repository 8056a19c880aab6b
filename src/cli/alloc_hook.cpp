// Counts the heap of ibsetup's programs for the profile parse budget
// (include/ibsetup/parse_budget.hpp): the global operator new/delete, replaced. Unarmed, each
// call costs one thread-local flag test on top of malloc/free.
#include <ibsetup/parse_budget.hpp>

#include <malloc.h>

#include <algorithm>
#include <cstdlib>
#include <new>

namespace {

struct Budget {
  std::size_t limit = 0;
  std::size_t used = 0;
  bool armed = false;
  bool tripped = false;
};

thread_local Budget t_budget;

void arm(std::size_t limit)
{
  t_budget = Budget{limit, 0, true, false};
}

bool disarm()
{
  const bool tripped = t_budget.tripped;
  t_budget = Budget{};
  return tripped;
}

const bool k_registered = [] {
  ibsetup::set_parse_budget_hooks({&arm, &disarm});
  return true;
}();

}  // namespace

void* operator new(std::size_t size)
{
  void* p = std::malloc(size == 0 ? 1 : size);  // NOLINT(cppcoreguidelines-no-malloc)
  if (p == nullptr) {
    throw std::bad_alloc();
  }
  Budget& b = t_budget;
  if (b.armed) {
    b.used += malloc_usable_size(p);
    if (b.used > b.limit) {
      // Disarmed from here on, so that unwinding and the error message can allocate.
      b.armed = false;
      b.tripped = true;
      std::free(p);  // NOLINT(cppcoreguidelines-no-malloc)
      throw std::bad_alloc();
    }
  }
  return p;
}

void operator delete(void* p) noexcept
{
  Budget& b = t_budget;
  if (b.armed && p != nullptr) {
    b.used -= std::min(b.used, malloc_usable_size(p));
  }
  std::free(p);  // NOLINT(cppcoreguidelines-no-malloc)
}

void operator delete(void* p, std::size_t /*size*/) noexcept
{
  operator delete(p);
}
