#include "test_util.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/render.hpp>

#include "gtest_compat.hpp"

#include <sys/stat.h>
#include <utime.h>

namespace fs = std::filesystem;
using namespace ibsetup;

namespace {

const fs::path k_golden = fs::path(IBSETUP_TEST_DATA) / "render";

profile::Profile lab()
{
  return profile::load_profile(std::string(IBSETUP_PROFILES) + "/lab.yaml");
}

// Compares rendered files with golden files named after their last path component;
// IBSETUP_UPDATE_GOLDEN=1 rewrites them.
void expect_golden(const std::vector<render::RenderedFile>& files, const fs::path& dir)
{
  for (const auto& f : files) {
    const fs::path golden = dir / fs::path(f.path).filename();
    if (std::getenv("IBSETUP_UPDATE_GOLDEN") != nullptr) {
      fs::create_directories(dir);
      std::ofstream(golden) << f.content;
    }
    EXPECT_EQ(test::read_text(golden), f.content) << golden;
  }
}

TEST(Render, KeyfilesComeFromLibnm)
{
  const auto p = lab();
  const auto files = render::render_keyfiles(profile::resolve_node(p, "lab02"), p.cluster);
  ASSERT_EQ(3U, files.size());
  EXPECT_EQ("etc/NetworkManager/system-connections/ibsetup-ib0.8010.nmconnection", files[2].path);
  EXPECT_EQ(0600U, files[0].mode);
  expect_golden(files, k_golden / "keyfile");
}

TEST(Render, UuidsAreStableAndDistinct)
{
  EXPECT_EQ(render::connection_uuid("c", "lab02", "ib0"),
            render::connection_uuid("c", "lab02", "ib0"));
  EXPECT_NE(render::connection_uuid("c", "lab02", "ib0"),
            render::connection_uuid("c", "lab03", "ib0"));
  EXPECT_NE(render::connection_uuid("c", "lab02", "ib0"),
            render::connection_uuid("d", "lab02", "ib0"));
  const std::string u = render::connection_uuid("c", "lab02", "ib0");
  EXPECT_EQ('5', u[14]);  // version 5
  EXPECT_NE(std::string::npos, std::string("89ab").find(u[19]));
}

TEST(Render, IfcfgFromTemplates)
{
  const auto files =
      render::render_ifcfg(profile::resolve_node(lab(), "lab02"), {{IBSETUP_TEMPLATES, ""}});
  ASSERT_EQ(3U, files.size());
  EXPECT_EQ("etc/sysconfig/network-scripts/ifcfg-ib0.8010", files[2].path);
  expect_golden(files, k_golden / "ifcfg");
}

// initscripts and NetworkManager's ifcfg-rh pass over files that look like backups: an
// interface whose ifcfg file would be one is refused, naming the suffix.
TEST(Render, IfcfgNamesThatBootWouldIgnoreAreRefused)
{
  for (const char* name : {"ib0.bak", "ib0.old", "ib.rpmnew", "ib0.orig", "ib0.rpmsave"}) {
    auto node = profile::resolve_node(lab(), "lab02");
    node.interfaces[0].name = name;
    try {
      (void)render::render_ifcfg(node, {{IBSETUP_TEMPLATES, ""}});
      ADD_FAILURE() << name << ": accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string::npos,
                std::string(e.what()).find(std::string("interface ") + name +
                                           ": initscripts or NetworkManager skip ifcfg files"))
          << e.what();
    }
  }
  auto node = profile::resolve_node(lab(), "lab02");
  node.interfaces[0].name = "ib0.bakery";  // only a suffix counts
  EXPECT_EQ(3U, render::render_ifcfg(node, {{IBSETUP_TEMPLATES, ""}}).size());
}

TEST(Render, IfcfgTemplateOverrideTakesEffect)
{
  test::TempDir dir;
  std::ofstream(dir.path() / "ifcfg-ib") << "## site template\nDEVICE={{DEVICE}}\nZONE=trusted\n"
                                            "MTU={{MTU}}\n";
  const auto files = render::render_ifcfg(profile::resolve_node(lab(), "lab02"),
                                          {{dir.path().string(), ""}, {IBSETUP_TEMPLATES, ""}});
  EXPECT_EQ(std::string(render::k_marker) + "\nDEVICE=ib0\nZONE=trusted\n", files[0].content);
  // The child template was not overridden: it comes from the next directory.
  EXPECT_NE(std::string::npos, files[2].content.find("PKEY_ID=32784"));
}

TEST(Render, TemplateErrorsNameTheLine)
{
  EXPECT_THROW(render::fill_template("A={{NOPE}}\n", {}, "t"), EnvironmentError);
  try {
    render::fill_template("x\nA={{B\n", {{"B", "1"}}, "ifcfg-ib");
    FAIL();
  } catch (const EnvironmentError& e) {
    EXPECT_STREQ("ifcfg-ib:2:3: '{{' without '}}'", e.what());
  }
  try {
    render::render_ifcfg(profile::resolve_node(lab(), "lab02"), {{"/nonexistent", ""}});
    FAIL();
  } catch (const EnvironmentError& e) {
    EXPECT_STREQ("template ifcfg-ib not found (searched /nonexistent)", e.what());
  }
}

// Every bad placeholder is named, so that one edit fixes them all: it named the first only.
TEST(Render, TemplateErrorsNameEveryBadLine)
{
  try {
    render::fill_template("A={{NOPE}} B={{X}}\n## {{IGNORED}}\nC='{{B}}'\nD={{B\nE={{B}}\n",
                          {{"B", "1"}}, "ifcfg-ib");
    FAIL();
  } catch (const EnvironmentError& e) {
    EXPECT_STREQ(
        "ifcfg-ib:1:3: unknown key {{NOPE}} (also 1:14: unknown key {{X}}; 3:4: {{B}} "
        "is inside quotes (ibsetup quotes the values it fills in); 4:3: '{{' without "
        "'}}')",
        e.what());
  }
  // At most ten are listed, then a count.
  std::string many;
  for (int i = 0; i < 25; ++i) {
    many += "A={{NOPE}}\n";
  }
  try {
    render::fill_template(many, {}, "t");
    FAIL();
  } catch (const EnvironmentError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("t:1:3: unknown key {{NOPE}} (also 2:3: ", 0), 0U) << message;
    EXPECT_NE(message.find("; 10:3: unknown key {{NOPE}}; and 15 more)"), std::string::npos)
        << message;
    EXPECT_EQ(message.find("11:3"), std::string::npos) << message;
  }
}

TEST(Render, HostsFragment)
{
  const auto f = render::render_hosts(lab(), "");
  EXPECT_EQ("etc/hosts.ibsetup", f.path);
  expect_golden({f}, k_golden / "hosts");
  const auto one = render::render_hosts(lab(), "{host}.ib");
  EXPECT_NE(std::string::npos, one.content.find("192.168.100.2\tlab02.ib\n"));
  EXPECT_EQ(std::string::npos, one.content.find("192.168.101.2"));  // one name per host
}

// A name given to two interfaces is an error: a resolver answers only the first address of
// it. The default pattern turns ib0.8001 into HOST-ib0-8001, which an interface named ib0-8001
// also gets; a pattern without {host} gives every host the same name.
TEST(Render, HostsFragmentNamesEachInterfaceOnce)
{
  const auto p = profile::load_profile_text(R"(version: 1
nodes:
  - hosts: n1
    interfaces:
      - {name: ib0, ipv4: 10.20.0.0/24}
      - {parent: ib0, pkey: 0x8001, ipv4: 10.30.0.0/24}
      - {name: ib0-8001, ipv4: 10.40.0.0/24}
)",
                                            "dup.yaml");
  try {
    (void)render::render_hosts(p, "");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "the hosts fragment would give the name n1-ib0-8001 to n1 ib0.8001 "
                 "and to n1 ib0-8001; each name must be one interface's (rename an "
                 "interface, or give --hosts-pattern)");
  }
  try {
    (void)render::render_hosts(lab(), "fabric");
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("would give the name fabric to lab01 "), std::string::npos)
        << e.what();
  }
  // Names differing only in case are one name to a resolver.
  const auto cased = profile::load_profile_text(R"(version: 1
nodes:
  - hosts: n1
    interfaces:
      - {name: ib0, ipv4: 10.20.0.0/24}
      - {name: IB0, ipv4: 10.40.0.0/24}
)",
                                                "cased.yaml");
  EXPECT_NO_THROW(render::render_hosts(cased, ""));  // n1-ib and n1-IB0
  EXPECT_THROW(render::render_hosts(cased, "{host}-{if}"), Error);
}

render::RenderedFile sample(const std::string& content = "a=1\n")
{
  return {"etc/x/ibsetup-ib0.nmconnection", std::string(render::k_marker) + "\n" + content, 0600};
}

TEST(RenderWriter, CreatesWithModeThenLeavesUnchangedFilesAlone)
{
  test::TempDir root;
  EXPECT_EQ(render::WriteResult::created, render::write_file(root.path().string(), sample()));
  const fs::path p = root.path() / "etc/x/ibsetup-ib0.nmconnection";
  struct stat st {};
  ASSERT_EQ(0, stat(p.c_str(), &st));
  EXPECT_EQ(0600U, st.st_mode & 07777);
  const utimbuf old{1000000000, 1000000000};
  ASSERT_EQ(0, utime(p.c_str(), &old));
  EXPECT_EQ(render::WriteResult::unchanged, render::write_file(root.path().string(), sample()));
  ASSERT_EQ(0, stat(p.c_str(), &st));
  EXPECT_EQ(1000000000, st.st_mtime);  // not even the mtime changed
  EXPECT_EQ(render::WriteResult::updated,
            render::write_file(root.path().string(), sample("a=2\n")));
  EXPECT_EQ(sample("a=2\n").content, test::read_text(p));
  EXPECT_FALSE(fs::exists(root.path() / "etc/x/.ibsetup-ib0.nmconnection.ibsetup-tmp"));
}

// As root, a file with the right bytes and mode but another owner (rendered earlier by a
// build user) is rewritten as root's: NetworkManager ignores keyfiles root does not own.
TEST(RenderWriter, RootTakesOverFilesOfOtherOwners)
{
  if (geteuid() != 0) {
    GTEST_SKIP() << "needs root";
  }
  test::TempDir root;
  ASSERT_EQ(render::WriteResult::created, render::write_file(root.path().string(), sample()));
  const fs::path p = root.path() / "etc/x/ibsetup-ib0.nmconnection";
  ASSERT_EQ(0, chown(p.c_str(), 1000, 1000));
  EXPECT_EQ(render::WriteResult::updated, render::write_file(root.path().string(), sample()));
  struct stat st {};
  ASSERT_EQ(0, stat(p.c_str(), &st));
  EXPECT_EQ(0U, st.st_uid);
  EXPECT_EQ(0U, st.st_gid);
  EXPECT_EQ(render::WriteResult::unchanged, render::write_file(root.path().string(), sample()));
}

// As root in a set-group-ID directory (or with another group of its own), the file is still
// root's group: it used to take the directory's, and every later run rewrote it as "updated".
TEST(RenderWriter, RootWritesRootsGroupInASetGroupIdDirectory)
{
  if (geteuid() != 0) {
    GTEST_SKIP() << "needs root";
  }
  test::TempDir root;
  const fs::path dir = root.path() / "etc/x";
  fs::create_directories(dir);
  ASSERT_EQ(0, chown(dir.c_str(), 0, 100));
  ASSERT_EQ(0, chmod(dir.c_str(), 02755));
  ASSERT_EQ(render::WriteResult::created, render::write_file(root.path().string(), sample()));
  struct stat st {};
  ASSERT_EQ(0, stat((dir / "ibsetup-ib0.nmconnection").c_str(), &st));
  EXPECT_EQ(0U, st.st_uid);
  EXPECT_EQ(0U, st.st_gid);
  EXPECT_EQ(render::WriteResult::unchanged, render::write_file(root.path().string(), sample()));
}

TEST(RenderWriter, RemovesOnlyItsOwnFiles)
{
  test::TempDir root;
  const std::string r = root.path().string();
  EXPECT_FALSE(render::remove_file(r, "etc/x/ibsetup-ib0.nmconnection"));
  EXPECT_FALSE(fs::exists(root.path() / "etc"));  // nothing is created to remove nothing
  ASSERT_EQ(render::WriteResult::created, render::write_file(r, sample()));
  EXPECT_TRUE(render::remove_file(r, "etc/x/ibsetup-ib0.nmconnection"));
  EXPECT_FALSE(fs::exists(root.path() / "etc/x/ibsetup-ib0.nmconnection"));
  std::ofstream(root.path() / "etc/x/site.conf") << "site\n";
  EXPECT_FALSE(render::remove_file(r, "etc/x/site.conf"));
  EXPECT_EQ("site\n", test::read_text(root.path() / "etc/x/site.conf"));
}

TEST(RenderWriter, NeverOverwritesForeignFiles)
{
  test::TempDir root;
  fs::create_directories(root.path() / "etc/x");
  std::ofstream(root.path() / "etc/x/ibsetup-ib0.nmconnection") << "[connection]\nid=mine\n";
  try {
    render::write_file(root.path().string(), sample());
    FAIL();
  } catch (const EnvironmentError& e) {
    EXPECT_NE(std::string::npos, std::string(e.what()).find("was not written by ibsetup"));
  }
  EXPECT_EQ("[connection]\nid=mine\n",
            test::read_text(root.path() / "etc/x/ibsetup-ib0.nmconnection"));
}

TEST(RenderWriter, RefusesSymlinksOutOfTheRoot)
{
  test::TempDir root;
  test::TempDir outside;
  fs::create_symlink(outside.path(), root.path() / "etc");
  try {
    render::write_file(root.path().string(), sample());
    FAIL();
  } catch (const EnvironmentError& e) {
    EXPECT_EQ(root.path().string() +
                  "/etc is a symlink or not a directory; refusing to write "
                  "through it (nothing outside the root is touched)",
              std::string(e.what()));
  }
  EXPECT_TRUE(fs::is_empty(outside.path()));
  fs::remove(root.path() / "etc");
  fs::create_directories(root.path() / "etc/x");
  fs::create_symlink(outside.path() / "target", root.path() / "etc/x/ibsetup-ib0.nmconnection");
  EXPECT_THROW(render::write_file(root.path().string(), sample()), EnvironmentError);
  EXPECT_TRUE(fs::is_empty(outside.path()));
}

}  // namespace
