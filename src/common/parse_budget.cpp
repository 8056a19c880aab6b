#include "common/parse_budget.hpp"

namespace ibsetup {

namespace {

ParseBudgetHooks g_hooks;

}  // namespace

void set_parse_budget_hooks(const ParseBudgetHooks& hooks)
{
  g_hooks = hooks;
}

namespace detail {

ParseBudgetScope::ParseBudgetScope(std::size_t limit)
{
  if (g_hooks.arm != nullptr && g_hooks.disarm != nullptr) {
    g_hooks.arm(limit);
    m_armed = true;
  }
}

ParseBudgetScope::~ParseBudgetScope()
{
  exceeded();
}

bool ParseBudgetScope::exceeded()
{
  if (m_armed) {
    m_exceeded = g_hooks.disarm();
    m_armed = false;
  }
  return m_exceeded;
}

}  // namespace detail

}  // namespace ibsetup
