// The library's side of include/ibsetup/parse_budget.hpp.
#pragma once

#include <ibsetup/parse_budget.hpp>

namespace ibsetup::detail {

// Arms the registered budget for its lifetime on the calling thread (does nothing when no
// program registered one).
class ParseBudgetScope {
public:
  explicit ParseBudgetScope(std::size_t limit);
  ~ParseBudgetScope();
  ParseBudgetScope(const ParseBudgetScope&) = delete;
  ParseBudgetScope& operator=(const ParseBudgetScope&) = delete;

  // Disarms the budget; true when the parse went over it (a std::bad_alloc caught inside the
  // scope is then the budget's, not the system's).
  bool exceeded();

private:
  bool m_armed = false;
  bool m_exceeded = false;
};

}  // namespace ibsetup::detail
