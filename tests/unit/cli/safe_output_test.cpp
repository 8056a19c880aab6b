// The output guard of the command line (src/cli/safe_output.cpp).
#include "cli/safe_output.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <sstream>

using ibsetup::cli::EscapingBuf;

namespace {

TEST(SafeOutput, EscapesControlsAndKeepsLines)
{
  std::stringbuf target;
  {
    EscapingBuf buf(&target);
    std::ostream out(&buf);
    out << "a\x1b[2J\tb\n" << '\a' << "\xC2\x85\xFF" << std::flush;
    EXPECT_EQ("a\\x1b[2J\tb\n\\x07\\u0085\\xff", target.str());
  }
}

TEST(SafeOutput, Utf8SplitAcrossWritesPassesWhole)
{
  std::stringbuf target;
  EscapingBuf buf(&target);
  std::ostream out(&buf);
  out << "caf\xC3" << std::flush;
  EXPECT_EQ("caf", target.str());  // the lead byte waits for the rest
  out << "\xA9 \xE2\x82" << std::flush;
  EXPECT_EQ("caf\xC3\xA9 ", target.str());
  out << "\xAC" << std::flush;
  EXPECT_EQ("caf\xC3\xA9 \xE2\x82\xAC", target.str());
  out << "\xE2";
  buf.finish();  // a sequence never completed is shown as the bytes it is
  EXPECT_EQ("caf\xC3\xA9 \xE2\x82\xAC\\xe2", target.str());
}

// A target that takes nothing: its first write fails as a full disk's does, the later ones as
// a closed descriptor's.
class ClosedBuf : public std::streambuf {
protected:
  std::streamsize xsputn(const char* /*s*/, std::streamsize /*n*/) override
  {
    errno = m_calls++ == 0 ? ENOSPC : EBADF;
    return 0;
  }
  int_type overflow(int_type /*c*/) override
  {
    errno = EBADF;
    return traits_type::eof();
  }

private:
  int m_calls = 0;
};

TEST(SafeOutput, AFailedWriteReachesTheStream)
{
  // apply notices a closed standard output by the stream's state: the guard must not hide it.
  ClosedBuf target;
  EscapingBuf buf(&target);
  std::ostream out(&buf);
  out << "report line\n" << std::flush;
  EXPECT_TRUE(out.bad());
}

TEST(SafeOutput, KeepsTheFirstFailedWritesErrno)
{
  // check's report cut half-way: the stream writes nothing more, and errno at the end says
  // nothing, so finish_output asks the guard why.
  ClosedBuf target;
  EscapingBuf buf(&target);
  EXPECT_EQ(buf.first_error(), 0);
  std::ostream out(&buf);
  out << "first line\n";
  out.clear();
  out << "second line\n" << std::flush;
  EXPECT_EQ(buf.first_error(), ENOSPC);
}

}  // namespace
