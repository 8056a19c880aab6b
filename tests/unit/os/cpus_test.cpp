#include "os/cpus.hpp"

#include <gtest/gtest.h>

using namespace ibsetup::inventory;

TEST(Cpus, OtherRunnableTasksFromLoadavg)
{
  EXPECT_EQ(0U, *other_runnable_tasks("0.06 0.01 0.00 1/123 4567\n"));
  EXPECT_EQ(2U, *other_runnable_tasks("1.99 0.50 0.20 3/412 99\n"));
  EXPECT_EQ(0U, *other_runnable_tasks("0.00 0.00 0.00 0/1 1"));  // never negative
  EXPECT_FALSE(other_runnable_tasks(""));
  EXPECT_FALSE(other_runnable_tasks("0.06 0.01 0.00"));
  EXPECT_FALSE(other_runnable_tasks("0.06 0.01 0.00 x/123 4567"));
  EXPECT_FALSE(other_runnable_tasks("0.06 0.01 0.00 12"));                 // no '/': cut short
  EXPECT_FALSE(other_runnable_tasks("0.06 0.01 0.00 1234567890123/5 1"));  // absurd: refused
}

TEST(Cpus, TheLiveLoadavgParses)
{
  // Whatever the machine is doing, /proc/loadavg has the field; the count is the others'.
  const auto others = other_runnable_tasks();
  ASSERT_TRUE(others);
  EXPECT_LT(*others, 100000U);
}

TEST(Cpus, WorkersOnlyOnFreeCpus)
{
  EXPECT_EQ(2U, reader_workers(8, 2, 0U));    // two idle CPUs: the measured best
  EXPECT_EQ(0U, reader_workers(8, 2, 1U));    // one core busy: the caller alone
  EXPECT_EQ(0U, reader_workers(8, 2, 7U));    // more runnable than CPUs
  EXPECT_EQ(0U, reader_workers(8, 1, 0U));    // one CPU
  EXPECT_EQ(4U, reader_workers(8, 64, 10U));  // at most four
  EXPECT_EQ(3U, reader_workers(8, 4, 1U));
  EXPECT_EQ(1U, reader_workers(1, 8, 0U));  // never more than the devices
  EXPECT_EQ(0U, reader_workers(0, 8, 0U));
  EXPECT_EQ(2U, reader_workers(8, 2, std::nullopt));  // load unknown: as if idle
}
