// A node's files are written all or none (render_node, write_all): a refused or failed file
// leaves neither the files before it nor the directories made for them.
#include "common/termination_guard.hpp"
#include "render/write_all.hpp"
#include "test_util.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/render.hpp>

#include "gtest_compat.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <iostream>

namespace fs = std::filesystem;
using namespace ibsetup;

namespace {

render::RenderedFile managed(const std::string& path, const std::string& content = "a=1\n")
{
  return {path, std::string(render::k_marker) + "\n" + content, 0644};
}

mode_t mode_of(const fs::path& p)
{
  struct stat st {};
  return stat(p.c_str(), &st) == 0 ? st.st_mode & 07777 : 0;
}

// umask for one scope.
class Umask {
public:
  explicit Umask(mode_t mask) : m_old(umask(mask)) {}
  ~Umask() { umask(m_old); }
  Umask(const Umask&) = delete;
  Umask& operator=(const Umask&) = delete;

private:
  mode_t m_old;
};

TEST(WriteAll, AForeignFileLaterInTheNodeLeavesTheEarlierOnesUnwritten)
{
  test::TempDir root;
  const auto p = profile::load_profile(std::string(IBSETUP_PROFILES) + "/lab.yaml");
  const auto node = profile::resolve_node(p, "lab02");
  const fs::path dir = root.path() / "etc/NetworkManager/system-connections";
  fs::create_directories(dir);
  std::ofstream(dir / "ibsetup-ib0.8010.nmconnection") << "someone else's\n";
  render::NodeOptions o;
  o.root = root.path().string();
  int reported = 0;
  o.on_file = [&](const render::FileOutcome&) { ++reported; };
  EXPECT_THROW(render::render_node(p, &node, o), EnvironmentError);
  EXPECT_EQ(0, reported);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir)) {
    left.push_back(e.path().filename().string());
  }
  EXPECT_EQ(std::vector<std::string>{"ibsetup-ib0.8010.nmconnection"}, left);
  EXPECT_EQ("someone else's\n", test::read_text(dir / "ibsetup-ib0.8010.nmconnection"));
  // Without the foreign file the same node is written whole, and reported file by file.
  fs::remove(dir / "ibsetup-ib0.8010.nmconnection");
  const auto out = render::render_node(p, &node, o);
  EXPECT_EQ(3, reported);
  ASSERT_EQ(3U, out.size());
  for (const auto& f : out) {
    EXPECT_EQ(render::WriteResult::created, f.result) << f.file.path;
    EXPECT_EQ(f.file.content, test::read_text(root.path() / f.file.path));
  }
}

// A failure while writing (here the second file's temporary name is taken by a directory that
// cannot be removed) takes back the first file's temporary file and the directories made for
// it; a file already there is not touched.
TEST(WriteAll, AFailedWriteTakesBackTemporaryFilesAndNewDirectories)
{
  test::TempDir root;
  fs::create_directories(root.path() / "c/.two.ibsetup-tmp/full");
  std::ofstream(root.path() / "c/zero") << render::k_marker << "\nold\n";
  const std::vector<render::RenderedFile> files = {managed("a/b/one"), managed("c/zero", "new\n"),
                                                   managed("c/two")};
  try {
    render::write_all(root.path().string(), files);
    ADD_FAILURE() << "no error";
  } catch (const EnvironmentError& e) {
    EXPECT_NE(std::string::npos, std::string(e.what()).find("c/.two.ibsetup-tmp")) << e.what();
  }
  EXPECT_FALSE(fs::exists(root.path() / "a"));
  EXPECT_EQ(std::string(render::k_marker) + "\nold\n", test::read_text(root.path() / "c/zero"));
  EXPECT_FALSE(fs::exists(root.path() / "c/.zero.ibsetup-tmp"));
  EXPECT_FALSE(fs::exists(root.path() / "c/two"));
  // Once the obstacle is gone, all three are written.
  fs::remove_all(root.path() / "c/.two.ibsetup-tmp");
  const auto results = render::write_all(root.path().string(), files);
  EXPECT_EQ(
      (std::vector<render::WriteResult>{render::WriteResult::created, render::WriteResult::updated,
                                        render::WriteResult::created}),
      results);
  EXPECT_EQ(files[0].content, test::read_text(root.path() / "a/b/one"));
  EXPECT_EQ(files[1].content, test::read_text(root.path() / "c/zero"));
}

// A directory that a failed write did not make stays.
TEST(WriteAll, DirectoriesThatWereThereStay)
{
  test::TempDir root;
  fs::create_directories(root.path() / "a");
  fs::create_directories(root.path() / "c/.two.ibsetup-tmp/full");
  EXPECT_THROW(render::write_all(root.path().string(), {managed("a/b/one"), managed("c/two")}),
               EnvironmentError);
  EXPECT_TRUE(fs::is_directory(root.path() / "a"));
  EXPECT_FALSE(fs::exists(root.path() / "a/b"));
}

// Directories are made 0755 whatever the umask: a hardened umask must not leave an image's
// /etc unreadable. Files keep their own mode. A umask that denies the owner reading (0777)
// leaves a directory only root can open, so that case runs as root only (the unit tests run
// unprivileged in the packages' %check).
TEST(WriteAll, NewDirectoriesAre0755WhateverTheUmask)
{
  test::TempDir root;
  {
    const Umask strict(0077);
    render::write_file(root.path().string(), managed("etc/sysconfig/network-scripts/ifcfg-ib0"));
  }
  {
    const Umask no_write(0277);
    render::write_file(root.path().string(), managed("var/x/y"));
  }
  if (geteuid() == 0) {
    const Umask none(0777);
    render::write_file(root.path().string(), managed("srv/a/b"));
    EXPECT_EQ(0755U, mode_of(root.path() / "srv"));
    EXPECT_EQ(0755U, mode_of(root.path() / "srv/a"));
  }
  for (const char* d : {"etc", "etc/sysconfig", "etc/sysconfig/network-scripts", "var", "var/x"}) {
    EXPECT_EQ(0755U, mode_of(root.path() / d)) << d;
  }
  EXPECT_EQ(0644U, mode_of(root.path() / "etc/sysconfig/network-scripts/ifcfg-ib0"));
  EXPECT_EQ(0644U, mode_of(root.path() / "var/x/y"));
}

// A signal render's CLI holds (TerminationGuard) before the write begins stops it before
// anything exists under the root (OnStop::undo, render's files), and is not taken from the
// holder; the reboot marker (OnStop::finish) is written all the same. Run in a child: the
// guard changes the process's signal actions, and its release would end the process.
TEST(WriteAll, AHeldSignalStopsARenderButNotAMarker)
{
  test::TempDir root;
  EXPECT_EXIT(
      {
        TerminationGuard hold;
        raise(SIGTERM);  // noted by the guard
        try {
          render::write_all(root.path().string(), {managed("a/one"), managed("two")});
          _exit(1);
        } catch (const Error& e) {
          if (e.kind() != ErrorKind::apply_failed ||
              std::string(e.what()) !=
                  "interrupted (SIGTERM) before any file was replaced; "
                  "nothing was written under " +
                      root.path().string()) {
            std::cerr << e.what();
            _exit(2);
          }
        }
        if (!fs::is_empty(root.path()) || TerminationGuard::pending() != SIGTERM) {
          _exit(3);
        }
        const auto r = render::write_all(root.path().string(), {managed("run/marker")},
                                         render::OnStop::finish);
        _exit(r == std::vector<render::WriteResult>{render::WriteResult::created} &&
                      fs::exists(root.path() / "run/marker")
                  ? 0
                  : 4);
      },
      ::testing::ExitedWithCode(0), "");
}

// Waiting for another writer's lock on the root ends at a held signal instead of after 10 s,
// having written nothing.
TEST(WriteAll, AHeldSignalEndsTheWaitForTheRootLock)
{
  test::TempDir root;
  const int other = open(root.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(other, 0);
  ASSERT_EQ(0, flock(other, LOCK_EX | LOCK_NB));
  EXPECT_EXIT(
      {
        TerminationGuard hold;
        // Not SIGINT: a script's background jobs ignore it, and the guard would not see it.
        raise(SIGHUP);
        const auto start = std::chrono::steady_clock::now();
        try {
          render::write_all(root.path().string(), {managed("one")});
          _exit(1);
        } catch (const Error& e) {
          const std::string want = "interrupted (SIGHUP) while waiting for the lock on " +
                                   root.path().string() + "; nothing was written";
          if (e.kind() != ErrorKind::apply_failed || e.what() != want) {
            std::cerr << e.what();
            _exit(2);
          }
        }
        // Not a timing assertion: the wait it replaces is 10 s, so anything under 5 s is the
        // signal's doing.
        _exit(std::chrono::steady_clock::now() - start > std::chrono::seconds(5) ||
                      fs::exists(root.path() / "one")
                  ? 3
                  : 0);
      },
      ::testing::ExitedWithCode(0), "");
  close(other);
}

}  // namespace
