// check --textfile-dir's file: replaced atomically, mode 0644 under any umask, and no temporary
// file left behind by an error or a stop signal; other processes' files are left alone.
#include "gtest_compat.hpp"
#include "test_util.hpp"

#include "cli/textfile.hpp"

#include <ibsetup/check.hpp>
#include <ibsetup/error.hpp>

#include <gtest/gtest.h>

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
