// Hostile values in rendered files: whatever validation lets through, an ifcfg
// value, a keyfile value or a hosts entry reads back as exactly that value.
#include "test_util.hpp"
#include "common/process.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/render.hpp>

#include <glib.h>
#include <gtest/gtest.h>

namespace fs = std::filesystem;
using namespace ibsetup;

namespace {

// Values that break out of an unquoted or wrongly quoted shell assignment, each its own way.
const std::vector<std::string> k_hostile = {
    "a`touch SENTINEL`;x",
    "$(touch SENTINEL)",
    "it's",
    "'; touch SENTINEL; '",
    "a b\tc",
    "line\ntouch SENTINEL",
    "back\\slash\\",
    "\"dq\" $HOME ${X} ~ * ? [a] # ! | & ; < > ( ) { }",
    "esc\x1b[2J bel\a del\x7f cr\r",
    "caf\xC3\xA9",
    "-n",
    "x=y",
};

profile::ResolvedNode node_named(const std::string& name, const std::string& host = "n1")
{
  profile::ResolvedNode node;
  node.host = host;
  profile::ResolvedInterface i;
  i.name = name;
  i.ipv4 = IpPrefix::parse("10.0.0.1/24", Family::ipv4, nullptr);
  i.mtu = 2044;
  node.interfaces.push_back(i);
  return node;
}

TEST(RenderEscape, SafeValuesStayBare)
{
  for (const char* v : {"ib0", "ibsetup-ib0.8010", "192.168.1.2", "fd00::2/64", "32784", "yes"}) {
    EXPECT_EQ(v, render::shell_quote(v));
  }
  EXPECT_EQ("''", render::shell_quote(""));
  EXPECT_EQ("'a b'", render::shell_quote("a b"));
  EXPECT_EQ("'it'\\''s'", render::shell_quote("it's"));
  EXPECT_EQ("$'a\\012b\\\\c\\'d'", render::shell_quote("a\nb\\c'd"));
}

// Sources each rendered file with bash, as network-scripts does, and prints the values back:
// nothing runs, every value arrives byte for byte, and every assignment is on one line.
TEST(RenderEscape, IfcfgValuesReadBackExactlyInBash)
{
  ASSERT_TRUE(find_program("bash").has_value()) << "bash is needed";
  test::TempDir dir;
  std::string templ = "## test\n";
  std::vector<std::pair<std::string, std::string>> values;
  for (size_t k = 0; k < k_hostile.size(); ++k) {
    templ += "V" + std::to_string(k) + "={{V" + std::to_string(k) + "}}\n";
    std::string v = k_hostile[k];
    for (size_t pos; (pos = v.find("SENTINEL")) != std::string::npos;) {
      v.replace(pos, 8, (dir.path() / "ran").string());
    }
    values.emplace_back("V" + std::to_string(k), v);
  }
  const std::string content = render::fill_template(templ, values, "t");
  size_t lines = 0;
  for (char c : content) {
    lines += c == '\n' ? 1 : 0;
  }
  EXPECT_EQ(k_hostile.size(), lines) << content;
  const fs::path file = dir.path() / "ifcfg-x";
  std::ofstream(file) << content;
  std::string script = "set -a; . \"$1\" || exit 9; printf '%s\\0'";
  for (size_t k = 0; k < values.size(); ++k) {
    script += " \"$V" + std::to_string(k) + "\"";
  }
  const auto r = run_process({"bash", "-c", script, "bash", file.string()});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_EQ("", r.err);
  EXPECT_FALSE(fs::exists(dir.path() / "ran")) << content;
  std::string expected;
  for (const auto& [k, v] : values) {
    expected += v + std::string(1, '\0');
  }
  EXPECT_EQ(expected, r.out) << content;
}

TEST(RenderEscape, IfcfgRendersAHostileNameQuoted)
{
  // Validation refuses this name; the renderer must be safe without it.
  const auto files = render::render_ifcfg(node_named("a`id`;x"), {{IBSETUP_TEMPLATES, ""}});
  ASSERT_EQ(1U, files.size());
  EXPECT_NE(std::string::npos, files[0].content.find("\nDEVICE='a`id`;x'\n"));
  EXPECT_NE(std::string::npos, files[0].content.find("\nNAME='ibsetup-a`id`;x'\n"));
}

TEST(RenderEscape, PlaceholdersInsideQuotesAreRefused)
{
  for (const char* t : {"A=\"{{V}}\"\n", "A='x{{V}}'\n", "A=\"a\\\"{{V}}\"\n"}) {
    try {
      render::fill_template(t, {{"V", "1"}}, "ifcfg-ib");
      FAIL() << t;
    } catch (const EnvironmentError& e) {
      EXPECT_NE(std::string::npos,
                std::string(e.what()).find(
                    "{{V}} is inside quotes (ibsetup quotes the values it fills in)"))
          << e.what();
      // The column is the placeholder's: after A=" (3 bytes), A=' (3), A="a\" (6).
      const std::string at = std::string(t).find("a\\") != std::string::npos  ? "ifcfg-ib:1:7: "
                             : std::string(t).find("'x") != std::string::npos ? "ifcfg-ib:1:5: "
                                                                              : "ifcfg-ib:1:4: ";
      EXPECT_EQ(0U, std::string(e.what()).find(at)) << e.what();
    }
  }
  // Quotes that are closed or escaped before the placeholder are fine.
  EXPECT_EQ("A=\"x\"'a b'\n", render::fill_template("A=\"x\"{{V}}\n", {{"V", "a b"}}, "t"));
  EXPECT_EQ("A=\\'1\n", render::fill_template("A=\\'{{V}}\n", {{"V", "1"}}, "t"));
}

// libnm writes keyfiles through GKeyFile: read back with GKeyFile, a name full of the
// characters GKeyFile and NetworkManager treat specially is still the same name and adds no
// key or group.
TEST(RenderEscape, KeyfileValuesReadBackExactly)
{
  const std::string name = "a;b\\c#d=[e]";
  const auto files = render::render_keyfiles(node_named(name), "cluster");
  ASSERT_EQ(1U, files.size());
  GKeyFile* kf = g_key_file_new();
  ASSERT_TRUE(g_key_file_load_from_data(kf, files[0].content.data(), files[0].content.size(),
                                        G_KEY_FILE_NONE, nullptr));
  gchar* ifname = g_key_file_get_string(kf, "connection", "interface-name", nullptr);
  gchar* id = g_key_file_get_string(kf, "connection", "id", nullptr);
  ASSERT_NE(nullptr, ifname);
  ASSERT_NE(nullptr, id);
  EXPECT_EQ(name, std::string(ifname));
  EXPECT_EQ("ibsetup-" + name, std::string(id));
  g_free(ifname);
  g_free(id);
  gsize n = 0;
  gchar** groups = g_key_file_get_groups(kf, &n);
  std::string all;
  for (gsize k = 0; k < n; ++k) {
    all += std::string(groups[k]) + " ";
  }
  g_strfreev(groups);
  g_key_file_unref(kf);
  EXPECT_EQ("connection infiniband ipv4 ipv6 proxy ", all);
  // Whitespace and newlines never reach a keyfile: NetworkManager refuses such a name.
  EXPECT_THROW(render::render_keyfiles(node_named("a\n[ipv4]"), "cluster"), InputError);
}

TEST(RenderEscape, HostsPatternCannotAddALine)
{
  profile::Profile p = profile::load_profile(std::string(IBSETUP_PROFILES) + "/lab.yaml");
  for (const char* pattern : {"{host} evil", "{host}\n10.6.6.6 evil", "{host}#", "x\t{host}"}) {
    try {
      render::render_hosts(p, pattern);
      FAIL() << pattern;
    } catch (const Error& e) {
      EXPECT_EQ(ErrorKind::usage, e.kind());
      EXPECT_NE(std::string::npos, std::string(e.what()).find("host names may hold only"))
          << e.what();
      EXPECT_EQ(std::string::npos, std::string(e.what()).find('\n')) << e.what();
    }
  }
  // The profile's file name is the only other outside text: escaped in its comment line.
  p.file = "/x/evil\n10.6.6.6 evil.yaml";
  const auto f = render::render_hosts(p, "");
  EXPECT_EQ(std::string::npos, f.content.find("\n10.6.6.6"));
  EXPECT_NE(std::string::npos,
            f.content.find("# IPoIB addresses of every host in evil\\n10.6.6.6"));
}

}  // namespace
