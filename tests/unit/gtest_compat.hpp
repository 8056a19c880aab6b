// GoogleTest 1.8 (Rocky 8's gtest-devel) lacks the 1.10 names these tests use.
#pragma once

#include <gtest/gtest.h>

#include <iostream>

#ifndef INSTANTIATE_TEST_SUITE_P
#define INSTANTIATE_TEST_SUITE_P INSTANTIATE_TEST_CASE_P
#endif

#ifndef GTEST_SKIP
// Usage as in 1.10: GTEST_SKIP() << "reason"; the test ends there and counts as passed.
#define GTEST_SKIP()                                   \
  if (true) {                                          \
    std::cout << "[  SKIPPED ] (GoogleTest < 1.10)\n"; \
    return;                                            \
  } else                                               \
    std::cout
#endif
