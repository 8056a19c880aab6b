#include "common/bounded_read.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
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

}  // namespace
}  // namespace ibsetup::util
