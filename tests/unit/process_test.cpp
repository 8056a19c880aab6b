// The process runner, with real programs.
#include "gtest_compat.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/process.hpp>

#include <chrono>

using namespace std::chrono_literals;

namespace ibsetup {
namespace {

TEST(Process, TrueExitsZero)
{
  const auto r = run_process({"true"});
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.exit_status, 0);
  EXPECT_EQ(r.program.substr(r.program.size() - 5), "/true");
}

TEST(Process, FalseReportsItsStatus)
{
  const auto r = run_process({"/bin/false"});
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_EQ(r.describe(1s), "exit status 1");
}

TEST(Process, CapturesStdoutAndStderrApart)
{
  const auto r = run_process({"ls", "-d", "/", "/nonexistent-ibsetup-test"});
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_EQ(r.out, "/\n");
  EXPECT_NE(r.err.find("nonexistent-ibsetup-test"), std::string::npos);
}

TEST(Process, ArgumentsAreNotInterpretedByAShell)
{
  const auto r = run_process({"echo", "$HOME; rm -rf / `id`"});
  EXPECT_EQ(r.out, "$HOME; rm -rf / `id`\n");
}

TEST(Process, EnvironmentIsClean)
{
  setenv("IBSETUP_PROCESS_TEST_LEAK", "1", 1);
  const auto r = run_process({"env"});
  EXPECT_EQ(r.out, "PATH=/usr/sbin:/usr/bin:/sbin:/bin\nLC_ALL=C\n");
}

TEST(Process, TimeoutKillsTheChildAndReportsIt)
{
  ProcessOptions o;
  o.timeout = 300ms;
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_process({"sleep", "30"}, o);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_LT(elapsed, 10s);
  EXPECT_EQ(r.describe(o.timeout), "did not finish within 0.3 s and was killed");
}

TEST(Process, TimeoutKillsWhatTheChildStarted)
{
  // The grandchild holds the pipes open; only killing the whole group ends the run.
  ProcessOptions o;
  o.timeout = 300ms;
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_process({"sh", "-c", "sleep 30 & sleep 30; wait"}, o);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
}

TEST(Process, OutputIsCappedButDrained)
{
  ProcessOptions o;
  o.output_limit = 100000;
  const auto r = run_process({"head", "-c", "5000000", "/dev/zero"}, o);
  EXPECT_TRUE(r.ok());  // the child was never blocked on a full pipe
  EXPECT_EQ(r.out.size(), 100000U);
  EXPECT_TRUE(r.stdout_truncated);
  EXPECT_FALSE(r.stderr_truncated);
}

TEST(Process, SignalIsReported)
{
  const auto r = run_process({"sh", "-c", "kill -TERM $$"});
  EXPECT_EQ(r.signal, 15);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.describe(1s).find("killed by signal 15"), std::string::npos);
}

TEST(Process, MissingProgramThrows)
{
  EXPECT_THROW(run_process({"ibsetup-no-such-program"}), EnvironmentError);
  EXPECT_THROW(run_process({"/nonexistent/mstconfig"}), EnvironmentError);
  EXPECT_THROW(run_process({"/etc/passwd"}), EnvironmentError);  // not executable
  EXPECT_FALSE(find_program("ibsetup-no-such-program"));
}

TEST(Process, StdinIsEmpty)
{
  const auto r = run_process({"cat"});
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.out, "");
}

}  // namespace
}  // namespace ibsetup
