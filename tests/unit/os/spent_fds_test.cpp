#include "os/spent_fds.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <thread>
#include <vector>

using namespace ibsetup::inventory;

namespace {

bool is_open(int fd)
{
  return fcntl(fd, F_GETFD) != -1;
}

std::vector<int> open_many(size_t n)
{
  std::vector<int> fds;
  for (size_t i = 0; i < n; ++i) {
    fds.push_back(open("/dev/null", O_RDONLY | O_CLOEXEC));
    EXPECT_GE(fds.back(), 0);
  }
  return fds;
}

}  // namespace

TEST(SpentFds, ClosesEveryDescriptorGivenAndLeavesTheOthersOpen)
{
  for (const bool use_range : {true, false}) {
    auto fds = open_many(12);
    // Every third one stays the caller's: the runs around it must not swallow it.
    std::vector<int> spent;
    std::vector<int> kept;
    for (size_t i = 0; i < fds.size(); ++i) {
      (i % 3 == 1 ? kept : spent).push_back(fds[i]);
    }
    close_spent(spent, use_range);
    EXPECT_TRUE(spent.empty());
    for (size_t i = 0; i < fds.size(); ++i) {
      EXPECT_EQ(i % 3 == 1, is_open(fds[i])) << "fd " << fds[i] << " use_range " << use_range;
    }
    for (int fd : kept) {
      close(fd);
    }
  }
}

TEST(SpentFds, UnorderedAndSingleDescriptors)
{
  auto fds = open_many(5);
  std::vector<int> spent{fds[4], fds[0], fds[2], fds[1], fds[3]};
  close_spent(spent);
  for (int fd : fds) {
    EXPECT_FALSE(is_open(fd));
  }
  std::vector<int> none;
  close_spent(none);  // nothing to do, nothing closed
  EXPECT_TRUE(none.empty());
}

TEST(SpentFds, FlushesWhenFullAndWhenDestroyed)
{
  auto fds = open_many(5);
  {
    SpentFds batch(3);
    batch.add(fds[0]);
    batch.add(fds[1]);
    EXPECT_TRUE(is_open(fds[0]));  // waiting
    batch.add(fds[2]);             // full: all three closed
    EXPECT_TRUE(batch.empty());
    EXPECT_FALSE(is_open(fds[0]));
    EXPECT_FALSE(is_open(fds[2]));
    batch.add(fds[3]);
    EXPECT_TRUE(is_open(fds[3]));
  }
  EXPECT_FALSE(is_open(fds[3]));  // closed by the destructor
  EXPECT_TRUE(is_open(fds[4]));   // never given
  close(fds[4]);
}

// Two threads open and retire descriptors at once, so their numbers interleave; neither may
// ever close one the other still holds (it would read a closed or, worse, a reused one).
TEST(SpentFds, ConcurrentBatchesNeverCloseEachOthersDescriptors)
{
  std::atomic<int> bad{0};
  std::atomic<int> ready{0};
  const auto work = [&bad, &ready] {
    ++ready;
    while (ready.load() < 2) {
      std::this_thread::yield();  // both start together, so that their numbers interleave
    }
    SpentFds batch(16);
    for (int i = 0; i < 20000; ++i) {
      const int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
      char c = 0;
      // A descriptor closed under us reads as EBADF; /dev/null reads as 0 bytes.
      if (fd < 0 || read(fd, &c, 1) != 0) {
        ++bad;
      }
      batch.add(fd);
    }
  };
  std::thread other(work);
  work();
  other.join();
  EXPECT_EQ(0, bad.load());
}
