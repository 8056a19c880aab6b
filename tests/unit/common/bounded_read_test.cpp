#include "common/bounded_read.hpp"
#include "common/termination_guard.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <chrono>
#include <string>
#include <thread>

namespace ibsetup::util {
namespace {

struct Pipe {
  int r = -1;
  int w = -1;
  Pipe()
  {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    r = fds[0];
    w = fds[1];
  }
  ~Pipe()
  {
    ::close(r);
    if (w >= 0) {
      ::close(w);
    }
  }
  void write_and_close(const std::string& text)
  {
    EXPECT_EQ(::write(w, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    ::close(w);
    w = -1;
  }
};

TEST(ReadStreamBounded, ReadsUpToTheBoundExactly)
{
  Pipe p;
  p.write_and_close("0123456789");
  const auto r = read_stream_bounded(p.r, 10);
  EXPECT_EQ(r.status, BoundedRead::Status::ok);
  EXPECT_EQ(r.text, "0123456789");
}

TEST(ReadStreamBounded, OneByteOverTheBoundIsTooLarge)
{
  Pipe p;
  p.write_and_close("0123456789a");
  const auto r = read_stream_bounded(p.r, 10);
  EXPECT_EQ(r.status, BoundedRead::Status::too_large);
  EXPECT_TRUE(r.text.empty());
}

// A non-blocking pipe that is empty at the first read: the reader waits for the writer
// instead of failing with EAGAIN.
TEST(ReadStreamBounded, WaitsOnANonBlockingPipe)
{
  Pipe p;
  ASSERT_EQ(::fcntl(p.r, F_SETFL, ::fcntl(p.r, F_GETFL) | O_NONBLOCK), 0);
  std::thread writer([&p] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    p.write_and_close("late");
  });
  const auto r = read_stream_bounded(p.r, 100);
  writer.join();
  EXPECT_EQ(r.status, BoundedRead::Status::ok);
  EXPECT_EQ(r.text, "late");
}

TEST(ReadStreamBounded, AFailedReadKeepsItsErrno)
{
  const int fd = ::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const auto r = read_stream_bounded(fd, 100);
  ::close(fd);
  EXPECT_EQ(r.status, BoundedRead::Status::failed);
  EXPECT_EQ(r.error, EISDIR);
}

TEST(ReadBounded, RefusesAFifoWithoutWaitingForAWriter)
{
  Pipe p;
  const auto r = read_bounded(p.r, 100);
  EXPECT_EQ(r.status, BoundedRead::Status::not_regular);
  EXPECT_STREQ(file_kind(r.mode), "a FIFO");
}

// A stop signal a TerminationGuard noted before the read began (render holds them from the
// profile on) ends a read of a pipe whose writer stays silent: the read used to block for
// ever, since nothing interrupted it any more. The alarm ends the child should it hang.
TEST(BoundedRead, AHeldSignalNotedBeforeTheReadEndsIt)
{
  EXPECT_EXIT(
      {
        Pipe p;
        TerminationGuard hold;
        raise(SIGTERM);
        alarm(10);
        char c = 0;
        const ssize_t n = read_waiting(p.r, &c, 1);
        _exit(n == -1 && errno == EINTR && TerminationGuard::pending() == SIGTERM ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// And data that is there is still read while a guard is alive and no signal came.
TEST(BoundedRead, AGuardAloneDoesNotStopARead)
{
  EXPECT_EXIT(
      {
        Pipe p;
        TerminationGuard hold;
        alarm(10);
        (void)!::write(p.w, "x", 1);
        char c = 0;
        const ssize_t n = read_waiting(p.r, &c, 1);
        _exit(n == 1 && c == 'x' ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace ibsetup::util
