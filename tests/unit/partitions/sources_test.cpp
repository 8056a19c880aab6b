// The inventory sources of `partitions --inventories SRC` (issue 16 item 1): inspect --json
// lines (clush, pdsh, bare), directories of HOST.json, ibnetdiscover topologies, and their bad
// inputs. The JSON fixtures are real `ibsetup inspect --json` output over the sysfs fixtures.
#include "partitions/inventories.hpp"
#include "partitions/source_parse.hpp"

#include "gtest_compat.hpp"
#include "test_util.hpp"

#include <ibsetup/error.hpp>

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace ibsetup::partitions {
namespace {

const std::string k_data = std::string(IBSETUP_TEST_DATA) + "/partitions/sources";

// "where: message" of every problem, one per line, for matching.
std::string problems(const Inventories& inv)
{
  std::string out;
  for (const auto& p : inv.problems) {
    out += p.where + ": " + p.message + "\n";
  }
  return out;
}

std::string ports(const InventoryHost& h)
{
  std::string out;
  for (const auto& p : h.ports) {
    out += p.device + "/" + std::to_string(p.port) + "=" + p.guid + (p.infiniband ? "" : "(eth)") +
           " ";
  }
  return out;
}

// read_inventories("-") with standard input read from path.
Inventories read_stdin_from(const std::string& path, const SourceLimits& limits = SourceLimits())
{
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0) << path;
  auto inv = read_inventories("-", limits, fd);
  ::close(fd);
  return inv;
}

std::string cn01_line()
{
  return test::read_text(k_data + "/dir/cn01.json");
}

TEST(SourcesTest, GuidsAreNormalised)
{
  EXPECT_EQ(normalize_guid("0x0C42A1030016E7E0"), "0x0c42a1030016e7e0");
  EXPECT_EQ(normalize_guid("0c42:a103:0016:e7e0"), "0x0c42a1030016e7e0");
  EXPECT_EQ(normalize_guid("c42a1030016e7e0"), "0x0c42a1030016e7e0");
  EXPECT_EQ(normalize_guid("0x1"), "0x0000000000000001");
  for (const char* bad : {"", "0x", "0x0", "0x00000000000000000", "0x0c42a1030016e7e0a",
                          "0c42:a103:0016e7e0", "0c42:a103:0016:e7e", "g", "0x 1", "-1"}) {
    EXPECT_FALSE(normalize_guid(bad)) << bad;
  }
}

TEST(SourcesTest, ClushLinesOnStandardInput)
{
  const auto inv = read_stdin_from(k_data + "/clush.txt");
  EXPECT_EQ(problems(inv), "");
  ASSERT_EQ(inv.hosts.size(), 3U);
  const auto& cn01 = inv.hosts.at("cn01");
  EXPECT_EQ(cn01.origin, "-:1");
  EXPECT_EQ(ports(cn01), "mlx5_0/1=0x0c42a1030016e7e0 mlx5_1/1=0x0c42a1030016e7f8 ");
  EXPECT_EQ(cn01.netdevs.at("ib1"), std::make_pair(std::string("mlx5_1"), 1));
  EXPECT_EQ(inv.hosts.at("cn02").origin, "-:2");
  // The third line is a bare object: its "host" names it.
  const auto& cn03 = inv.hosts.at("cn03");
  EXPECT_EQ(cn03.origin, "-:3");
  EXPECT_EQ(ports(cn03), "mlx5_0/1=0x0c42a10300a0e1f0 ");
  EXPECT_EQ(cn03.netdevs.at("ib0.8001"), std::make_pair(std::string("mlx5_0"), 1));
}

TEST(SourcesTest, AFullNameGoesByItsShortName)
{
  // clush names hosts as its groups do, a full name on some sites; hosts go by their short
  // name, as the topology reader and the profile's hostlists have them.
  std::string line = cn01_line();
  line.pop_back();  // its newline
  const auto inv = parse_source_text("cn01.site.example: " + line + "\n", "-");
  EXPECT_EQ(problems(inv), "");
  ASSERT_EQ(inv.hosts.size(), 1U);
  EXPECT_EQ(inv.hosts.begin()->first, "cn01");
  EXPECT_EQ(inv.hosts.begin()->second.host, "cn01");
  // A bare line whose "host" is a full name likewise.
  std::string bare = line;
  bare.replace(bare.find("\"cn01\""), 6, "\"cn01.site\"");
  const auto inv2 = parse_source_text(bare + "\n", "-");
  EXPECT_EQ(problems(inv2), "");
  EXPECT_EQ(inv2.hosts.count("cn01"), 1U);
  // The full name and the short one are one host: given twice.
  const auto twice = parse_source_text("cn01.site: " + line + "\ncn01: " + line + "\n", "-");
  ASSERT_EQ(twice.hosts.size(), 1U);
  EXPECT_NE(problems(twice).find("-:2: "), std::string::npos) << problems(twice);
}

TEST(SourcesTest, DirectoryOfHostFiles)
{
  const auto inv = read_inventories(k_data + "/dir");
  EXPECT_EQ(problems(inv), "");
  ASSERT_EQ(inv.hosts.size(), 2U);
  EXPECT_EQ(inv.hosts.at("cn02").origin, k_data + "/dir/cn02.json");
  EXPECT_EQ(ports(inv.hosts.at("cn02")),
            "mlx5_0/1=0x0c42a10300a11300 mlx5_1/1=0x0c42a10300a11301 ");
  EXPECT_EQ(inv.hosts.at("cn02").netdevs.at("ib0"), std::make_pair(std::string("mlx5_0"), 1));
}

TEST(SourcesTest, IbnetdiscoverTopology)
{
  const std::string file = k_data + "/ibnetdiscover.txt";
  const auto inv = read_inventories(file);
  ASSERT_EQ(inv.hosts.size(), 2U);
  // Two HCAs of one host join; the full name in the description becomes the short one.
  EXPECT_EQ(ports(inv.hosts.at("cn01")),
            "mlx5_0/1=0x0c42a1030016e7e0 mlx5_1/1=0x0c42a1030016e7f8 ");
  EXPECT_EQ(inv.hosts.at("cn01").origin, file + ":20");
  EXPECT_EQ(ports(inv.hosts.at("cn02")), "mlx5_0/1=0x0c42a1030016e800 ");
  EXPECT_TRUE(inv.hosts.at("cn01").netdevs.empty());
  // The adapter rdma-ndd did not name is a problem that lists what is left out.
  EXPECT_EQ(problems(inv), file +
                               ":41: node description 'MT4123 ConnectX6   Mellanox Technologies' "
                               "is not \"HOST HCA\" (as rdma-ndd sets it); its ports "
                               "(0x0c42a10300aa0100) are left out\n");
}

TEST(SourcesTest, IbsimTopologyOnStandardInput)
{
  const auto inv = read_stdin_from(k_data + "/ibsim.net");
  EXPECT_EQ(problems(inv), "");
  ASSERT_EQ(inv.hosts.size(), 2U);
  EXPECT_EQ(ports(inv.hosts.at("cn01")), "mlx5_0/1=0x0c42a10300aa0101 ");
  EXPECT_EQ(ports(inv.hosts.at("cn02")),
            "mlx5_0/1=0x0c42a10300aa0202 mlx5_0/2=0x0c42a10300aa0203 ");
}

TEST(SourcesTest, BadJsonLinesAreLocatedProblems)
{
  const std::string good = cn01_line();
  std::string bare = good;
  bare.replace(bare.find("\"host\":\"cn01\","), 14, "");
  const std::string text = "cn01: " + good +            // 1
                           "cn09: {\"devices\": [\n" +  // 2: not JSON
                           bare +                       // 3: no host member, no prefix
                           "cn07: " + good +            // 4: says cn01
                           "cn01: " + good +            // 5: cn01 again
                           "ssh: connect to host cn05 port 22: Connection refused\n" +  // 6
                           "cn06: {\"host\":\"cn06\",\"checks\":[]}\n" +                // 7
                           std::string("\x01\xff\x1b[2J junk\n", 11) +                  // 8
                           "\n" + "cn08:\n";  // an empty line; clush's empty line of cn08
  const auto inv = parse_source_text(text, "-");
  ASSERT_EQ(inv.hosts.size(), 1U);
  EXPECT_EQ(inv.hosts.at("cn01").origin, "-:1");
  const std::string p = problems(inv);
  EXPECT_NE(p.find("-:2: not JSON: "), std::string::npos) << p;
  EXPECT_NE(p.find("-:3: no \"host\" member"), std::string::npos) << p;
  EXPECT_NE(p.find("-:4: the inventory says host 'cn01', but it is given as cn07; left out"),
            std::string::npos)
      << p;
  EXPECT_NE(p.find("-:5: host cn01 is given twice, here and at -:1 (the same ports): the first "
                   "is kept"),
            std::string::npos)
      << p;
  EXPECT_NE(p.find("-:6: not an inspect --json line: 'ssh: connect to host cn05"),
            std::string::npos)
      << p;
  EXPECT_NE(p.find("-:7: not an inventory: "), std::string::npos) << p;
  // Hostile bytes are shown escaped, never passed to the terminal.
  EXPECT_NE(p.find("-:8: not an inspect --json line: '\\x01\\xff\\x1b[2J junk'"), std::string::npos)
      << p;
  EXPECT_EQ(inv.problems.size(), 7U) << p;
}

TEST(SourcesTest, PortsTheGeneratorCannotUse)
{
  const std::string line =
      R"({"host":"cn01","devices":[{"name":"mlx5_0","ports":[)"
      R"({"port":1,"link_layer":"InfiniBand","port_guid":"0x0c42a1030016e7e0","netdev":"ib0"},)"
      R"({"port":2,"link_layer":"Ethernet","port_guid":"0c42:a103:0016:e7e1"},)"
      R"({"port":3,"link_layer":"InfiniBand","port_guid":null},)"
      R"({"port":4,"link_layer":"InfiniBand","port_guid":"0xzz"},)"
      R"({"port":1,"link_layer":"InfiniBand","port_guid":"0x0c42a1030016e7e9"}]},)"
      R"({"name":"bad name","ports":[]}],"netdevs":[)"
      R"({"name":"ib9","ipoib":true,"device":"mlx5_7","port":1}]})";
  const auto inv = parse_source_text(line + "\n", "-");
  ASSERT_EQ(inv.hosts.size(), 1U);
  const auto& h = inv.hosts.at("cn01");
  EXPECT_EQ(ports(h), "mlx5_0/1=0x0c42a1030016e7e0 mlx5_0/2=0x0c42a1030016e7e1(eth) ");
  // A binding to a port the inventory does not list is not kept.
  EXPECT_EQ(h.netdevs.size(), 1U);
  EXPECT_EQ(problems(inv),
            "-:1: cn01 mlx5_0 port 3 has no port_guid; the port is left out\n"
            "-:1: devices[0].ports[3].port_guid: '0xzz' is not a GUID; the port "
            "is left out\n"
            "-:1: mlx5_0 port 1 is listed twice; the first is kept\n"
            "-:1: devices[1].name: 'bad name' is not a device name; its ports are "
            "left out\n");
}

TEST(SourcesTest, WrongTypesAreProblemsWithTheirPath)
{
  const auto inv = parse_source_text(
      R"(cn01: {"host":"cn01","devices":[{"name":"mlx5_0","ports":[{"port":"1"}]}]})", "-");
  EXPECT_TRUE(inv.hosts.empty());
  EXPECT_EQ(problems(inv), "-:1: devices[0].ports[0].port: expected an integer, got a string\n");
}

TEST(SourcesTest, HugeLinesAndManyProblemsStayBounded)
{
  SourceLimits limits;
  limits.max_line = 1000;
  limits.max_problems = 3;
  std::string text = "cn01: " + std::string(5000, 'x') + "\n";
  for (int i = 0; i < 10; ++i) {
    text += "junk\n";
  }
  const auto inv = parse_source_text(text, "-", limits);
  ASSERT_EQ(inv.problems.size(), 4U);
  EXPECT_EQ(inv.problems[0].where, "-:1");
  EXPECT_NE(inv.problems[0].message.find("a line of 5006 bytes, longer than the 1000"),
            std::string::npos);
  EXPECT_LT(inv.problems[0].message.size(), 300U);
  EXPECT_EQ(inv.problems[3].message, "8 more problems not shown");
}

// A line too long to look at is the only problem: the input was not "empty, or only comments".
TEST(SourcesTest, AnOverlongLineAloneIsOneProblem)
{
  SourceLimits limits;
  limits.max_line = 1000;
  const auto inv = parse_source_text("cn01: " + std::string(5000, 'x') + "\n", "-", limits);
  ASSERT_EQ(inv.problems.size(), 1U) << problems(inv);
  EXPECT_NE(inv.problems[0].message.find("a line of 5006 bytes"), std::string::npos);
}

// A JSON error's column is the line's, "HOST: " and blanks counted (it was the column inside
// the object).
TEST(SourcesTest, JsonErrorColumnsAreTheLines)
{
  const auto prefixed = parse_source_text("cn01: {\"host\":\"cn01\",\"devices\":[}\n", "-");
  EXPECT_NE(problems(prefixed).find("-:1: not JSON: line 1, column 33: "), std::string::npos)
      << problems(prefixed);
  const auto blanks = parse_source_text("   {\"host\":\"cn01\",\"devices\":[}\n", "-");
  EXPECT_NE(problems(blanks).find("-:1: not JSON: line 1, column 30: "), std::string::npos)
      << problems(blanks);
}

TEST(SourcesTest, TooMuchInputThrows)
{
  test::TempDir tmp;
  const auto path = (tmp.path() / "big.txt").string();
  std::ofstream(path) << std::string(3000, '\n');
  SourceLimits limits;
  limits.max_total = 2048;
  EXPECT_THROW(read_stdin_from(path, limits), InputError);
  EXPECT_THROW(read_inventories(path, limits, -1), InputError);
}

TEST(SourcesTest, UnreadableSourcesThrow)
{
  test::TempDir tmp;
  EXPECT_THROW(read_inventories((tmp.path() / "absent").string()), InputError);
  const auto fifo = (tmp.path() / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    read_inventories(fifo);  // must neither block nor be read
    FAIL() << "a FIFO was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is a FIFO"), std::string::npos) << e.what();
  }
}

TEST(SourcesTest, TerminalOnStandardInputIsAUsageError)
{
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(master, 0);
  ASSERT_EQ(::grantpt(master), 0);
  ASSERT_EQ(::unlockpt(master), 0);
  const int tty = ::open(::ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
  ASSERT_GE(tty, 0);
  try {
    read_inventories("-", SourceLimits(), tty);  // must not wait for typing
    ADD_FAILURE() << "a terminal was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
  }
  ::close(tty);
  ::close(master);
}

TEST(SourcesTest, EmptyInputIsAProblem)
{
  const auto inv = parse_source_text("# nothing\n\n", "-");
  EXPECT_TRUE(inv.hosts.empty());
  EXPECT_EQ(problems(inv), "-: no inventory in it (empty, or only comments)\n");
}

TEST(SourcesTest, BadFilesOfADirectory)
{
  test::TempDir tmp;
  const auto& dir = tmp.path();
  std::ofstream(dir / "cn01.json") << cn01_line();
  std::ofstream(dir / "cn02.json") << cn01_line();  // says cn01
  std::ofstream(dir / "cn03.json") << "{\"devices\": [}";
  std::ofstream(dir / "bad name.json") << cn01_line();
  std::ofstream(dir / "README") << "not an inventory, not a .json file";
  ASSERT_EQ(::mkfifo((dir / "cn04.json").c_str(), 0600), 0);
  // Links are not followed, to a file (a node's way to /etc/shadow) or a device.
  std::filesystem::create_symlink(dir / "cn01.json", dir / "cn06.json");
  std::filesystem::create_symlink("/dev/null", dir / "cn07.json");
  std::string pretty = cn01_line();  // a document over many lines, as jq prints it
  pretty.replace(pretty.find("\"host\":\"cn01\""), 13, "\n  \"host\": \"cn05\"\n");
  std::ofstream(dir / "cn05.json") << pretty;
  const auto inv = read_inventories(dir.string() + "/");
  EXPECT_EQ(inv.hosts.size(), 2U);
  EXPECT_EQ(inv.hosts.count("cn05"), 1U);
  const std::string d = dir.string() + "/";
  EXPECT_EQ(problems(inv),
            d + "bad name.json: the file name does not name a host (HOST.json); left out\n" + d +
                "cn02.json: the inventory says host 'cn01', but it is given as cn02; left out\n" +
                d + "cn03.json: not JSON: line 1, column 14: syntax error while parsing value - " +
                "unexpected '}'; expected '[', '{', or a literal\n" + d +
                "cn04.json: is a FIFO, not a file; left out\n" + d +
                "cn06.json: is a symlink, not a file; left out\n" + d +
                "cn07.json: is a symlink, not a file; left out\n");
}

// A host given twice with different ports (a cloned image with a duplicate host name, a node
// reporting another's name): either could be the impostor, so neither is kept, nor a third;
// the same inventory twice (clush run twice) keeps the first.
TEST(SourcesTest, AHostGivenTwiceWithDifferentPortsIsLeftOut)
{
  const std::string good = cn01_line();
  std::string forged = good;
  const std::string guid = "\"port_guid\":\"0x0c42a1030016e7e0\"";
  const auto at = forged.find(guid);
  ASSERT_NE(at, std::string::npos);
  forged.replace(at, guid.size(), "\"port_guid\":\"0x0c42a103deadbeef\"");
  const auto inv = parse_source_text("cn01: " + forged + "cn01: " + good + "cn01: " + good, "-");
  EXPECT_EQ(inv.hosts.count("cn01"), 0U);
  EXPECT_EQ(problems(inv),
            "-:2: host cn01 is given twice with different ports or interface bindings, here "
            "and at -:1: neither is kept (one of them is not the host: a cloned image, or a node "
            "description naming another host?)\n"
            "-:3: host cn01 is given again; it is left out (its inventories disagree)\n");
  const auto twice = parse_source_text("cn01: " + good + "cn01: " + good, "-");
  EXPECT_EQ(twice.hosts.count("cn01"), 1U);
  // Before and after apply made a P_Key child: the same ports, one netdev more; kept, with it.
  std::string after = good;
  const std::string netdevs = "\"netdevs\":[";
  const auto n = after.find(netdevs);
  ASSERT_NE(n, std::string::npos);
  after.insert(n + netdevs.size(),
               "{\"name\":\"ib0.8001\",\"ipoib\":true,\"device\":\"mlx5_0\",\"port\":1,"
               "\"mode\":\"datagram\",\"pkey\":\"0x8001\",\"parent\":\"ib0\",\"umcast\":false,"
               "\"mtu\":2044,\"operstate\":\"up\",\"admin_up\":true,\"carrier\":true,"
               "\"addresses\":[]},");
  const auto grown = parse_source_text("cn01: " + good + "cn01: " + after, "-");
  ASSERT_EQ(grown.hosts.count("cn01"), 1U) << problems(grown);
  EXPECT_EQ(grown.hosts.at("cn01").netdevs.count("ib0.8001"), 1U);
  // A netdev both name, bound to two ports: a conflict.
  std::string moved = good;
  const auto ib0 = moved.find("\"name\":\"ib0\"");
  ASSERT_NE(ib0, std::string::npos);
  const std::string on0 = "\"device\":\"mlx5_0\"";
  const auto dev = moved.find(on0, ib0);
  ASSERT_NE(dev, std::string::npos);
  moved.replace(dev, on0.size(), "\"device\":\"mlx5_1\"");
  const auto split = parse_source_text("cn01: " + good + "cn01: " + moved, "-");
  EXPECT_EQ(split.hosts.count("cn01"), 0U);
  EXPECT_NE(problems(split).find("-:2: host cn01 is given twice with different ports or interface "
                                 "bindings"),
            std::string::npos)
      << problems(split);
}

TEST(SourcesTest, EmptyDirectoryIsAProblem)
{
  test::TempDir tmp;
  const auto inv = read_inventories(tmp.path().string());
  EXPECT_EQ(problems(inv), tmp.path().string() + ": no HOST.json files in this directory\n");
}

TEST(SourcesTest, BadTopologyBlocks)
{
  const std::string text =
      "vendid=0x2c9\n"
      "Ca\t1 \"H-0c42a1030016e7e0\"\t\t# \"cn01 mlx5_0\"\n"
      "[1](c42a1030016e7e0) \t\"S-b8599f0300c0a1b0\"[1]\n"
      "[2] \t\"S-b8599f0300c0a1b0\"[2]\n"       // 4: no GUID
      "[3](xyz) \t\"S-b8599f0300c0a1b0\"[3]\n"  // 5
      "[x](c42a1030016e7e0)\n"                  // 6
      "\n"
      "Ca 1 cn02\n"  // 8: no quotes
      "[1](c42a1030016e801)\n"
      "\n"
      "Ca 1 \"cn01 mlx5_0\"\n"  // 11: the same HCA again
      "[1](c42a1030016e7f0)\n"
      "Ca 1 \"cn03\"\n"  // 13: one word
      "[1](c42a1030016e7f1)\n"
      "Ca 1 \"cn03 mlx5_0 extra\"\n"  // 15
      "Ca 1 \"\x1b]0;evil\x07 mlx5_0\"\n";
  const auto inv = parse_source_text(text, "topo.txt");
  // cn01's mlx5_0 twice, with two GUIDs: either block could be the forged one, so cn01 is left
  // out (its members are then missing) rather than the first kept.
  EXPECT_EQ(inv.hosts.size(), 0U);
  EXPECT_EQ(
      problems(inv),
      "topo.txt:4: port 2 of 'cn01 mlx5_0' has no (PORTGUID): '[2] \\t\"S-b8599f0300c0a1b0\"[2]'\n"
      "topo.txt:5: 'xyz' is not a port GUID: '[3](xyz) \\t\"S-b8599f0300c0a1b0\"[3]'\n"
      "topo.txt:6: cannot read this port line (expected [N](PORTGUID)): '[x](c42a1030016e7e0)'\n"
      "topo.txt:8: cannot read this Ca line (expected Ca N \"NAME\"): 'cn02'\n"
      "topo.txt:11: cn01 mlx5_0 is given twice, here and at topo.txt:2: cn01 is left out (one "
      "of them is not that host: a cloned image, or a node description naming another host?)\n"
      "topo.txt:13: node description 'cn03' is not \"HOST HCA\" (as rdma-ndd sets it); its "
      "ports (0x0c42a1030016e7f1) are left out\n"
      "topo.txt:15: node description 'cn03 mlx5_0 extra' is not \"HOST HCA\" (as rdma-ndd "
      "sets it); its ports (none listed) are left out\n"
      "topo.txt:16: node description '\\x1b]0;evil\\x07 mlx5_0' is not \"HOST HCA\" (as "
      "rdma-ndd sets it); its ports (none listed) are left out\n");
}

// A port listed twice in one CA block (ibnetdiscover lists each once) was resolved to the
// first GUID without a word; now it is a problem, as in the JSON reader, and the first is kept.
TEST(SourcesTest, APortListedTwiceInABlockIsAProblem)
{
  const auto inv = parse_source_text(
      "Ca 1 \"cn02 mlx5_0\"\n"
      "[1](0002c90300000202)\n"
      "[1](0002c90300000203)\n",
      "t2.txt");
  EXPECT_EQ(problems(inv),
            "t2.txt:3: port 1 of 'cn02 mlx5_0' is listed twice "
            "(0x0002c90300000202, then 0x0002c90300000203); the first is kept\n");
  ASSERT_EQ(inv.hosts.count("cn02"), 1U);
  EXPECT_EQ(ports(inv.hosts.at("cn02")), "mlx5_0/1=0x0002c90300000202 ");
}

TEST(SourcesTest, PortsReportIsOneProblem)
{
  const auto inv = parse_source_text(
      "CA    20    1 0x0002c9030001fe2b 4x QDR - SW     2   12 0x0002c90200401f10 ( 'cn01 "
      "mlx4_0' - 'ISR9024' )\n"
      "SW     2   12 0x0002c90200401f10 4x QDR - CA    20    1 0x0002c9030001fe2b ( 'ISR9024' - "
      "'cn01 mlx4_0' )\n",
      "ports.txt");
  EXPECT_TRUE(inv.hosts.empty());
  EXPECT_EQ(problems(inv),
            "ports.txt:1: this is ibnetdiscover -p output (a ports report); give "
            "ibnetdiscover's topology, without -p\n");
}

TEST(SourcesTest, FormIsDecidedByContent)
{
  EXPECT_TRUE(looks_like_topology("vendid=0x2c9"));
  EXPECT_TRUE(looks_like_topology("Switch\t40 \"S-b8599f0300c0a1b0\""));
  EXPECT_TRUE(looks_like_topology("Ca 1 \"cn01 mlx5_0\""));
  EXPECT_FALSE(looks_like_topology("Cable: {\"host\":1}"));
  EXPECT_FALSE(looks_like_topology("cn01: {\"host\":\"cn01\"}"));
  EXPECT_FALSE(looks_like_topology("{\"host\":\"cn01\"}"));
}

}  // namespace
}  // namespace ibsetup::partitions
