#include "inventory/reader_tables.hpp"
#include "os/sysfs.hpp"
#include "test_util.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/inventory.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>

namespace fs = std::filesystem;
using namespace ibsetup;
using namespace ibsetup::inventory;

namespace {

const fs::path k_fixtures = fs::path(IBSETUP_TEST_DATA) / ".." / "fixtures" / "sysfs";

Host inspect_fixture(const std::string& name)
{
  Options o;
  o.sysfs_root = (k_fixtures / name).string();
  return inspect(o);
}

const Port& port_of(const Host& h, const std::string& dev, int port)
{
  for (const auto& d : h.devices) {
    for (const auto& p : d.ports) {
      if (d.name == dev && p.port == port) {
        return p;
      }
    }
  }
  throw std::runtime_error("no such port");
}

const Netdev& netdev_of(const Host& h, const std::string& name)
{
  for (const auto& n : h.netdevs) {
    if (n.name == name) {
      return n;
    }
  }
  throw std::runtime_error("no such netdev " + name);
}

TEST(Inventory, TwoHdrHcas)
{
  const Host h = inspect_fixture("hdr-2hca");
  ASSERT_EQ(2U, h.devices.size());
  const Device& d = h.devices[0];
  EXPECT_EQ("mlx5_0", d.name);
  EXPECT_EQ("CA", *d.node_type);
  EXPECT_EQ("mlx5_core", *d.driver);
  ASSERT_TRUE(d.pci);
  EXPECT_EQ("0000:3b:00.0", d.pci->address);
  EXPECT_EQ("0x15b3", *d.pci->vendor);
  EXPECT_EQ(16, *d.pci->link_width);
  EXPECT_EQ("0000:3a:00.0", *d.pci->bridge);
  EXPECT_EQ(16, *d.pci->bridge_max_width);
  const Port& p = port_of(h, "mlx5_0", 1);
  EXPECT_TRUE(p.state == PortState::active);
  EXPECT_EQ(200, *p.rate_gbps);
  EXPECT_EQ("HDR", *p.speed);
  EXPECT_EQ(5, *p.lid);
  EXPECT_EQ((std::vector<uint16_t>{0xffff, 0x8001}), p.pkeys);
  EXPECT_EQ("ib0", *p.netdev);
  EXPECT_FALSE(p.active_mtu);  // no verbs source for a fixture
  EXPECT_TRUE(p.counters.empty());
  EXPECT_TRUE(h.warnings.empty());
  EXPECT_EQ("mlx5_1", *netdev_of(h, "ib1").device);
  EXPECT_EQ(1, *h.devices[1].pci->numa_node);
}

TEST(Inventory, JsonSchemaGolden)
{
  Host h = inspect_fixture("hdr-2hca");
  h.host = "demo01";
  const std::string expected = test::read_text(k_fixtures / ".." / "inspect-hdr-2hca.json");
  EXPECT_EQ(expected, host_to_json(h));
}

TEST(Inventory, VpiPortInEthernetMode)
{
  const Host h = inspect_fixture("vpi-eth-port");
  EXPECT_TRUE(port_of(h, "mlx5_0", 2).link_layer == LinkLayer::ethernet);
  EXPECT_EQ("enp94s0f1", *port_of(h, "mlx5_0", 2).netdev);
  const Netdev& eth = netdev_of(h, "enp94s0f1");
  EXPECT_FALSE(eth.ipoib);
  EXPECT_EQ(2, *eth.port);
  EXPECT_FALSE(eth.mode);
}

TEST(Inventory, NoSubnetManager)
{
  const Host h = inspect_fixture("no-sm");
  const Port& p = port_of(h, "mlx5_0", 2);
  EXPECT_TRUE(p.state == PortState::init);
  EXPECT_EQ(0, *p.sm_lid);
}

TEST(Inventory, PortDownPolling)
{
  const Host h = inspect_fixture("port-down-polling");
  const Port& p = port_of(h, "mlx5_0", 1);
  EXPECT_TRUE(p.state == PortState::down);
  EXPECT_TRUE(p.phys_state == PhysState::polling);
  EXPECT_EQ("down", *netdev_of(h, "ib0").operstate);
  EXPECT_FALSE(*netdev_of(h, "ib0").carrier);
}

TEST(Inventory, DegradedPcieLink)
{
  const Host h = inspect_fixture("pcie-x8");
  EXPECT_EQ(8, *h.devices[0].pci->link_width);
  EXPECT_EQ(16, *h.devices[0].pci->max_link_width);
  EXPECT_NE(std::string::npos, host_to_text(h).find("DEGRADED"));
}

TEST(Inventory, Mlx4WithoutPcieLinkFiles)
{
  const Host h = inspect_fixture("mlx4-connectx3");
  ASSERT_EQ(1U, h.devices.size());
  EXPECT_EQ("mlx4_core", *h.devices[0].driver);
  EXPECT_FALSE(h.devices[0].pci->link_width);
  EXPECT_FALSE(h.devices[0].pci->link_speed_gts);
  EXPECT_EQ(932, *port_of(h, "mlx4_0", 1).lid);
  EXPECT_TRUE(netdev_of(h, "ib0").mode == IpoibMode::connected);
  EXPECT_EQ(1, *netdev_of(h, "ib0").port);
  ASSERT_EQ(1U, h.warnings.size());
  EXPECT_NE(std::string::npos, h.warnings[0].find("class/infiniband/scif0: dangling link"));
}

TEST(Inventory, QlogicQib)
{
  const Host h = inspect_fixture("qib-qle7340");
  EXPECT_EQ("ib_qib", *h.devices[0].driver);
  EXPECT_FALSE(h.devices[0].fw_ver);
  EXPECT_EQ("qib0", *netdev_of(h, "ib0").device);
  EXPECT_EQ(40, *port_of(h, "qib0", 1).rate_gbps);
}

TEST(Inventory, PkeyChild)
{
  const Host h = inspect_fixture("pkey-child");
  const Netdev& child = netdev_of(h, "ib0.8001");
  EXPECT_EQ(0x8001, *child.pkey);
  EXPECT_EQ("ib0", *child.parent);
  EXPECT_EQ("mlx5_0", *child.device);
  EXPECT_EQ("ib0", *port_of(h, "mlx5_0", 1).netdev);  // the base, not the child
  EXPECT_EQ((std::vector<uint16_t>{0xffff, 0x8001, 0x8002}), port_of(h, "mlx5_0", 1).pkeys);
}

TEST(Inventory, HcaWithoutNetdev)
{
  const Host h = inspect_fixture("no-netdev");
  EXPECT_FALSE(port_of(h, "mlx5_0", 1).netdev);
  EXPECT_EQ("ib1", *port_of(h, "mlx5_1", 1).netdev);
}

// mlx5's layout of a dual-port card: one single-port HCA per PCI function, one bridge.
TEST(Inventory, DualFunctionCard)
{
  const Host h = inspect_fixture("cx6-dual-function");
  ASSERT_EQ(2U, h.devices.size());
  for (int f = 0; f < 2; ++f) {
    const Device& d = h.devices[f];
    EXPECT_EQ("mlx5_" + std::to_string(f), d.name);
    ASSERT_TRUE(d.pci);
    EXPECT_EQ("0000:3b:00." + std::to_string(f), d.pci->address);
    EXPECT_EQ("0000:3a:00.0", *d.pci->bridge);
    ASSERT_EQ(1U, d.ports.size());
    EXPECT_EQ(1, d.ports[0].port);
    EXPECT_EQ("0x0c42a10300a11300", *d.sys_image_guid);
  }
  EXPECT_EQ("ib0", *port_of(h, "mlx5_0", 1).netdev);
  EXPECT_EQ("ib1", *port_of(h, "mlx5_1", 1).netdev);
  EXPECT_EQ(1, *netdev_of(h, "ib1").port);
  EXPECT_TRUE(h.warnings.empty());
}

TEST(Inventory, OddTreeGivesNullsAndWarnings)
{
  const Host h = inspect_fixture("odd-tree");
  ASSERT_EQ(1U, h.devices.size());
  const Device& d = h.devices[0];
  EXPECT_FALSE(d.fw_ver);                   // empty file
  EXPECT_EQ("MT_0000000222", *d.board_id);  // no trailing newline
  EXPECT_EQ("MT4123", *d.hca_type);         // extra blank lines
  const Port& p1 = port_of(h, "mlx5_0", 1);
  EXPECT_FALSE(p1.rate_gbps);
  EXPECT_FALSE(p1.lid);
  const Port& p2 = port_of(h, "mlx5_0", 2);  // a port directory with no files
  EXPECT_FALSE(p2.state);
  EXPECT_TRUE(p2.pkeys.empty());
  const std::string root = (k_fixtures / "odd-tree").string();
  const std::vector<std::string> expected = {
      root + "/class/infiniband/mlx5_9: dangling link, skipped",
      root +
          "/class/infiniband/mlx5_0/ports/1/rate: cannot parse 'fast' (expected 'N Gb/sec "
          "(WX SPEED)')",
      root + "/class/infiniband/mlx5_0/ports/1/lid: cannot parse '12' (expected a hex LID)",
      root + "/class/infiniband/mlx5_0/ports/1/sm_lid: cannot parse '' (expected a hex LID)"};
  EXPECT_EQ(expected, h.warnings);
}

// A file that is there but is no attribute (a FIFO, a directory, 64 KiB of padding) is said,
// with its path, and not shown as missing without a word.
TEST(Inventory, UnreadableAttributesAreWarned)
{
  test::TempDir dir;
  fs::copy(k_fixtures / "hdr-2hca", dir.path(),
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const fs::path dev = fs::canonical(dir.path() / "class" / "infiniband" / "mlx5_0");
  fs::remove(dev / "fw_ver");
  ASSERT_EQ(0, mkfifo((dev / "fw_ver").c_str(), 0600));
  fs::remove(dev / "ports" / "1" / "rate");
  fs::create_directory(dev / "ports" / "1" / "rate");
  std::ofstream(dev / "board_id") << std::string(70000, 'x');
  fs::remove(dev / "ports" / "1" / "pkeys" / "1");
  fs::create_directory(dev / "ports" / "1" / "pkeys" / "1");
  Options o;
  o.sysfs_root = dir.path().string();
  const Host h = inspect(o);
  const Device& d = h.devices.at(0);
  EXPECT_FALSE(d.fw_ver);
  EXPECT_FALSE(d.board_id);
  EXPECT_FALSE(port_of(h, "mlx5_0", 1).rate_gbps);
  const std::string at = o.sysfs_root + "/class/infiniband/mlx5_0/";
  const std::vector<std::string> expected = {
      at + "fw_ver: cannot read: not a regular file",
      at + "board_id: cannot read: larger than 64 KiB, so not a kernel attribute",
      at + "ports/1/rate: cannot read: not a regular file",
      at + "ports/1/pkeys/1: cannot read: not a regular file"};
  EXPECT_EQ(expected, h.warnings);
  // The other card reads as before.
  EXPECT_EQ("20.31.1014", h.devices.at(1).fw_ver.value_or("none"));
}

TEST(Inventory, CountersOnlyWhenAsked)
{
  Options o;
  o.sysfs_root = (k_fixtures / "hdr-2hca").string();
  o.counters = true;
  const Host h = inspect(o);
  EXPECT_EQ(0U, port_of(h, "mlx5_0", 1).counters.at("symbol_error"));
  EXPECT_EQ(17U, port_of(h, "mlx5_0", 1).counters.size());
}

TEST(Inventory, MissingRootIsAnEnvironmentError)
{
  Options o;
  o.sysfs_root = "/nonexistent/sys";
  EXPECT_THROW(inspect(o), EnvironmentError);
}

TEST(Inventory, EmptyRootHasNoDevices)
{
  test::TempDir dir;
  Options o;
  o.sysfs_root = dir.path().string();
  const Host h = inspect(o);
  EXPECT_TRUE(h.devices.empty());
  EXPECT_TRUE(h.netdevs.empty());
}

TEST(SysfsReader, NeverLeavesTheRoot)
{
  test::TempDir dir;
  const fs::path root = dir.path() / "sys";
  fs::create_directories(root / "class" / "infiniband");
  fs::create_directories(dir.path() / "outside");
  std::ofstream(dir.path() / "outside" / "secret") << "42\n";
  fs::create_symlink("../../../outside", root / "class" / "infiniband" / "evil");
  fs::create_symlink("/etc", root / "class" / "abs");
  std::ofstream(root / "class" / "plain") << "ok\n";
  fs::create_symlink("plain", root / "class" / "link-to-plain");
  SysfsReader r(root.string());
  EXPECT_FALSE(r.resolve("class/infiniband/evil"));
  EXPECT_FALSE(r.read("class/infiniband/evil/secret"));
  EXPECT_FALSE(r.read("class/abs/hostname"));
  EXPECT_EQ("ok", *r.read("class/plain"));
  EXPECT_FALSE(r.read("class/link-to-plain"));  // attributes are never links
  EXPECT_TRUE(r.list("class/infiniband/evil").empty());
}

TEST(SysfsReader, SymlinkLoopsEnd)
{
  test::TempDir dir;
  fs::create_directories(dir.path() / "class");
  fs::create_symlink("b", dir.path() / "class" / "a");
  fs::create_symlink("a", dir.path() / "class" / "b");
  SysfsReader r(dir.path().string());
  EXPECT_FALSE(r.resolve("class/a/x"));
  EXPECT_FALSE(r.read("class/a/x"));
}

// A device directory is reached through class/infiniband, class/net and device links alike;
// its directories are looked up once, whatever link led there. Once a reader has seen a
// directory it keeps that view, so a directory swapped for a link afterwards still resolves as
// the directory for that reader (a second lstat would have refused the link, which leaves the
// root), and is still never read through the link.
TEST(SysfsReader, LinksToOneDeviceShareItsLookups)
{
  test::TempDir dir;
  const fs::path root = dir.path() / "sys";
  fs::create_directories(root / "devices" / "pci" / "dev");
  fs::create_directories(root / "class" / "infiniband");
  fs::create_directories(root / "class" / "net");
  fs::create_directories(dir.path() / "outside");
  fs::create_symlink("../../devices/pci/dev", root / "class" / "infiniband" / "mlx5_0");
  fs::create_symlink("./../.././devices/pci/dev", root / "class" / "net" / "ib0");
  SysfsReader r(root.string());
  ASSERT_EQ("devices/pci/dev", r.resolve("class/infiniband/mlx5_0").value_or("none"));
  fs::rename(root / "devices" / "pci" / "dev", root / "devices" / "pci" / "dev.old");
  fs::create_symlink("../../../outside", root / "devices" / "pci" / "dev");
  EXPECT_EQ("devices/pci/dev", r.resolve("class/net/ib0").value_or("none"));
  std::ofstream(dir.path() / "outside" / "mtu") << "2044\n";
  EXPECT_FALSE(r.read("class/net/ib0/mtu"));
  SysfsReader fresh(root.string());
  EXPECT_FALSE(fresh.resolve("class/net/ib0"));
}

// Only a link target's leading ".." components are taken off the link's directory as text; a
// ".." after a component that is itself a link leaves that link's target.
TEST(SysfsReader, DotDotAfterALinkLeavesItsTarget)
{
  test::TempDir dir;
  const fs::path& root = dir.path();
  fs::create_directories(root / "a" / "b");
  fs::create_directories(root / "a" / "q");
  fs::create_directories(root / "q");
  fs::create_directories(root / "class");
  fs::create_symlink("a/b", root / "p");
  fs::create_symlink("../p/../q", root / "class" / "l");
  fs::create_symlink("..", root / "class" / "up");
  fs::create_symlink("../..", root / "class" / "above");
  fs::create_symlink("./../", root / "class" / "dot-up-slash");
  fs::create_symlink("/sys/a/q", root / "class" / "absolute");
  fs::create_symlink(".././a/./b/..//q", root / "class" / "mixed");
  SysfsReader r(root.string());
  EXPECT_EQ("a/q", r.resolve("class/l").value_or("none"));
  EXPECT_EQ("", r.resolve("class/up").value_or("none"));
  EXPECT_FALSE(r.resolve("class/above"));
  EXPECT_EQ("", r.resolve("class/dot-up-slash").value_or("none"));
  EXPECT_EQ("a/q", r.resolve("class/absolute").value_or("none"));  // "/sys/" is the root
  EXPECT_EQ("a/q", r.resolve("class/mixed").value_or("none"));
}

// A resolution that runs out of its link budget fails, and a path it passed through on the way
// still resolves on its own: the failure is not kept under the path every name shares.
TEST(SysfsReader, RunningOutOfLinksSpoilsNoOtherName)
{
  test::TempDir dir;
  const fs::path& root = dir.path();
  fs::create_directories(root / "class");
  fs::create_directories(root / "real" / "e");
  fs::create_symlink("real", root / "d");
  // class/c0 -> c1 -> ... -> c39 -> ../d/e: 40 links to reach d, itself the 41st.
  for (int i = 0; i < 39; ++i) {
    fs::create_symlink("c" + std::to_string(i + 1), root / "class" / ("c" + std::to_string(i)));
  }
  fs::create_symlink("../d/e", root / "class" / "c39");
  SysfsReader r(root.string());
  EXPECT_FALSE(r.resolve("class/c0"));
  EXPECT_EQ("real/e", r.resolve("d/e").value_or("none"));
  EXPECT_EQ("real/e", r.resolve("class/c1").value_or("none"));  // 39 links and d: in budget
}

// A directory of more entries than one getdents64 buffer holds is listed whole, sorted.
TEST(SysfsReader, ListsLargeDirectoriesWhole)
{
  test::TempDir dir;
  const fs::path d = dir.path() / "class" / "big";
  fs::create_directories(d);
  constexpr int k_entries = 300;  // about 12 KiB of records
  for (int i = 0; i < k_entries; ++i) {
    std::ofstream(d / ("entry-with-a-longer-name-" + std::to_string(1000 + i)));
  }
  SysfsReader r(dir.path().string());
  const auto names = r.list("class/big");
  ASSERT_EQ(static_cast<size_t>(k_entries), names.size());
  EXPECT_EQ("entry-with-a-longer-name-1000", names.front());
  EXPECT_EQ("entry-with-a-longer-name-1299", names.back());
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_TRUE(r.list("class/missing").empty());
}

using test::DescriptorLimit;

// The smallest descriptor limit that leaves exactly `spare` numbers free below it (the limit
// bounds descriptor numbers, and inherited descriptors leave gaps).
rlim_t limit_with_spare(int spare)
{
  int free_below = 0;
  int limit = 0;
  while (free_below < spare) {
    if (fcntl(limit, F_GETFD) < 0) {
      ++free_below;
    }
    ++limit;
  }
  return static_cast<rlim_t>(limit);
}

size_t open_descriptors()
{
  return static_cast<size_t>(
      std::distance(fs::directory_iterator("/proc/self/fd"), fs::directory_iterator()));
}

// More directories than the reader keeps descriptors for: every value still comes from its own
// file, in any order, and no descriptor outlives the reader.
TEST(SysfsReader, ManyDirectoriesRecycleDescriptors)
{
  test::TempDir dir;
  constexpr int k_dirs = 300;
  for (int i = 0; i < k_dirs; ++i) {
    const fs::path d = dir.path() / "class" / "x" / ("d" + std::to_string(i));
    fs::create_directories(d);
    std::ofstream(d / "v") << i << "\n";
  }
  const size_t before = open_descriptors();
  {
    SysfsReader r(dir.path().string());
    for (int pass = 0; pass < 2; ++pass) {
      for (int k = 0; k < k_dirs; ++k) {
        const int i = pass == 0 ? k : k_dirs - 1 - k;
        const auto v = r.read("class/x/d" + std::to_string(i) + "/v");
        ASSERT_TRUE(v) << i;
        EXPECT_EQ(std::to_string(i), *v);
      }
    }
    // At most 64 cached directories and 32 attributes waiting for their batched close.
    EXPECT_LE(open_descriptors(), before + 64 + 32);
  }
  EXPECT_EQ(before, open_descriptors());
  // With two spare descriptors (a directory and its attribute) the reader gives back its
  // cached directories whenever it runs out, and still reads every value.
  SysfsReader r(dir.path().string());
  const DescriptorLimit limit(limit_with_spare(2));
  for (int i = 0; i < k_dirs; i += 7) {
    EXPECT_EQ(std::to_string(i), r.read("class/x/d" + std::to_string(i) + "/v").value_or("?"));
  }
}

// A low descriptor limit (threads share it) still gives the same inventory; none at all is an
// error, never an inventory with values silently missing.
TEST(Inventory, LowDescriptorLimit)
{
  const std::string full = host_to_json(inspect_fixture("hdr-2hca"));
  {
    const DescriptorLimit limit(limit_with_spare(16));
    EXPECT_EQ(full, host_to_json(inspect_fixture("hdr-2hca")));
  }
  {
    const DescriptorLimit limit(0);
    EXPECT_THROW(inspect_fixture("hdr-2hca"), EnvironmentError);
  }
  EXPECT_EQ(full, host_to_json(inspect_fixture("hdr-2hca")));
}

// The library leaves the reader threads on the process's table unless its program says
// otherwise; either way the inventory is the same and no descriptor is left behind. (Whether
// readers run at all depends on the free CPUs: OwnDescriptorTable tests the copy itself.)
TEST(Inventory, PrivateReaderTablesChangeNothingButTheTables)
{
  ASSERT_FALSE(private_reader_tables()) << "the library default is the shared table";
  const size_t before = open_descriptors();
  const std::string shared = host_to_json(inspect_fixture("hdr-2hca"));
  std::string own;
  {
    struct Switch {  // off again even when inspect throws, for the tests that follow
      Switch() { set_private_reader_tables(true); }
      ~Switch() { set_private_reader_tables(false); }
      Switch(const Switch&) = delete;
      Switch& operator=(const Switch&) = delete;
    } on;
    own = host_to_json(inspect_fixture("hdr-2hca"));
  }
  EXPECT_FALSE(private_reader_tables());
  EXPECT_EQ(shared, own);
  EXPECT_EQ(before, open_descriptors());
}

// mlx5_0's PCI function in the hdr-2hca tree.
const char* const k_mlx5_0_pci = "devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0";

// A copy of the hdr-2hca tree in tmp, to be made hostile.
fs::path copy_of_hdr_2hca(const test::TempDir& tmp)
{
  const fs::path root = tmp.path() / "tree";
  fs::copy(k_fixtures / "hdr-2hca", root,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  return root;
}

}  // namespace

// A captured tree is anyone's: links that make the reader read one directory again, values of
// 64 KiB and a warning per file must neither multiply the work nor fill memory. One extra
// link to a device read it again with every port (about 520 MB of warnings a link with 64 KiB
// values and ports 3 to 255 linked to port 1).
TEST(Inventory, CapturedTreeCannotMultiplyItsReads)
{
  test::TempDir tmp;
  const fs::path root = copy_of_hdr_2hca(tmp);
  const fs::path dev0 = root / k_mlx5_0_pci;
  const fs::path port1 = dev0 / "infiniband/mlx5_0/ports/1";
  // Listed before mlx5_0, yet mlx5_0 (the directory's own name) is the one read.
  fs::create_symlink("../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/infiniband/mlx5_0",
                     root / "class/infiniband/again");
  fs::create_symlink("1", port1.parent_path() / "2");
  // And the other way round on mlx5_1: its real port directory is 2, ports/1 links to it.
  const fs::path ports1 =
      root / "devices/pci0000:85/0000:85:00.0/0000:86:00.0/infiniband/mlx5_1/ports";
  fs::rename(ports1 / "1", ports1 / "2");
  fs::create_symlink("2", ports1 / "1");
  std::ofstream(port1 / "lid") << std::string(65535, 'A');
  for (int i = 0; i < 300; ++i) {
    std::ofstream(port1 / "pkeys" / std::to_string(i)) << "zz\n";
  }
  // 250 names the kernel never gives a port, a warning each.
  for (int i = 1; i <= 250; ++i) {
    fs::create_directories(ports1 / ("0" + std::to_string(1000 + i)));
  }

  Options o;
  o.sysfs_root = root.string();
  const Host h = inspect(o);
  ASSERT_EQ(2U, h.devices.size());
  EXPECT_EQ("mlx5_0", h.devices[0].name);
  ASSERT_EQ(1U, h.devices[0].ports.size());
  EXPECT_EQ(1, h.devices[0].ports[0].port);
  const auto has = [&h](const std::string& text) {
    return std::any_of(h.warnings.begin(), h.warnings.end(),
                       [&text](const std::string& w) { return w.find(text) != std::string::npos; });
  };
  EXPECT_TRUE(has("/class/infiniband/again: the same device as mlx5_0, skipped"));
  EXPECT_TRUE(has("/class/infiniband/mlx5_0/ports/2: the directory of port 1; left out"));
  EXPECT_TRUE(has("/class/infiniband/mlx5_1/ports/1: the directory of port 2; left out"));
  ASSERT_EQ(1U, h.devices[1].ports.size());
  EXPECT_EQ(2, h.devices[1].ports[0].port);
  EXPECT_TRUE(has("/class/infiniband/mlx5_0/ports/1/lid: cannot parse 'AAAA"));
  EXPECT_TRUE(has("... (65535 bytes)' (expected a hex LID)"));
  // One malformed P_Key entry is quoted and the other 299 counted.
  EXPECT_TRUE(has("/class/infiniband/mlx5_0/ports/1/pkeys/0: cannot parse 'zz' (expected 0xNNNN)"));
  EXPECT_TRUE(has("/class/infiniband/mlx5_0/ports/1/pkeys: 299 more entries that are not 0xNNNN"));
  // With the 250 port names: the first 200 warnings, then how many more.
  ASSERT_EQ(201U, h.warnings.size());
  EXPECT_NE(std::string::npos, h.warnings.back().find(" more warnings left out"));
  for (const auto& w : h.warnings) {
    EXPECT_LT(w.size(), 400U) << w.substr(0, 200);
  }
}

// The dev_port of a netdev past any port is said, not added to (a signed overflow at
// 2147483647).
TEST(Inventory, DevPortPastAnyPortIsWarned)
{
  test::TempDir tmp;
  const fs::path root = copy_of_hdr_2hca(tmp);
  const fs::path dev0 = root / k_mlx5_0_pci;
  const fs::path eth = dev0 / "net/eth9";
  fs::create_directories(eth);
  std::ofstream(eth / "type") << "1\n";
  std::ofstream(eth / "dev_port") << "2147483647\n";
  fs::create_symlink("../../../0000:3b:00.0", eth / "device");
  fs::create_symlink("../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/net/eth9",
                     root / "class/net/eth9");
  Options o;
  o.sysfs_root = root.string();
  const Host h = inspect(o);
  // Bound to no port, an Ethernet netdev is not kept.
  EXPECT_TRUE(std::none_of(h.netdevs.begin(), h.netdevs.end(),
                           [](const Netdev& n) { return n.name == "eth9"; }));
  const std::string want = root.string() +
                           "/class/net/eth9/dev_port: port index 2147483647 not 0 to 254; not "
                           "bound to a port";
  EXPECT_NE(h.warnings.end(), std::find(h.warnings.begin(), h.warnings.end(), want));
}
