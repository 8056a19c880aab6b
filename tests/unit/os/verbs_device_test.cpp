#include "os/sysfs.hpp"
#include "os/verbs_device.hpp"
#include "test_util.hpp"

#include <algorithm>
#include <cerrno>
#include <filesystem>

#include "gtest_compat.hpp"

using namespace ibsetup;
namespace fs = std::filesystem;

namespace {

// A sysfs fixture copied with bus/pci/devices/<bdf> links as the kernel makes them (relative,
// into devices/); the fixtures themselves only carry class/ and devices/.
void copy_with_pci_bus(const std::string& fixture, const fs::path& to,
                       const std::vector<std::string>& functions)
{
  const fs::path from = fs::path(IBSETUP_FIXTURES) / "sysfs" / fixture;
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  fs::create_directories(to / "bus" / "pci" / "devices");
  for (const auto& f : functions) {
    fs::create_directory_symlink(fs::path("../../../devices/pci0000:3a/0000:3a:00.0") / f,
                                 to / "bus" / "pci" / "devices" / f);
  }
}

TEST(VerbsDevice, DeviceAtPciOnAFixtureTree)
{
  const test::TempDir dir;
  copy_with_pci_bus("cx6-dual-function", dir.path(), {"0000:3b:00.0", "0000:3b:00.1"});
  const inventory::SysfsReader sysfs(dir.path().string());
  EXPECT_EQ("mlx5_0", os::device_at_pci(sysfs, "0000:3b:00.0"));
  EXPECT_EQ("mlx5_1", os::device_at_pci(sysfs, "0000:3b:00.1"));
  EXPECT_EQ("", os::device_at_pci(sysfs, "0000:5e:00.0"));
}

TEST(VerbsDevice, DeviceAtPciIsTheFirstNameInOrder)
{
  const test::TempDir dir;
  const fs::path ib = dir.path() / "devices" / "pci0000:00" / "0000:00:02.0" / "infiniband";
  fs::create_directories(ib / "mlx5_9");
  fs::create_directories(ib / "mlx5_10");
  fs::create_directories(dir.path() / "bus" / "pci" / "devices");
  fs::create_directory_symlink("../../../devices/pci0000:00/0000:00:02.0",
                               dir.path() / "bus" / "pci" / "devices" / "0000:00:02.0");
  const inventory::SysfsReader sysfs(dir.path().string());
  EXPECT_EQ("mlx5_10", os::device_at_pci(sysfs, "0000:00:02.0"));
}

// The sysfs reader's rooting holds: a PCI link that leaves the tree names no device, even when
// its target has one.
TEST(VerbsDevice, DeviceAtPciStaysInsideTheRoot)
{
  const test::TempDir outside;
  fs::create_directories(outside.path() / "infiniband" / "mlx5_0");
  const test::TempDir dir;
  fs::create_directories(dir.path() / "bus" / "pci" / "devices");
  fs::create_directory_symlink(outside.path(),
                               dir.path() / "bus" / "pci" / "devices" / "0000:00:02.0");
  const inventory::SysfsReader sysfs(dir.path().string());
  EXPECT_EQ("", os::device_at_pci(sysfs, "0000:00:02.0"));
  EXPECT_EQ("", os::device_at_pci(sysfs, "../../../.."));
}

TEST(VerbsDevice, DeviceDirPresent)
{
  const test::TempDir dir;
  EXPECT_TRUE(os::device_dir_present(dir.path().string()));
  EXPECT_FALSE(os::device_dir_present((dir.path() / "infiniband").string()));
  fs::create_directory_symlink(dir.path() / "nowhere", dir.path() / "dangling");
  EXPECT_FALSE(os::device_dir_present((dir.path() / "dangling").string()));
}

// The real libibverbs on this host, with a name no device has: listing succeeds or reports an
// errno, and the unknown device neither opens nor queries.
TEST(VerbsDevice, UnknownDeviceDoesNotOpen)
{
  const auto devices = os::make_verbs_devices();
  const os::VerbsDeviceList& list = devices->list();
  if (list.error == 0) {
    EXPECT_EQ(list.names.end(),
              std::find(list.names.begin(), list.names.end(), "ibsetup_no_such_device"));
  } else {
    EXPECT_TRUE(list.names.empty());
  }
  EXPECT_EQ(&list, &devices->list());  // listed once
  EXPECT_EQ(ENODEV, devices->open("ibsetup_no_such_device"));
  EXPECT_EQ(ENODEV, devices->open("ibsetup_no_such_device"));
  EXPECT_EQ(ENODEV, devices->query_port("ibsetup_no_such_device", 1).error);
  EXPECT_EQ(ENODEV, devices->port_count("ibsetup_no_such_device").error);
}

}  // namespace
