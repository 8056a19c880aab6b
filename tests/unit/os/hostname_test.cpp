#include "os/hostname.hpp"
#include "test_util.hpp"

#include <ibsetup/inventory.hpp>
#include <ibsetup/profile.hpp>

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "gtest_compat.hpp"

using namespace ibsetup;

namespace {

TEST(Hostname, ShortNameStopsAtTheFirstDot)
{
  EXPECT_EQ("cn01", os::short_name("cn01.cluster.example.org"));
  EXPECT_EQ("cn01", os::short_name("cn01"));
  EXPECT_EQ("cn01", os::short_name("cn01."));
  EXPECT_EQ("", os::short_name(".cluster"));
  EXPECT_EQ("", os::short_name(""));
}

// The kernel's own record of this UTS namespace's host name, read another way.
TEST(Hostname, IsTheKernelsHostNameUpToTheFirstDot)
{
  std::string kernel = test::read_text("/proc/sys/kernel/hostname");
  if (kernel.empty()) {
    GTEST_SKIP() << "no /proc/sys/kernel/hostname";
  }
  while (!kernel.empty() && kernel.back() == '\n') {
    kernel.pop_back();
  }
  const auto name = os::short_hostname();
  ASSERT_TRUE(name.has_value());
  EXPECT_EQ(kernel.substr(0, kernel.find('.')), *name);
  EXPECT_EQ(std::string::npos, name->find('.'));
}

// Both readers of the host name (which node am I; inspect's host field) see the same one: in a
// child with its own UTS namespace (root only) whose host name is fully qualified.
TEST(Hostname, ProfileAndInspectReadTheSameShortName)
{
  int out[2];
  ASSERT_EQ(0, pipe(out));
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(out[0]);
    std::string text;
    if (unshare(CLONE_NEWUTS) != 0) {
      text = "skip: unshare(CLONE_NEWUTS): " + std::string(std::strerror(errno));
    } else {
      const std::string full = "cn07.cluster.example.org";
      if (sethostname(full.data(), full.size()) != 0) {
        text = "sethostname: " + std::string(std::strerror(errno));
      }
      inventory::Options options;
      options.sysfs_root = std::string(IBSETUP_FIXTURES) + "/sysfs/hdr-2hca";
      try {
        text += os::short_hostname().value_or("?") + " " + profile::default_node_name() + " " +
                inventory::inspect(options).host;
      } catch (const std::exception& e) {
        text = e.what();
      }
    }
    const ssize_t written = write(out[1], text.data(), text.size());
    _exit(written == static_cast<ssize_t>(text.size()) ? 0 : 1);
  }
  close(out[1]);
  std::string text;
  char buf[256];
  for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;) {
    text.append(buf, static_cast<size_t>(n));
  }
  close(out[0]);
  int status = 0;
  ASSERT_EQ(pid, waitpid(pid, &status, 0));
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << text;
  if (text.rfind("skip:", 0) == 0) {
    GTEST_SKIP() << text << " (needs root)";
  }
  EXPECT_EQ("cn07 cn07 cn07", text);
}

}  // namespace
