#include "os/spent_fds.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <atomic>
#include <thread>
#include <vector>

#include "gtest_compat.hpp"

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
// ever close one the other still holds. Each thread opens a file of its own, and before every
// add checks that each descriptor still waiting in its batch is open on that file: a foreign
// close shows as EBADF, a foreign close and reuse as another inode.
TEST(SpentFds, ConcurrentBatchesNeverCloseEachOthersDescriptors)
{
  char a[] = "/tmp/ibsetup-spent-a-XXXXXX";
  char b[] = "/tmp/ibsetup-spent-b-XXXXXX";
  const int fa = mkstemp(a);
  const int fb = mkstemp(b);
  ASSERT_GE(fa, 0);
  ASSERT_GE(fb, 0);
  close(fa);
  close(fb);
  std::atomic<int> bad{0};
  std::atomic<int> ready{0};
  constexpr size_t k_capacity = 16;
  const auto work = [&bad, &ready](const char* path) {
    struct stat own {};
    if (stat(path, &own) != 0) {
      ++bad;
      return;
    }
    ++ready;
    while (ready.load() < 2) {
      std::this_thread::yield();  // both start together, so that their numbers interleave
    }
    SpentFds batch(k_capacity);
    std::vector<int> waiting;  // what the batch holds: it flushes at every k_capacity-th add
    for (int i = 0; i < 20000; ++i) {
      const int fd = open(path, O_RDONLY | O_CLOEXEC);
      for (int w : waiting) {
        struct stat st {};
        if (fstat(w, &st) != 0 || st.st_ino != own.st_ino || st.st_dev != own.st_dev) {
          ++bad;
        }
      }
      if (fd < 0) {
        ++bad;
        continue;
      }
      batch.add(fd);
      waiting.push_back(fd);
      if (waiting.size() == k_capacity) {
        waiting.clear();
      }
    }
  };
  std::thread other(work, b);
  work(a);
  other.join();
  unlink(a);
  unlink(b);
  EXPECT_EQ(0, bad.load());
}

TEST(SpentFds, NegativeAndRepeatedNumbersAreHarmless)
{
  auto fds = open_many(2);
  std::vector<int> spent{fds[0], -1, fds[0], fds[1]};
  close_spent(spent);
  EXPECT_FALSE(is_open(fds[0]));
  EXPECT_FALSE(is_open(fds[1]));
  const int again = open("/dev/null", O_RDONLY | O_CLOEXEC);  // takes the lowest free number
  SpentFds batch(0);                                          // capacity 0 acts as 1
  batch.add(-1);
  EXPECT_TRUE(batch.empty());
  EXPECT_TRUE(is_open(again));
  batch.add(again);
  EXPECT_FALSE(is_open(again));
}

TEST(OwnDescriptorTable, AThreadsDescriptorsAreItsOwnAndCloseWithIt)
{
  const int before = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(before, 0);
  bool owned = false;
  int refused = 0;
  bool saw_before = false;
  int opened = -1;
  std::thread worker([&] {
    owned = own_descriptor_table();
    refused = owned ? 0 : errno;
    if (!owned) {
      return;
    }
    saw_before = is_open(before);  // the copy holds what the process had
    opened = open("/dev/null", O_RDONLY | O_CLOEXEC);
    close(before);  // the thread's copy only
    // Left open on purpose: the thread's exit closes it.
  });
  worker.join();
  if (!owned && refused == EPERM) {
    close(before);
    GTEST_SKIP() << "unshare(CLONE_FILES) refused by a seccomp filter (a container's)";
  }
  ASSERT_TRUE(owned) << "unshare(CLONE_FILES): " << std::strerror(refused);
  EXPECT_TRUE(saw_before);
  ASSERT_GE(opened, 0);
  EXPECT_TRUE(is_open(before)) << "closing the thread's copy closed the process's descriptor";
  // The number the thread got was free in the process's table too; it is still free there.
  EXPECT_FALSE(is_open(opened)) << "fd " << opened << " leaked into the process's table";
  close(before);
}
