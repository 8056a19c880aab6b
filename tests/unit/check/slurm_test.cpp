// The Slurm drain reason is an argument of scontrol: printable, one line, never cut by a NUL.
#include "check/slurm.hpp"

#include <gtest/gtest.h>

using namespace ibsetup;

namespace {

check::Report failing(const std::string& message)
{
  check::Report r;
  r.host = "n1";
  r.checks.push_back({"hca.firmware", "mlx5_0", check::Status::fail, "", "", message, {}, {}});
  return r;
}

TEST(SlurmReason, ControlCharactersAreEscapedNotPassedOn)
{
  EXPECT_EQ("ibsetup: mlx5_0: fw \\x1b[2J\\x07 below 20.31",
            check::drain_reason(failing("mlx5_0: fw \x1b[2J\a below 20.31")));
  EXPECT_EQ("ibsetup: a b c", check::drain_reason(failing("a\nb\tc")));
  EXPECT_EQ("ibsetup: \\u0085\\x7f \\xff", check::drain_reason(failing("\xC2\x85\x7f \xFF")));
}

TEST(SlurmReason, NulDoesNotTruncate)
{
  const std::string reason = check::drain_reason(failing(std::string("before\0after", 12)));
  EXPECT_EQ("ibsetup: before\\x00after", reason);
  EXPECT_EQ(std::string::npos, reason.find('\0'));
}

TEST(SlurmReason, LongReasonsAreCutOnACharacterBoundary)
{
  std::string message;
  for (int k = 0; k < 200; ++k) {
    message += "\xC3\xA9";  // é, two bytes
  }
  const std::string reason = check::drain_reason(failing(message));
  EXPECT_LE(reason.size(), 256U);
  EXPECT_EQ("...", reason.substr(reason.size() - 3));
  const std::string kept = reason.substr(9, reason.size() - 12);
  EXPECT_EQ(0U, kept.size() % 2);
  EXPECT_EQ(std::string::npos, kept.find_first_not_of("\xC3\xA9"));
}

}  // namespace
