// check --textfile-dir's file: replaced atomically, mode 0644 under any umask, and no temporary
// file left behind by an error or a stop signal; other processes' files are left alone unless
// a killed process left them.
#include "gtest_compat.hpp"
#include "test_util.hpp"

#include "check/metrics_textfile.hpp"
#include "cli/textfile.hpp"

#include <ibsetup/check.hpp>
#include <ibsetup/error.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

namespace fs = std::filesystem;
using namespace ibsetup;

namespace {

std::vector<std::string> names(const fs::path& dir)
{
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

class UmaskGuard {
public:
  explicit UmaskGuard(mode_t mask) : m_old(::umask(mask)) {}
  ~UmaskGuard() { ::umask(m_old); }

private:
  mode_t m_old;
};

TEST(Textfile, ReplacesTheFileWithMode0644UnderUmask077)
{
  const test::TempDir dir;
  const UmaskGuard mask(077);
  check::write_textfile(dir.path().string(), "a 1\n");
  check::write_textfile(dir.path().string() + "/", "b 2\n");
  EXPECT_EQ(test::read_text(dir.path() / "ibsetup.prom"), "b 2\n");
  struct stat st {};
  ASSERT_EQ(::stat((dir.path() / "ibsetup.prom").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  EXPECT_EQ(names(dir.path()), std::vector<std::string>{"ibsetup.prom"});
}

// No directory is not the file system's root: "" used to write /ibsetup.prom.
TEST(Textfile, AnEmptyDirectoryIsRefused)
{
  EXPECT_THROW(check::write_textfile("", "x 1\n"), EnvironmentError);
}

TEST(Textfile, TempNameHasThePidAndIsNotReadByTheCollector)
{
  const auto temp = check::textfile_temp_path("/d");
  EXPECT_EQ(temp, "/d/.ibsetup.prom." + std::to_string(::getpid()) + ".tmp");
}

TEST(Textfile, AFailedRenameLeavesNoTemporaryFileAndTheOldFile)
{
  const test::TempDir dir;
  // The target is a non-empty directory: rename(2) refuses to replace it.
  fs::create_directories(dir.path() / "ibsetup.prom" / "x");
  EXPECT_THROW(check::write_textfile(dir.path().string(), "a 1\n"), EnvironmentError);
  EXPECT_EQ(names(dir.path()), std::vector<std::string>{"ibsetup.prom"});
}

TEST(Textfile, AMissingDirectoryIsAnEnvironmentError)
{
  const test::TempDir dir;
  try {
    check::write_textfile((dir.path() / "none").string(), "a 1\n");
    FAIL() << "no error";
  } catch (const EnvironmentError& e) {
    EXPECT_NE(std::string(e.what()).find("none/.ibsetup.prom."), std::string::npos) << e.what();
  }
}

TEST(Textfile, OtherProcessesFilesAreLeftAloneAndOwnLeftoverTakenOver)
{
  const test::TempDir dir;
  std::ofstream(dir.path() / ".ibsetup.prom.1.tmp") << "another process's\n";
  std::ofstream(check::textfile_temp_path(dir.path().string())) << "a killed run of this pid\n";
  check::write_textfile(dir.path().string(), "a 1\n");
  EXPECT_EQ(names(dir.path()), (std::vector<std::string>{".ibsetup.prom.1.tmp", "ibsetup.prom"}));
  EXPECT_EQ(test::read_text(dir.path() / "ibsetup.prom"), "a 1\n");
}

// A pid no process has: a child that has been waited for (its pid is not reused this soon).
pid_t dead_pid()
{
  const pid_t child = ::fork();
  if (child == 0) {
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

void make_old(const fs::path& p, bool follow = true)
{
  const time_t then = ::time(nullptr) - check::k_killed_temp_age_s - 5;
  const struct timespec times[2] = {{then, 0}, {then, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, p.c_str(), times, follow ? 0 : AT_SYMLINK_NOFOLLOW), 0) << p;
}

// SIGKILL leaves a temporary file that nothing else would ever remove.
TEST(Textfile, AKilledWritersOldTemporaryFileIsRemovedAfterTheRename)
{
  const test::TempDir dir;
  const pid_t dead = dead_pid();
  const std::string killed = ".ibsetup.prom." + std::to_string(dead) + ".tmp";
  std::ofstream(dir.path() / killed) << "x 1\n";
  make_old(dir.path() / killed);
  check::write_textfile(dir.path().string(), "a 1\n");
  EXPECT_EQ(names(dir.path()), std::vector<std::string>{"ibsetup.prom"});
}

// Kept: a live process's file however old, a recent file of a dead pid (a writer in another pid
// namespace), what is not a plain file, and names that are not exactly the temporary name.
TEST(Textfile, OnlyOldPlainFilesOfDeadPidsAreRemoved)
{
  const test::TempDir dir;
  const std::string dead = std::to_string(dead_pid());
  const auto temp = [](const std::string& pid) { return ".ibsetup.prom." + pid + ".tmp"; };
  const fs::path victim = dir.path() / "victim";
  std::ofstream(victim) << "keep\n";
  make_old(victim);
  std::vector<std::string> kept = {temp(std::to_string(::getppid())),
                                   temp("0" + dead),
                                   dead + ".tmp",
                                   ".ibsetup.prom." + dead,
                                   temp(dead) + "x",
                                   temp("99999999999"),
                                   temp("4194304"),
                                   ".other.prom." + dead + ".tmp",
                                   "victim"};
  for (const auto& name : kept) {
    if (name != "victim") {
      std::ofstream(dir.path() / name) << "x\n";
      make_old(dir.path() / name);
    }
  }
  const std::string young = ".ibsetup.prom.4194303.tmp";
  std::ofstream(dir.path() / young) << "x\n";
  kept.push_back(young);
  // A link and a FIFO at a dead pid's name, both old.
  const std::string link = temp(std::to_string(dead_pid()));
  fs::create_symlink(victim, dir.path() / link);
  make_old(dir.path() / link, false);
  kept.push_back(link);
  // A FIFO, which unlinkat would remove as readily as a plain file.
  const std::string fifo = temp(std::to_string(dead_pid()));
  ASSERT_EQ(::mkfifo((dir.path() / fifo).c_str(), 0600), 0);
  make_old(dir.path() / fifo);
  kept.push_back(fifo);
  std::ofstream(dir.path() / temp(dead)) << "killed\n";
  make_old(dir.path() / temp(dead));

  check::write_textfile(dir.path().string(), "a 1\n");
  kept.push_back("ibsetup.prom");
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(names(dir.path()), kept);
  EXPECT_EQ(test::read_text(victim), "keep\n");
}

// The same sweep, with the clock moved instead of the files: the age is measured from `now`.
TEST(Textfile, TheAgeIsCountedFromNow)
{
  const test::TempDir dir;
  const std::string name = ".ibsetup.prom." + std::to_string(dead_pid()) + ".tmp";
  std::ofstream(dir.path() / name) << "x\n";
  const int dfd = ::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(dfd, 0);
  check::remove_killed_temps(dfd, ::time(nullptr) + check::k_killed_temp_age_s - 60);
  EXPECT_TRUE(fs::exists(dir.path() / name));
  check::remove_killed_temps(dfd, ::time(nullptr) + check::k_killed_temp_age_s + 1);
  EXPECT_FALSE(fs::exists(dir.path() / name));
  ::close(dfd);
}

TEST(Textfile, ASymlinkAtTheTemporaryNameIsRefusedNotFollowed)
{
  const test::TempDir dir;
  const fs::path victim = dir.path() / "victim";
  std::ofstream(victim) << "keep\n";
  fs::create_symlink(victim, check::textfile_temp_path(dir.path().string()));
  EXPECT_THROW(check::write_textfile(dir.path().string(), "a 1\n"), EnvironmentError);
  EXPECT_EQ(test::read_text(victim), "keep\n");
}

TEST(Textfile, AStopSignalDuringTheWriteRemovesTheTemporaryFile)
{
  const test::TempDir dir;
  const std::string temp = check::textfile_temp_path(dir.path().string());
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::signal(sig, SIG_DFL);
      const cli::RemoveOnSignal guard(temp);
      std::ofstream(temp) << "half";
      ::raise(sig);
      ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
    EXPECT_FALSE(fs::exists(temp)) << sig;
  }
}

}  // namespace
