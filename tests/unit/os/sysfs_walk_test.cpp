// A captured tree (--sysfs-root) may be writable by someone other than the root running
// ibsetup, who can swap a directory for a link while it is read. The reader resolves links
// itself and then opens what it resolved; these tests swap a directory *above* the last
// component after the resolution, and check that nothing is then read, listed, stat'ed or
// looked up through that link, outside the root.
#include "os/sysfs.hpp"
#include "test_util.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace fs = std::filesystem;
using ibsetup::inventory::SysfsReader;

namespace {

// root/a/b/c and outside/b/c hold the same names with other contents; outside/b/new and
// outside/b/c/outside-only exist only outside. After swap(), root/a is a link to outside.
class SwappedTree {
public:
  SwappedTree()
  {
    for (const auto& base : {m_root / "a", m_outside}) {
      const bool out = base == m_outside;
      fs::create_directories(base / "b" / "c" / (out ? "outside-only" : "inside-only"));
      std::ofstream(base / "b" / "c" / "attr") << (out ? "outside\n" : "inside\n");
      fs::create_symlink(out ? "../evil_driver" : "../mlx5_core", base / "b" / "c" / "driver");
    }
    fs::create_directories(m_outside / "b" / "new");
    fs::create_directories(m_root / "z");
    std::ofstream(m_root / "z" / "attr") << "z\n";
  }

  std::string root() const { return m_root.string(); }

  void swap()
  {
    fs::rename(m_root / "a", m_root / "a.old");
    fs::create_symlink(m_outside, m_root / "a");
  }

private:
  ibsetup::test::TempDir m_dir;
  fs::path m_root = m_dir.path() / "sys";
  fs::path m_outside = m_dir.path() / "outside";
};

// A reader keeps at most soft limit / 16 directories open: with a limit below 32, one. Set
// before the reader is made, since it reads the limit once.
constexpr rlim_t k_one_cached_directory = 31;

TEST(SysfsWalk, ADirectorySwappedForALinkAboveTheLastComponentIsNotFollowed)
{
  SwappedTree t;
  const ibsetup::test::DescriptorLimit one(k_one_cached_directory);
  SysfsReader r(t.root());
  ASSERT_EQ("a/b/c", r.resolve("a/b/c").value_or("none"));
  ASSERT_EQ("a/b", r.resolve("a/b").value_or("none"));
  ASSERT_EQ("inside", r.read("a/b/c/attr").value_or("none"));
  t.swap();
  // Another directory takes the one cached descriptor: a/b/c must be walked again, from the
  // root, and a is a link now. Its resolutions are still cached (they were right when made).
  ASSERT_EQ("z", r.read("z/attr").value_or("none"));
  EXPECT_FALSE(r.read("a/b/c/attr"));
  ASSERT_EQ("z", r.read("z/attr").value_or("none"));
  EXPECT_TRUE(r.list("a/b/c").empty());
  EXPECT_FALSE(r.is_dir("a/b/c"));
  EXPECT_FALSE(r.link_name("a/b/c/driver"));
  EXPECT_FALSE(r.resolve("a/b/new"));  // looked up in a/b, which is walked through a
  // The tree as it now is, read afresh: a is a link out of the root, so nothing below it.
  SysfsReader fresh(t.root());
  EXPECT_FALSE(fresh.resolve("a/b/c"));
  EXPECT_FALSE(fresh.read("a/b/c/attr"));
}

// The same reads before any swap: the walk reads what the paths name.
TEST(SysfsWalk, AnUnchangedTreeReadsTheSameWithOneCachedDirectory)
{
  SwappedTree t;
  const ibsetup::test::DescriptorLimit one(k_one_cached_directory);
  SysfsReader r(t.root());
  for (int pass = 0; pass < 2; ++pass) {
    EXPECT_EQ("inside", r.read("a/b/c/attr").value_or("none"));
    EXPECT_EQ("z", r.read("z/attr").value_or("none"));
    EXPECT_EQ(std::vector<std::string>({"attr", "driver", "inside-only"}), r.list("a/b/c"));
    EXPECT_TRUE(r.is_dir("a/b/c"));
    EXPECT_FALSE(r.is_dir("a/b/c/attr"));
    EXPECT_EQ("mlx5_core", r.link_name("a/b/c/driver").value_or("none"));
    EXPECT_FALSE(r.resolve("a/b/new"));
  }
}

// A NUL would cut the path short in the system call: a name with one is no name, whatever
// precedes it.
TEST(SysfsWalk, ANameWithANulReadsNothing)
{
  SwappedTree t;
  SysfsReader r(t.root());
  ASSERT_EQ("z", r.read("z/attr").value_or("none"));
  EXPECT_FALSE(r.read(std::string("z/attr\0x", 8)));
  EXPECT_FALSE(r.read(std::string("z\0/attr", 7)));
  EXPECT_FALSE(r.read_in("z", std::string("attr\0x", 6)));
  EXPECT_EQ("z", r.read_in("z", "attr").value_or("none"));
  // resolve (and list, is_dir, link_name through it) would have stopped at the NUL: "z".
  EXPECT_FALSE(r.resolve(std::string("z\0x", 3)));
  EXPECT_TRUE(r.list(std::string("z\0x", 3)).empty());
  EXPECT_FALSE(r.is_dir(std::string("z\0x", 3)));
}

// A kernel attribute fits in a page. One of 64 KiB or more is not one: it reads as nothing,
// not as its first 64 KiB ("99.0" and padding passed the firmware check); one just under the
// cap still reads whole.
TEST(SysfsWalk, AnAttributeOfSixtyFourKibOrMoreReadsNothing)
{
  SwappedTree t;
  const fs::path z = fs::path(t.root()) / "z";
  std::ofstream(z / "huge") << "99.0" << std::string(70000, ' ') << "N/A\n";
  std::ofstream(z / "cap") << std::string(65536, 'x');
  std::ofstream(z / "under") << "1" << std::string(65533, ' ') << "\n";
  SysfsReader r(t.root());
  EXPECT_FALSE(r.read("z/huge"));
  EXPECT_FALSE(r.read("z/cap"));
  EXPECT_EQ("1", r.read("z/under").value_or("none"));
}

}  // namespace

// Link targets are read into a 256-byte buffer first: a target that fills it, or is longer,
// is read again whole, and resolves as a short one does.
TEST(SysfsWalk, LinkTargetsOfAnyLengthResolveWhole)
{
  ibsetup::test::TempDir dir;
  const fs::path root = dir.path() / "sys";
  const std::string y254(254, 'y');
  const std::string y255(255, 'y');
  const std::string deep =
      std::string(200, 'p') + "/" + std::string(200, 'q') + "/" + std::string(200, 'r');
  for (const auto& [name, text] :
       {std::pair<std::string, std::string>{y254, "254\n"}, {y255, "255\n"}, {deep, "deep\n"}}) {
    fs::create_directories(root / name);
    std::ofstream(root / name / "attr") << text;
  }
  fs::create_symlink(y255, root / "fits");          // 255 bytes: the buffer holds it
  fs::create_symlink("./" + y254, root / "fills");  // 256 bytes: it may have been cut
  fs::create_symlink(deep, root / "longer");        // 602 bytes
  SysfsReader r(root.string());
  EXPECT_EQ("255", r.read("fits/attr").value_or("none"));
  EXPECT_EQ("254", r.read("fills/attr").value_or("none"));
  EXPECT_EQ("deep", r.read("longer/attr").value_or("none"));
  EXPECT_EQ(deep, r.resolve("longer").value_or("none"));
  EXPECT_EQ(y255, r.link_name("fits").value_or("none"));
}
