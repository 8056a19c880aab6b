// Reading templates: under --root nothing is read through a symlink, and only regular files
// up to the cap are read (a planted symlink, a FIFO or /dev/zero as a template).
#include "test_util.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/render.hpp>

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <functional>

namespace fs = std::filesystem;
using namespace ibsetup;

namespace {

std::string message_of(const std::function<void()>& f)
{
  try {
    f();
  } catch (const EnvironmentError& e) {
    return e.what();
  }
  return "(no EnvironmentError)";
}

TEST(TemplateRead, ReadsARegularFileUnderTheRoot)
{
  test::TempDir root;
  fs::create_directories(root.path() / "etc/ibsetup/templates");
  std::ofstream(root.path() / "etc/ibsetup/templates/ifcfg-ib") << "DEVICE={{DEVICE}}\n";
  EXPECT_EQ("DEVICE={{DEVICE}}\n",
            render::read_file_under(root.path().string(), "etc/ibsetup/templates/ifcfg-ib",
                                    render::k_max_template_bytes)
                .value_or("(missing)"));
  EXPECT_FALSE(render::read_file_under(root.path().string(), "etc/ibsetup/templates/nope", 10));
  EXPECT_FALSE(render::read_file_under(root.path().string(), "etc/nowhere/ifcfg-ib", 10));
}

TEST(TemplateRead, RefusesASymlinkOutOfTheRoot)
{
  test::TempDir root;
  test::TempDir outside;
  std::ofstream(outside.path() / "secret") << "s3cret\n";
  fs::create_directories(root.path() / "etc/ibsetup/templates");
  fs::create_symlink(outside.path() / "secret", root.path() / "etc/ibsetup/templates/ifcfg-ib");
  EXPECT_EQ(root.path().string() + "/etc/ibsetup/templates/ifcfg-ib is a symlink to " +
                (outside.path() / "secret").string() +
                "; files under the root are read without following symlinks, so nothing "
                "outside it is read",
            message_of([&] {
              render::read_file_under(root.path().string(), "etc/ibsetup/templates/ifcfg-ib",
                                      render::k_max_template_bytes);
            }));
  // A symlinked directory on the way is refused too.
  fs::remove_all(root.path() / "etc/ibsetup/templates");
  fs::create_symlink(outside.path(), root.path() / "etc/ibsetup/templates");
  std::ofstream(outside.path() / "ifcfg-ib") << "DEVICE=x\n";
  EXPECT_EQ(root.path().string() +
                "/etc/ibsetup/templates is a symlink or not a directory; refusing to read "
                "through it (nothing outside the root is touched)",
            message_of([&] {
              render::read_file_under(root.path().string(), "etc/ibsetup/templates/ifcfg-ib",
                                      render::k_max_template_bytes);
            }));
}

TEST(TemplateRead, RefusesAFifoWithoutBlocking)
{
  test::TempDir root;
  ASSERT_EQ(0, mkfifo((root.path() / "ifcfg-ib").c_str(), 0600));
  const std::string full = root.path().string() + "/ifcfg-ib";
  EXPECT_EQ(full + " is a FIFO, not a regular file",
            message_of([&] { render::read_file_under(root.path().string(), "ifcfg-ib", 100); }));
  EXPECT_EQ(root.path().string() + "//ifcfg-ib is a FIFO, not a regular file",
            message_of([&] { render::read_named_file(root.path().string() + "//ifcfg-ib", 100); }));
}

TEST(TemplateRead, RefusesDevicesAndOversizedFiles)
{
  EXPECT_EQ("/dev/zero is a character device, not a regular file",
            message_of([] { render::read_named_file("/dev/zero", 100); }));
  test::TempDir dir;
  std::ofstream(dir.path() / "big") << std::string(65 << 10, 'x');
  const std::string big = (dir.path() / "big").string();
  EXPECT_EQ(big + " is larger than 64 KiB; refusing to read it",
            message_of([&] { render::read_named_file(big, render::k_max_template_bytes); }));
  std::ofstream(dir.path() / "exact") << std::string(64 << 10, 'x');
  EXPECT_EQ(size_t{64} << 10U,
            render::read_named_file((dir.path() / "exact").string(), render::k_max_template_bytes)
                ->size());
}

TEST(TemplateRead, RenderIfcfgRefusesAPlantedTemplate)
{
  test::TempDir root;
  test::TempDir outside;
  std::ofstream(outside.path() / "secret") << "s3cret\n";
  fs::create_directories(root.path() / "etc/ibsetup/templates");
  fs::create_symlink(outside.path() / "secret", root.path() / "etc/ibsetup/templates/ifcfg-ib");
  const auto p = profile::load_profile(std::string(IBSETUP_PROFILES) + "/lab.yaml");
  const std::string msg = message_of([&] {
    render::render_ifcfg(
        profile::resolve_node(p, "lab02"),
        {{"etc/ibsetup/templates", root.path().string()}, {IBSETUP_TEMPLATES, ""}});
  });
  EXPECT_NE(std::string::npos, msg.find("ifcfg-ib is a symlink to")) << msg;
}

}  // namespace
