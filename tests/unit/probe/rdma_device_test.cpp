// rdma.device through a fake device-access seam: every outcome of listing, opening and querying
// that the QEMU test (one healthy Soft-RoCE device) cannot produce.
#include "os/verbs_device.hpp"
#include "probe/rdma_checks.hpp"
#include "test_util.hpp"

#include <ibsetup/profile.hpp>

#include <cerrno>
#include <filesystem>
#include <map>

#include "gtest_compat.hpp"

using namespace ibsetup;
using namespace ibsetup::check;
namespace fs = std::filesystem;

namespace {

// mlx5_0 ports 1 and 2, the HCA at 0000:5e:00.0 (every port), mlx5_1 port 1.
const char* const k_cluster = R"(version: 1
nodes:
  - hosts: cn1
    hcas:
      - device: mlx5_0
        ports: [{port: 1}, {port: 2}]
      - pci: "0000:5e:00.0"
    interfaces:
      - name: ib1
        device: mlx5_1
        port: 1
        ipv4: 10.11.0.0/16
)";

class FakeVerbs : public os::VerbsDevices {
public:
  os::VerbsDeviceList devices;
  std::map<std::string, int> open_errors;
  std::map<std::string, os::VerbsPortCount> counts;
  std::map<std::pair<std::string, int>, os::VerbsPort> ports;
  std::vector<std::string> opened;

  const os::VerbsDeviceList& list() override { return devices; }
  int open(const std::string& device) override
  {
    opened.push_back(device);
    const auto it = open_errors.find(device);
    return it == open_errors.end() ? 0 : it->second;
  }
  os::VerbsPortCount port_count(const std::string& device) override { return counts[device]; }
  os::VerbsPort query_port(const std::string& device, int port) override
  {
    return ports[{device, port}];
  }
};

os::VerbsPort port(os::VerbsPortState state, os::VerbsLinkLayer link_layer)
{
  os::VerbsPort p;
  p.state = state;
  p.link_layer = link_layer;
  return p;
}

class RdmaDevice : public ::testing::Test {
protected:
  RdmaDevice()
  {
    // /dev/infiniband stands in as an existing directory; the PCI function holds mlx5_2.
    m_options.dev_dir = m_dir.path().string();
    m_options.sysfs_root = (m_dir.path() / "sys").string();
    const fs::path pci = m_dir.path() / "sys" / "devices" / "pci0000:5d" / "0000:5d:00.0";
    fs::create_directories(pci / "0000:5e:00.0" / "infiniband" / "mlx5_2");
    fs::create_directories(m_dir.path() / "sys" / "bus" / "pci" / "devices");
    fs::create_directory_symlink("../../../devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0",
                                 m_dir.path() / "sys" / "bus" / "pci" / "devices" / "0000:5e:00.0");
  }

  std::vector<Result> run(FakeVerbs& verbs) const
  {
    const auto node = profile::resolve_node(profile::load_profile_text(k_cluster, "c.yaml"), "cn1");
    return rdma::device_checks(node, m_options, verbs);
  }

  test::TempDir m_dir;
  RdmaOptions m_options;
};

TEST_F(RdmaDevice, EachPortOpensAndQueries)
{
  FakeVerbs v;
  v.devices.names = {"mlx5_0", "mlx5_2"};
  v.ports[{"mlx5_0", 1}] = port(os::VerbsPortState::active, os::VerbsLinkLayer::infiniband);
  v.ports[{"mlx5_0", 2}] = port(os::VerbsPortState::down, os::VerbsLinkLayer::ethernet);
  v.counts["mlx5_2"] = os::VerbsPortCount{0, 2};
  v.ports[{"mlx5_2", 1}] = port(os::VerbsPortState::active, os::VerbsLinkLayer::ethernet);
  v.ports[{"mlx5_2", 2}] = port(os::VerbsPortState::init, os::VerbsLinkLayer::unknown);
  const auto r = run(v);
  ASSERT_EQ(5U, r.size());
  for (const auto& x : r) {
    EXPECT_EQ("rdma.device", x.id);
    EXPECT_EQ("opens; port queries", x.expected);
  }
  EXPECT_EQ(Status::pass, r[0].status);
  EXPECT_EQ("mlx5_0/1", r[0].subject);
  EXPECT_EQ("port ACTIVE, link layer InfiniBand", r[0].observed);
  EXPECT_EQ("mlx5_0/1: opens; port ACTIVE", r[0].message);
  EXPECT_EQ(Status::warn, r[1].status);
  EXPECT_EQ("port DOWN, link layer Ethernet", r[1].observed);
  EXPECT_EQ("mlx5_0/2: opens, but the port is DOWN: no RDMA traffic can pass", r[1].message);
  // Declared by PCI address without ports: the device sysfs names there, every port of it.
  EXPECT_EQ("mlx5_2/1", r[2].subject);
  EXPECT_EQ(Status::pass, r[2].status);
  EXPECT_EQ("mlx5_2/2", r[3].subject);
  EXPECT_EQ(Status::warn, r[3].status);
  EXPECT_EQ("port INIT, link layer Unknown", r[3].observed);
  EXPECT_EQ(Status::fail, r[4].status);
  EXPECT_EQ("mlx5_1/1", r[4].subject);
  EXPECT_EQ("no such device (have: mlx5_0, mlx5_2)", r[4].observed);
  EXPECT_EQ("mlx5_1/1: no such RDMA device (this host has: mlx5_0, mlx5_2)", r[4].message);
  EXPECT_EQ((std::vector<std::string>{"mlx5_0", "mlx5_0", "mlx5_2"}), v.opened);
}

TEST_F(RdmaDevice, ListingFailsForEveryPortAndAnEmptyPciFunctionHasNoDevice)
{
  fs::remove_all(m_dir.path() / "sys" / "devices" / "pci0000:5d" / "0000:5d:00.0" / "0000:5e:00.0" /
                 "infiniband");
  FakeVerbs v;
  v.devices.error = EACCES;
  const auto r = run(v);
  ASSERT_EQ(4U, r.size());
  EXPECT_EQ("mlx5_0/1: cannot list RDMA devices: Permission denied", r[0].message);
  EXPECT_EQ("ibv_get_device_list: Permission denied", r[0].observed);
  EXPECT_EQ("mlx5_0/2", r[1].subject);
  EXPECT_EQ(Status::fail, r[1].status);
  EXPECT_EQ("0000:5e:00.0: no RDMA device at this PCI address", r[2].message);
  EXPECT_EQ("no RDMA device", r[2].observed);
  EXPECT_EQ(Status::fail, r[2].status);
  EXPECT_EQ("mlx5_1/1: cannot list RDMA devices: Permission denied", r[3].message);
  EXPECT_TRUE(v.opened.empty());
}

TEST_F(RdmaDevice, OpenAndQueryFailuresNameTheCall)
{
  FakeVerbs v;
  v.devices.names = {"mlx5_0", "mlx5_1", "mlx5_2"};
  v.ports[{"mlx5_0", 1}].error = EIO;
  v.ports[{"mlx5_0", 2}] = port(os::VerbsPortState::active, os::VerbsLinkLayer::infiniband);
  v.counts["mlx5_2"] = os::VerbsPortCount{ENOMEM, 0};
  v.open_errors["mlx5_1"] = EPERM;
  const auto r = run(v);
  ASSERT_EQ(4U, r.size());
  EXPECT_EQ(Status::fail, r[0].status);
  EXPECT_EQ("ibv_query_port: Input/output error", r[0].observed);
  EXPECT_EQ("mlx5_0/1: opens, but ibv_query_port failed: Input/output error", r[0].message);
  EXPECT_EQ(Status::pass, r[1].status);
  EXPECT_EQ(Status::fail, r[2].status);
  EXPECT_EQ("mlx5_2", r[2].subject);
  EXPECT_EQ("ibv_query_device: Cannot allocate memory", r[2].observed);
  EXPECT_EQ("mlx5_2: opens, but ibv_query_device failed: Cannot allocate memory", r[2].message);
  EXPECT_EQ("mlx5_1/1: cannot open: Operation not permitted", r[3].message);
  EXPECT_EQ("ibv_open_device: Operation not permitted", r[3].observed);
}

TEST_F(RdmaDevice, NoDeviceDirectorySkipsWithoutTouchingTheLibrary)
{
  m_options.dev_dir = (m_dir.path() / "infiniband").string();
  FakeVerbs v;
  v.devices.error = EACCES;
  const auto r = run(v);
  ASSERT_EQ(4U, r.size());
  EXPECT_EQ(Status::skip, r[2].status);
  EXPECT_EQ("0000:5e:00.0: no " + m_options.dev_dir +
                " on this host (ib_uverbs not loaded?): not checked",
            r[2].message);
  EXPECT_TRUE(v.opened.empty());
}

}  // namespace
