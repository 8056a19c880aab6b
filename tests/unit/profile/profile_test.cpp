#include "test_util.hpp"

#include <ibsetup/profile.hpp>

#include "gtest_compat.hpp"

#include <sys/stat.h>

namespace fs = std::filesystem;
using namespace ibsetup;
using namespace ibsetup::profile;

namespace {

const char* const k_example = R"(version: 1
defaults:
  mode: datagram
  mtu: 4092
nodes:
  - hosts: "cn[001-128],gpu[01-08]"
    hcas:
      - device: mlx5_0
        link_type: ib
        firmware: {min: "20.31.1014"}
        pcie: {width: 16, speed: 16.0}
        ports:
          - {port: 1, link_type: ib, rate: 200, state: active}
    interfaces:
      - name: ib0
        device: mlx5_0
        port: 1
        ipv4: 10.10.0.0/16
      - name: ib0.8001
        parent: ib0
        pkey: 0x8001
        mode: datagram
        ipv4: 10.20.0.0/16
    checks:
      peers: [cn001, cn064]
hosts:
  cn017: {interfaces: {ib0: {ipv4: 10.10.9.17/16}}}
)";

TEST(Profile, LoadsTheIssueExample)
{
  const Profile p = load_profile_text(k_example, "cluster.yaml");
  ASSERT_EQ(1U, p.groups.size());
  EXPECT_EQ(136U, p.groups[0].hosts.size());
  EXPECT_EQ(136U, p.group_of_host.size());
  EXPECT_TRUE(p.warnings.empty());
}

TEST(Profile, ResolvesPoolAddressesByPosition)
{
  const Profile p = load_profile_text(k_example, "cluster.yaml");
  const ResolvedNode n = resolve_node(p, "cn005");
  EXPECT_EQ(5U, n.position);
  ASSERT_EQ(2U, n.interfaces.size());
  EXPECT_EQ("ib0", n.interfaces[0].name);
  EXPECT_EQ("10.10.0.5/16", n.interfaces[0].ipv4->str());
  EXPECT_EQ(Mode::datagram, *n.interfaces[0].mode);
  EXPECT_EQ(4092, *n.interfaces[0].mtu);
  EXPECT_EQ("ib0.8001", n.interfaces[1].name);
  EXPECT_EQ(0x8001, *n.interfaces[1].pkey);
  EXPECT_EQ("10.20.0.5/16", n.interfaces[1].ipv4->str());
  const ResolvedNode gpu = resolve_node(p, "gpu02");
  EXPECT_EQ(130U, gpu.position);
  EXPECT_EQ("10.10.0.130/16", gpu.interfaces[0].ipv4->str());
}

TEST(Profile, HostOverrideReplacesTheAddress)
{
  const Profile p = load_profile_text(k_example, "cluster.yaml");
  const ResolvedNode n = resolve_node(p, "cn017");
  EXPECT_EQ("10.10.9.17/16", n.interfaces[0].ipv4->str());
  EXPECT_EQ("10.20.0.17/16", n.interfaces[1].ipv4->str());
}

TEST(Profile, PeersResolveToTheirAddresses)
{
  const Profile p = load_profile_text(k_example, "cluster.yaml");
  const ResolvedNode n = resolve_node(p, "cn002");
  ASSERT_EQ(2U, n.peers.size());
  EXPECT_EQ("cn001", n.peers[0].host);
  ASSERT_EQ(2U, n.peers[0].addresses.size());
  EXPECT_EQ("ib0", n.peers[0].addresses[0].first);
  EXPECT_EQ("10.10.0.1/16", n.peers[0].addresses[0].second.str());
  // A node is not its own peer.
  EXPECT_EQ(1U, resolve_node(p, "cn001").peers.size());
}

TEST(Profile, HandBuiltGroupIndexPastTheGroupsIsAnInputError)
{
  // A library caller's Profile, not load_profile's: its map points past its one group, for the
  // host itself and for a peer of a good host.
  Profile p = load_profile_text(k_example, "cluster.yaml");
  p.group_of_host["cn001"] = p.groups.size();
  try {
    resolve_node(p, "cn001");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string::npos, std::string(e.what()).find("host 'cn001' is mapped to node group"))
        << e.what();
  }
  EXPECT_THROW(resolve_node(p, "cn002"), InputError);
}

TEST(Profile, UnknownNodeIsAnInputError)
{
  const Profile p = load_profile_text(k_example, "cluster.yaml");
  try {
    resolve_node(p, "login1");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(
        "cluster.yaml: host 'login1' is not in any node group (cn[001-128],gpu[01-08]); "
        "pass --node NAME to pick one",
        std::string(e.what()));
  }
}

TEST(Profile, ChildNameIsDerivedFromParentAndPkey)
{
  const Profile p = load_profile_text(R"(version: 1
nodes:
  - hosts: n1
    interfaces:
      - {name: ib0}
      - {parent: ib0, pkey: 0x8002}
      - {parent: ib0, pkey: 3}
)",
                                      "p.yaml");
  const auto n = resolve_node(p, "n1");
  EXPECT_EQ("ib0.8002", n.interfaces[1].name);
  EXPECT_EQ("ib0.8003", n.interfaces[2].name);
  ASSERT_EQ(1U, p.warnings.size());
  EXPECT_EQ(
      "p.yaml:7:29: warning: nodes[0].interfaces[2].pkey: P_Key 0x0003 lacks the "
      "full-membership bit 0x8000; using 0x8003 as the kernel does",
      p.warnings[0].format());
}

TEST(Profile, OffsetsShiftPools)
{
  const Profile p = load_profile_text(R"(version: 1
nodes:
  - hosts: "a[1-2]"
    interfaces: [{name: ib0, ipv4: 10.0.0.0/24, ipv6: "fd00::/64"}]
  - hosts: "b[1-2]"
    interfaces: [{name: ib0, ipv4: 10.0.0.0/24, ipv4_offset: 100, ipv6: "fd00::/64", ipv6_offset: 0x100}]
)",
                                      "p.yaml");
  EXPECT_EQ("10.0.0.102/24", resolve_node(p, "b2").interfaces[0].ipv4->str());
  EXPECT_EQ("fd00::102/64", resolve_node(p, "b2").interfaces[0].ipv6->str());
  EXPECT_EQ("fd00::2/64", resolve_node(p, "a2").interfaces[0].ipv6->str());
}

TEST(Profile, ShowJsonIsStable)
{
  const Profile p = load_profile_text(k_example, "cluster.yaml");
  const std::string json = node_to_json(resolve_node(p, "cn017"));
  EXPECT_EQ(
      R"({"host":"cn017","group":0,"group_hosts":"cn[001-128],gpu[01-08]","position":17,"prune":false,)"
      R"("hcas":[{"device":"mlx5_0","pci":null,"link_type":"ib","firmware_min":"20.31.1014",)"
      R"("pcie":{"width":16,"speed_gts":16.0},"ports":[{"port":1,"link_type":"ib",)"
      R"("rate_min_gbps":200.0,"state":"active"}]}],"interfaces":[{"name":"ib0","parent":null,)"
      R"("pkey":null,"mode":"datagram","mtu":4092,"backend":"auto","device":"mlx5_0","port":1,)"
      R"("ipv4":"10.10.9.17/16","ipv6":null},{"name":"ib0.8001","parent":"ib0",)"
      R"("pkey":"0x8001","mode":"datagram","mtu":4092,"backend":"auto","device":null,)"
      R"("port":null,"ipv4":"10.20.0.17/16","ipv6":null}],"peers":[{"host":"cn001",)"
      R"("addresses":[{"interface":"ib0","address":"10.10.0.1/16"},{"interface":"ib0.8001",)"
      R"("address":"10.20.0.1/16"}]},{"host":"cn064","addresses":[{"interface":"ib0",)"
      R"("address":"10.10.0.64/16"},{"interface":"ib0.8001","address":"10.20.0.64/16"}]}]})"
      "\n",
      json);
}

// The profile reader refuses such names; a library caller may build a node by hand, and the
// text still escapes what would reorder or break a terminal line.
TEST(Profile, ShowTextEscapesDeviceNames)
{
  const Profile p = load_profile_text(k_example, "cluster.yaml");
  ResolvedNode node = resolve_node(p, "cn017");
  ASSERT_FALSE(node.hcas.empty());
  ASSERT_FALSE(node.interfaces.empty());
  node.hcas[0].device.value = std::string(
      "mlx5_0\xe2\x80\xae\xe2\x80\xa8"
      "cn02 ok");
  node.interfaces[0].device = std::string("x\x1b[2Jy");
  const std::string text = node_to_text(node);
  EXPECT_EQ(std::string::npos, text.find("\xe2\x80\xae")) << text;
  EXPECT_EQ(std::string::npos, text.find('\x1b')) << text;
  EXPECT_NE(std::string::npos, text.find("mlx5_0\\u202e\\u2028cn02 ok")) << text;
}

// Carriage returns: CRLF files, one-line ones included, and a one-line file ending in a bare
// CR load; a file whose lines all end in a bare CR (old Mac OS) is refused, saying so.
TEST(Profile, LineEndings)
{
  const std::string one_line =
      "{version: 1, nodes: [{hosts: n1, interfaces: [{name: ib0, ipv4: 10.0.0.0/16}]}]}";
  EXPECT_NO_THROW(load_profile_text(one_line + "\r\n", "crlf1.yaml"));
  EXPECT_NO_THROW(load_profile_text(one_line + "\r", "cr1.yaml"));
  EXPECT_NO_THROW(load_profile_text("version: 1\r\nnodes:\r\n  - hosts: n1\r\n", "crlf.yaml"));
  try {
    load_profile_text("version: 1\rnodes:\r  - hosts: n1\r", "cr.yaml");
    FAIL() << "accepted";
  } catch (const DiagnosticError& e) {
    EXPECT_NE(std::string::npos, e.diagnostics().format().find("carriage return alone"))
        << e.diagnostics().format();
  }
}

TEST(Profile, ExampleProfilesAreValid)
{
  size_t n = 0;
  for (const auto& f : test::files_with(IBSETUP_PROFILES, ".yaml")) {
    EXPECT_NO_THROW(load_profile(f.string())) << f;
    ++n;
  }
  EXPECT_GE(n, 3U);
}

// File-level problems end in one clear message, never a crash.
std::string load_error(const std::string& path)
{
  try {
    load_profile(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(ProfileFile, MissingFile)
{
  EXPECT_EQ("/nonexistent/cluster.yaml: cannot open the profile: No such file or directory",
            load_error("/nonexistent/cluster.yaml"));
  // A missing file is an environment problem (exit 4), as the exit-code table says.
  try {
    load_profile("/nonexistent/cluster.yaml");
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(ErrorKind::environment, e.kind());
  }
}

TEST(ProfileFile, Directory)
{
  test::TempDir dir;
  EXPECT_EQ(dir.path().string() + ": is a directory, not a profile file",
            load_error(dir.path().string()));
}

TEST(ProfileFile, UnreadableFile)
{
  // Unreadable even for root: reading address 0 of our own memory fails with EIO.
  EXPECT_EQ("/proc/self/mem: cannot read the profile: Input/output error",
            load_error("/proc/self/mem"));
}

TEST(ProfileFile, PermissionDeniedWhenNotRoot)
{
  if (geteuid() == 0) {
    GTEST_SKIP() << "root reads files regardless of mode; covered by UnreadableFile";
  }
  test::TempDir dir;
  const auto path = dir.path() / "p.yaml";
  std::ofstream(path) << "version: 1\n";
  fs::permissions(path, fs::perms::none);
  EXPECT_EQ(path.string() + ": cannot read the profile: Permission denied",
            load_error(path.string()));
}

TEST(ProfileFile, TooLarge)
{
  test::TempDir dir;
  const auto path = dir.path() / "big.yaml";
  {
    std::ofstream out(path);
    const std::string line(1023, '#');
    for (int i = 0; i < 2 * 1024 + 1; ++i) {
      out << line << '\n';
    }
  }
  Limits limits;
  limits.max_bytes = 2U << 20U;
  try {
    load_profile(path.string(), limits);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(path.string() +
                  ": larger than 2 MiB; a cluster profile is far smaller (is this the right file?)",
              std::string(e.what()));
  }
}

std::string file_error(const std::string& path, const Limits& limits = {})
{
  try {
    load_profile(path, limits);
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(ProfileFile, DevicesAndFifosAreRefusedNotRead)
{
  EXPECT_EQ(
      "/dev/zero: is a character device, not a regular file; a profile is read from a "
      "regular file",
      file_error("/dev/zero"));
  test::TempDir dir;
  const std::string fifo = (dir.path() / "fifo.yaml").string();
  ASSERT_EQ(0, mkfifo(fifo.c_str(), 0600));
  // No writer ever opens the FIFO: a blocking open would hang here.
  EXPECT_EQ(fifo + ": is a FIFO, not a regular file; a profile is read from a regular file",
            file_error(fifo));
  EXPECT_EQ(dir.path().string() + ": is a directory, not a profile file",
            file_error(dir.path().string()));
}

TEST(ProfileFile, LargerThanTheCapIsRefused)
{
  Limits limits;
  limits.max_bytes = 1U << 20U;
  test::TempDir dir;
  const std::string big = (dir.path() / "big.yaml").string();
  std::ofstream(big) << std::string((1U << 20U) + 1, '#');
  EXPECT_EQ(big +
                ": larger than 1 MiB; a cluster profile is far smaller (is this the right "
                "file?)",
            file_error(big, limits));
}

std::string text_error(const std::string& text, const Limits& limits = {})
{
  try {
    load_profile_text(text, "t.yaml", limits);
  } catch (const DiagnosticError& e) {
    return e.diagnostics().format();
  }
  return "accepted";
}

TEST(ProfileLimits, HostsAndNameBytesAreCountedOverTheWholeProfile)
{
  Limits limits;
  limits.max_hosts = 10;
  const std::string two_groups = "version: 1\nnodes:\n  - hosts: a[1-6]\n  - hosts: b[1-6]\n";
  EXPECT_EQ(
      "t.yaml:4:12: nodes[1].hosts: expands to 6 hosts after 6 hosts in the groups "
      "before it; a profile lists at most 10 hosts in all its groups",
      text_error(two_groups, limits));
  limits.max_hosts = 1000000;
  limits.max_host_bytes = 1U << 20U;
  // 200,000 names of 7 bytes: refused by arithmetic, nothing is expanded.
  EXPECT_EQ(
      "t.yaml:3:12: nodes[0].hosts: expands to host names of 1400000 bytes; a profile's "
      "host names hold at most 1 MiB in all its groups",
      text_error("version: 1\nnodes:\n  - hosts: h[000001-200000]\n", limits));
}

TEST(ProfileText, DeepFlowNestingIsRefusedBeforeParsing)
{
  const std::string deep =
      "version: 1\nnodes: " + std::string(100000, '[') + std::string(100000, ']') + "\n";
  EXPECT_EQ("t.yaml:2:72: document nested more than 64 levels deep; a profile needs far fewer",
            text_error(deep));
}

TEST(ProfileText, DeepBlockNestingIsRefusedBeforeParsing)
{
  std::string deep = "version: 1\nnodes:\n";
  for (int i = 0; i < 5000; ++i) {
    deep += "- ";
  }
  deep += "x\n";
  EXPECT_EQ("t.yaml:3:127: document nested more than 64 levels deep; a profile needs far fewer",
            text_error(deep));
  std::string indented = "version: 1\n";
  for (int i = 0; i < 200; ++i) {
    indented += std::string(static_cast<size_t>(i), ' ') + "k" + std::to_string(i) + ":\n";
  }
  EXPECT_EQ("t.yaml:66:65: document nested more than 64 levels deep; a profile needs far fewer",
            text_error(indented));
}

TEST(ProfileText, BillionLaughsIsRefused)
{
  std::string text = "version: 1\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 10; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) {
      text += (k ? ", " : "") + prev;
    }
    text += "]\n";
  }
  text += "nodes: *a9\n";
  EXPECT_EQ(
      "t.yaml:7:45: aliases expand the document to more than 1000000 nodes; refusing to "
      "process it (use fewer nested aliases)",
      text_error(text));
}

TEST(ProfileText, ModestAliasesAreFine)
{
  const Profile p = load_profile_text(R"(version: 1
nodes:
  - hosts: "a[1-2]"
    interfaces: &ifs
      - {name: ib0, mtu: 2044}
  - hosts: "b[1-2]"
    interfaces: *ifs
)",
                                      "t.yaml");
  EXPECT_EQ(2044, *resolve_node(p, "b1").interfaces[0].mtu);
}

}  // namespace
