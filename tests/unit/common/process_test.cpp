// The process runner, with real programs.
#include "gtest_compat.hpp"
#include "common/process.hpp"
#include "common/termination_guard.hpp"
#include "render/write_guard.hpp"
#include "test_util.hpp"

#include <ibsetup/error.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

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

// The refusal says why, and a hostile name is escaped: it said "no such program" for a file
// that is there but not executable, and printed the name raw.
TEST(Process, MissingProgramSaysWhy)
{
  const auto message = [](const std::string& name) {
    try {
      run_process({name});
    } catch (const EnvironmentError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("ibsetup-no-such-program"),
            std::string("ibsetup-no-such-program: not found in ") + k_clean_path);
  EXPECT_EQ(message("/nonexistent/mstconfig"), "/nonexistent/mstconfig: No such file or directory");
  EXPECT_EQ(message("/etc/passwd"), "/etc/passwd: is not executable");
  EXPECT_EQ(message("/tmp"), "/tmp: is a directory, not a program");
  EXPECT_EQ(message("/no/such/\x1b[2J"), "/no/such/\\x1b[2J: No such file or directory");
  std::string why;
  EXPECT_FALSE(find_program("", &why));
  EXPECT_EQ(why, "is an empty program name");
}

TEST(Process, StdinIsEmpty)
{
  const auto r = run_process({"cat"});
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.out, "");
}

// A process that is gone or a zombie no one has reaped yet (a container's init may not reap).
bool is_gone(pid_t pid)
{
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (std::chrono::steady_clock::now() < until) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) {
      return true;
    }
    const auto paren = line.rfind(')');
    if (paren != std::string::npos && line.compare(paren, 3, ") Z") == 0) {
      return true;
    }
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

TEST(Process, ExitOfTheChildEndsTheRunNotClosedPipes)
{
  // The background sleep holds stdout and stderr open: the run is over when sh exits.
  ProcessOptions o;
  o.timeout = 20s;
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_process({"sh", "-c", "sleep 30 & echo $!; exit 0"}, o);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_TRUE(r.ok()) << r.describe(o.timeout);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_status, 0);
  const pid_t sleeper = static_cast<pid_t>(std::stol(r.out));
  EXPECT_TRUE(is_gone(sleeper)) << "the grandchild " << sleeper << " outlived the run";
}

TEST(Process, OutputWrittenBeforeExitIsKept)
{
  // More than a pipe holds: the last part is still in the pipe when sh exits.
  const auto start = std::chrono::steady_clock::now();
  const auto r =
      run_process({"sh", "-c", "sleep 30 & head -c 300000 /dev/zero; echo done >&2; exit 3"});
  EXPECT_EQ(r.exit_status, 3);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.out.size(), 300000U);
  EXPECT_EQ(r.err, "done\n");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);  // not when the sleep ends
}

TEST(Process, AGrandchildThatKeepsWritingIsCutOff)
{
  ProcessOptions o;
  o.timeout = 20s;
  o.output_limit = 1000;
  const auto start = std::chrono::steady_clock::now();
  // yes is writing when sh exits: reading stops after the grace, not when yes would.
  const auto r = run_process({"sh", "-c", "yes & sleep 0.3; exit 0"}, o);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_TRUE(r.ok()) << r.describe(o.timeout);
  EXPECT_TRUE(r.stdout_truncated);
}

TEST(Process, ChildThatClosesItsPipesIsStillTimedOut)
{
  ProcessOptions o;
  o.timeout = 300ms;
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_process({"sh", "-c", "exec >&- 2>&-; sleep 30"}, o);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
}

TEST(Process, HugeTimeoutsDoNotWrapAround)
{
  // 2^32 ms + 300 ms once became a 300 ms poll; 2^31 ms a negative, endless one.
  ProcessOptions o;
  o.timeout = std::chrono::milliseconds((1LL << 32) + 300);
  auto r = run_process({"sleep", "1"}, o);
  EXPECT_TRUE(r.ok()) << r.describe(o.timeout);
  o.timeout = std::chrono::milliseconds(1LL << 31);
  const auto start = std::chrono::steady_clock::now();
  r = run_process({"sh", "-c", "sleep 30 & exit 0"}, o);
  EXPECT_TRUE(r.ok()) << r.describe(o.timeout);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  o.timeout = std::chrono::milliseconds::max();
  r = run_process({"true"}, o);
  EXPECT_TRUE(r.ok()) << r.describe(o.timeout);
}

TEST(Process, NonPositiveTimeoutKillsAtOnce)
{
  for (const auto t : {0ms, -5ms}) {
    ProcessOptions o;
    o.timeout = t;
    const auto start = std::chrono::steady_clock::now();
    const auto r = run_process({"sleep", "30"}, o);
    EXPECT_TRUE(r.timed_out);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  }
}

TEST(Process, InheritableDescriptorsAreClosedInTheChild)
{
  const int fd = open("/dev/null", O_RDONLY);  // no O_CLOEXEC, like a careless library
  ASSERT_GE(fd, 0);
  const int high = dup2(fd, 77);
  ASSERT_EQ(high, 77);
  const int cloexec = fcntl(fd, F_GETFD);
  ASSERT_EQ(cloexec & FD_CLOEXEC, 0);
  const std::string probe = "for f in " + std::to_string(fd) +
                            " 77; do [ -e /proc/$$/fd/$f ] && echo open $f; done; [ -e "
                            "/proc/$$/fd/1 ] && echo stdout";
  const auto r = run_process({"sh", "-c", probe});
  close(high);
  close(fd);
  EXPECT_EQ(r.out, "stdout\n");
}

// kill PID (Slurm, systemd) does not reach the child's own process group: this process kills
// it before it dies of the signal, and so leaves no orphan behind.
TEST(Process, TerminationKillsTheChildFirst)
{
  test::TempDir dir;
  const std::string pid_file = (dir.path() / "pid").string();
  EXPECT_EXIT(
      run_process({"sh", "-c", "echo $$ > '" + pid_file + "'; kill -TERM $PPID; exec sleep 30"}),
      ::testing::KilledBySignal(SIGTERM), "");
  std::ifstream in(pid_file);
  pid_t child = 0;
  ASSERT_TRUE(in >> child);
  const bool alive = kill(child, 0) == 0;
  if (alive) {
    kill(child, SIGKILL);
  }
  EXPECT_FALSE(alive) << "the child " << child << " outlived its parent";
}

// A stop signal arriving while the reboot marker is staged (OnStop::finish, after a set) does
// not undo it: the write goes on, and the holder ends the process by the signal afterwards. It
// used to undo the marker, so a changed card had none.
TEST(Process, AHeldSignalDoesNotStopAMarkerWrite)
{
  EXPECT_EXIT(
      {
        TerminationGuard hold;
        int taken = -1;
        {
          render::StopSignals held(render::OnStop::finish);
          raise(SIGTERM);  // blocked: pending until the mask is restored
          taken = held.take_pending();
        }
        if (taken != 0 || TerminationGuard::pending() != SIGTERM) {
          _exit(1);
        }
        hold.release();  // ends the process by the signal
        _exit(2);
      },
      ::testing::KilledBySignal(SIGTERM), "");
}

// Likewise a signal apply's own handler catches (its InterruptGuard, around the firmware step):
// the marker is written, and the handler runs once the write restores the mask.
TEST(Process, AHandledSignalDoesNotStopAMarkerWrite)
{
  EXPECT_EXIT(
      {
        static volatile sig_atomic_t seen = 0;
        struct sigaction handler {};
        handler.sa_handler = [](int s) { seen = s; };
        sigemptyset(&handler.sa_mask);
        sigaction(SIGTERM, &handler, nullptr);
        int taken = -1;
        {
          render::StopSignals held(render::OnStop::finish);
          raise(SIGTERM);
          taken = held.take_pending();
          if (seen != 0) {
            _exit(1);  // not blocked
          }
        }
        _exit(taken == 0 && seen == SIGTERM ? 0 : 2);
      },
      ::testing::ExitedWithCode(0), "");
}

// render's files (OnStop::undo): a signal the CLI's TerminationGuard holds stops the staging
// like any other, stays noted for the holder, and still ends the process once released.
TEST(Process, AHeldSignalStopsAStagedRender)
{
  EXPECT_EXIT(
      {
        TerminationGuard hold;
        int taken = -1;
        {
          render::StopSignals held(render::OnStop::undo);
          raise(SIGTERM);
          taken = held.take_pending();
        }
        if (taken != SIGTERM || TerminationGuard::pending() != SIGTERM) {
          _exit(1);
        }
        hold.release();
        _exit(2);
      },
      ::testing::KilledBySignal(SIGTERM), "");
}

// Only default actions are taken over, and only for the run: a handler (apply's) and an
// ignored signal (nohup) stay as they were, and the default comes back.
TEST(Process, SignalActionsAreLeftAsTheyWere)
{
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction handler {};
  handler.sa_handler = [](int) {};
  struct sigaction old_hup {};
  struct sigaction old_term {};
  struct sigaction old_int {};  // SIG_IGN when run as a script's background job
  ASSERT_EQ(sigaction(SIGINT, nullptr, &old_int), 0);
  ASSERT_EQ(sigaction(SIGHUP, &ignore, &old_hup), 0);
  ASSERT_EQ(sigaction(SIGTERM, &handler, &old_term), 0);
  std::array<struct sigaction, 3> seen{};
  const auto r = run_process({"true"});
  sigaction(SIGHUP, nullptr, &seen[0]);
  sigaction(SIGTERM, nullptr, &seen[1]);
  sigaction(SIGINT, nullptr, &seen[2]);
  sigaction(SIGHUP, &old_hup, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(seen[0].sa_handler, SIG_IGN);
  EXPECT_EQ(seen[1].sa_handler, handler.sa_handler);
  EXPECT_EQ(seen[2].sa_handler, old_int.sa_handler);
}

// mstconfig's set: a signal lets the child finish its write before this process ends.
TEST(Process, FinishOnSignalLetsTheChildEnd)
{
  test::TempDir dir;
  const std::string done = (dir.path() / "done").string();
  ProcessOptions o;
  o.finish_on_signal = true;
  EXPECT_EXIT(
      run_process({"sh", "-c", "kill -TERM $PPID; sleep 0.3; echo finished > '" + done + "'"}, o),
      ::testing::KilledBySignal(SIGTERM), "");
  EXPECT_TRUE(std::filesystem::exists(done)) << "the child was cut short";
}

}  // namespace
}  // namespace ibsetup
