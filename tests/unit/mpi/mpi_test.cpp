// The mpi check group: every branch of mpi.memlock, mpi.devices, mpi.modules and mpi.reg_mr,
// with temp sysfs and /dev trees and the limit, stat and registration seams. The QEMU test
// (tests/qemu/guest_mpi.sh) runs the same checks on a real kernel RDMA stack.
#include "check/mpi.hpp"
#include "test_util.hpp"

#include <ibsetup/inventory.hpp>
#include <ibsetup/profile.hpp>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>

#include "gtest_compat.hpp"

using namespace ibsetup;
using namespace ibsetup::check;
namespace fs = std::filesystem;

namespace {

constexpr uint64_t k_kib = 1024;
constexpr uint64_t k_mib = 1024 * 1024;

// mlx5_0 by name, the HCA at 0000:5e:00.0 (mlx5_1 in the trees below), and ib0 on mlx5_0.
profile::ResolvedNode node_with_ipoib()
{
  const auto p = profile::load_profile_text(R"(version: 1
nodes:
  - hosts: cn1
    hcas:
      - device: mlx5_0
        ports: [{port: 1}]
      - pci: "0000:5e:00.0"
    interfaces:
      - {name: ib0, device: mlx5_0, port: 1, ipv4: 10.1.0.0/16}
)",
                                            "mpi.yaml");
  return profile::resolve_node(p, "cn1");
}

void write(const fs::path& path, const std::string& text)
{
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text << "\n";
}

// A sysfs tree with mlx5_0 -> uverbs0 (class/infiniband_verbs/uverbsN/ibdev), mlx5_1 at
// 0000:5e:00.0 -> uverbs1 (only under its PCI device, as on old kernels), and the modules given.
fs::path make_sysfs(const fs::path& root, const std::vector<std::string>& modules)
{
  write(root / "class/infiniband_verbs/uverbs0/ibdev", "mlx5_0");
  write(root / "class/infiniband_verbs/abi_version", "6");
  const fs::path pci = root / "devices/pci0000:5d/0000:5e:00.0";
  fs::create_directories(pci / "infiniband/mlx5_1");
  fs::create_directories(pci / "infiniband_verbs/uverbs1");
  fs::create_directories(root / "bus/pci/devices");
  fs::create_directory_symlink("../../../devices/pci0000:5d/0000:5e:00.0",
                               root / "bus/pci/devices/0000:5e:00.0");
  fs::create_directories(root / "class/infiniband");
  fs::create_directory_symlink("../../devices/pci0000:5d/0000:5e:00.0/infiniband/mlx5_1",
                               root / "class/infiniband/mlx5_1");
  fs::create_directory_symlink("../..", pci / "infiniband/mlx5_1/device");
  for (const auto& m : modules) {
    fs::create_directories(root / "module" / m);
  }
  return root;
}

mpi::FileInfo char_device(mode_t mode, gid_t gid, const std::string& group)
{
  mpi::FileInfo f;
  f.is_char = true;
  f.mode = mode;
  f.gid = gid;
  f.group = group;
  return f;
}

const std::vector<std::string> k_all_modules = {"ib_uverbs", "rdma_ucm", "ib_umad", "ib_ipoib"};

// ---------------------------------------------------------------------------------------------
// mpi.memlock
// ---------------------------------------------------------------------------------------------

TEST(MpiMemlock, UnlimitedPassesWithoutAValue)
{
  const auto r = mpi::memlock_result({0, true, 0}, std::nullopt);
  EXPECT_EQ(r.id, "mpi.memlock");
  EXPECT_EQ(r.subject, "memlock");
  EXPECT_EQ(r.status, Status::pass);
  EXPECT_EQ(r.observed, "unlimited");
  EXPECT_EQ(r.expected, "unlimited");
  EXPECT_EQ(r.message, "memlock: RLIMIT_MEMLOCK unlimited");
  EXPECT_FALSE(r.value.has_value());
}

TEST(MpiMemlock, ALimitFailsWithWhereItComesFromAndTheFix)
{
  const auto r = mpi::memlock_result({0, false, 64 * k_kib}, std::nullopt);
  EXPECT_EQ(r.status, Status::fail);
  EXPECT_EQ(r.observed, "64 KiB");
  ASSERT_TRUE(r.value.has_value());
  EXPECT_EQ(*r.value, 64);
  EXPECT_EQ(r.unit, "KiB");
  EXPECT_EQ(r.message.find('\n'), std::string::npos);
  EXPECT_EQ(r.message.rfind("memlock: RLIMIT_MEMLOCK 64 KiB, expected unlimited: ", 0), 0U)
      << r.message;
  EXPECT_NE(r.message.find("LimitMEMLOCK=infinity"), std::string::npos);
  EXPECT_NE(r.message.find("PropagateResourceLimitsExcept=MEMLOCK"), std::string::npos);
  EXPECT_NE(r.message.find("'* - memlock unlimited' in /etc/security/limits.d/*.conf"),
            std::string::npos);
}

TEST(MpiMemlock, AsRootTheHintIsNotLimitsD)
{
  mpi::Memlock limit{0, false, 64 * k_kib};
  limit.root = true;
  const auto r = mpi::memlock_result(limit, std::nullopt);
  EXPECT_EQ(r.status, Status::fail);
  EXPECT_EQ(r.message.rfind("memlock: RLIMIT_MEMLOCK 64 KiB, expected unlimited: this check "
                            "runs as root",
                            0),
            0U)
      << r.message;
  EXPECT_NE(r.message.find("not the jobs'"), std::string::npos);
  EXPECT_NE(r.message.find("HealthCheckProgram"), std::string::npos);
  EXPECT_NE(r.message.find("LimitMEMLOCK"), std::string::npos);
  EXPECT_NE(r.message.find("disable mpi.memlock"), std::string::npos);
  // The limits.d line would not change a root process's limit.
  EXPECT_EQ(r.message.find("limits.d"), std::string::npos);
  // Unlimited or enough passes as root too.
  limit.unlimited = true;
  EXPECT_EQ(mpi::memlock_result(limit, std::nullopt).status, Status::pass);
}

TEST(MpiMemlock, AProfileMinimumIsEnough)
{
  const auto ok = mpi::memlock_result({0, false, 2 * 1024 * k_kib}, 1024);
  EXPECT_EQ(ok.status, Status::pass);
  EXPECT_EQ(ok.expected, "unlimited or at least 1 MiB");
  EXPECT_EQ(ok.message, "memlock: RLIMIT_MEMLOCK 2 MiB (profile minimum 1 MiB)");
  EXPECT_EQ(*ok.value, 2048);
  const auto exact = mpi::memlock_result({0, false, 1024 * k_kib}, 1024);
  EXPECT_EQ(exact.status, Status::pass);
  const auto low = mpi::memlock_result({0, false, 64 * k_kib}, 1024);
  EXPECT_EQ(low.status, Status::fail);
  EXPECT_EQ(low.message.rfind("memlock: RLIMIT_MEMLOCK 64 KiB, expected unlimited or at least "
                              "1 MiB: ",
                              0),
            0U)
      << low.message;
  EXPECT_EQ(mpi::memlock_result({0, true, 0}, 1024).status, Status::pass);
}

TEST(MpiMemlock, AnUnreadableLimitFails)
{
  const auto r = mpi::memlock_result({EPERM, false, 0}, std::nullopt);
  EXPECT_EQ(r.status, Status::fail);
  EXPECT_EQ(r.message, "memlock: cannot read RLIMIT_MEMLOCK: Operation not permitted");
}

TEST(MpiMemlock, LimitText)
{
  EXPECT_EQ(mpi::limit_text({0, false, 65536}), "64 KiB");
  EXPECT_EQ(mpi::limit_text({0, false, 8 * k_mib}), "8 MiB");
  EXPECT_EQ(mpi::limit_text({0, false, 1000}), "1000 bytes");
  EXPECT_EQ(mpi::limit_text({0, false, 0}), "0 KiB");
  EXPECT_EQ(mpi::limit_text({0, true, 0}), "unlimited");
}

// ---------------------------------------------------------------------------------------------
// mpi.devices
// ---------------------------------------------------------------------------------------------

TEST(MpiDevices, EveryUserOrANamedGroupPasses)
{
  const auto all = mpi::device_file_result("mlx5_0", "/dev/infiniband/uverbs0",
                                           char_device(0666, 0, "root"), "ib_uverbs");
  EXPECT_EQ(all.status, Status::pass);
  EXPECT_EQ(all.observed, "mode 0666, group root");
  EXPECT_EQ(all.message,
            "mlx5_0: /dev/infiniband/uverbs0 usable by every user (mode 0666, group root)");
  const auto group = mpi::device_file_result("rdma_cm", "/dev/infiniband/rdma_cm",
                                             char_device(0660, 27, "rdma"), "rdma_ucm");
  EXPECT_EQ(group.status, Status::pass);
  EXPECT_EQ(group.message,
            "rdma_cm: /dev/infiniband/rdma_cm usable by members of group rdma "
            "only (mode 0660, group rdma)");
}

TEST(MpiDevices, RootOnlyOrHalfPermissionsFail)
{
  for (const auto& f : {char_device(0600, 0, "root"), char_device(0660, 0, "root"),
                        char_device(0640, 27, "rdma"), char_device(0664, 0, "root")}) {
    const auto r = mpi::device_file_result("mlx5_0", "/dev/infiniband/uverbs0", f, "ib_uverbs");
    EXPECT_EQ(r.status, Status::fail) << r.message;
    EXPECT_NE(r.message.find("is not usable by unprivileged users"), std::string::npos)
        << r.message;
    EXPECT_NE(r.message.find("expected mode 0666 (rdma-core's udev rules) or read/write for a "
                             "group such as rdma"),
              std::string::npos);
  }
  const auto r = mpi::device_file_result("mlx5_0", "/dev/infiniband/uverbs0",
                                         char_device(0600, 0, "root"), "ib_uverbs");
  EXPECT_EQ(r.observed, "mode 0600, group root");
}

TEST(MpiDevices, MissingUnreadableOrNotACharacterDevice)
{
  mpi::FileInfo missing;
  missing.error = ENOENT;
  const auto m = mpi::device_file_result("mlx5_0", "/dev/infiniband/uverbs0", missing, "ib_uverbs");
  EXPECT_EQ(m.status, Status::fail);
  EXPECT_EQ(m.observed, "missing");
  EXPECT_EQ(m.message,
            "mlx5_0: /dev/infiniband/uverbs0 missing (is ib_uverbs loaded? does udev "
            "create the node?)");
  EXPECT_EQ(
      mpi::device_file_result("rdma_cm", "/dev/infiniband/rdma_cm", missing, "rdma_ucm").message,
      "rdma_cm: /dev/infiniband/rdma_cm missing (is rdma_ucm loaded? does udev create the "
      "node?)");
  mpi::FileInfo denied;
  denied.error = EACCES;
  EXPECT_EQ(mpi::device_file_result("rdma_cm", "/x/rdma_cm", denied, "rdma_ucm").message,
            "rdma_cm: /x/rdma_cm cannot be examined: Permission denied");
  mpi::FileInfo plain;
  plain.mode = 0666;
  const auto p = mpi::device_file_result("rdma_cm", "/x/rdma_cm", plain, "rdma_ucm");
  EXPECT_EQ(p.status, Status::fail);
  EXPECT_EQ(p.observed, "not a character device");
}

// The real stat(2): a regular file is no device; /dev/null (through a symlink named like the
// uverbs device) is a character device everyone may use.
TEST(MpiDevices, RealFilesThroughTheDefaultStat)
{
  test::TempDir tmp;
  const auto sys = make_sysfs(tmp.path() / "sys", {});
  const fs::path dev = tmp.path() / "dev";
  fs::create_directories(dev);
  fs::create_symlink("/dev/null", dev / "uverbs0");
  write(dev / "rdma_cm", "");
  mpi::Options o;
  o.sysfs_root = sys.string();
  o.dev_dir = dev.string();
  o.live = false;
  const auto out = mpi::device_results({{"mlx5_0", ""}}, o, {});
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[0].subject, "mlx5_0");
  EXPECT_EQ(out[0].status, Status::pass) << out[0].message;
  EXPECT_NE(out[0].message.find("/uverbs0 usable by every user (mode 0666, group root)"),
            std::string::npos)
      << out[0].message;
  EXPECT_EQ(out[1].subject, "rdma_cm");
  EXPECT_EQ(out[1].status, Status::fail);
  EXPECT_EQ(out[1].message,
            "rdma_cm: " + (dev / "rdma_cm").string() +
                " is not a character device: no RDMA device can be opened through it");
}

TEST(MpiDevices, UverbsFoundByIbdevOrUnderThePciDevice)
{
  test::TempDir tmp;
  const auto sys = make_sysfs(tmp.path() / "sys", {});
  mpi::Options o;
  o.sysfs_root = sys.string();
  o.dev_dir = "/devx";
  std::vector<std::string> asked;
  mpi::Seams seams;
  seams.stat = [&](const std::string& path) {
    asked.push_back(path);
    return char_device(0666, 0, "root");
  };
  const auto out =
      mpi::device_results({{"mlx5_0", ""}, {"mlx5_1", "0000:5e:00.0"}, {"mlx5_7", ""}}, o, seams);
  EXPECT_EQ(asked, (std::vector<std::string>{"/devx/uverbs0", "/devx/uverbs1", "/devx/rdma_cm"}));
  ASSERT_EQ(out.size(), 4U);
  EXPECT_EQ(out[0].status, Status::pass);
  EXPECT_EQ(out[1].status, Status::pass);
  EXPECT_EQ(out[1].message, "mlx5_1: /devx/uverbs1 usable by every user (mode 0666, group root)");
  EXPECT_EQ(out[2].subject, "mlx5_7");
  EXPECT_EQ(out[2].status, Status::fail);
  EXPECT_EQ(out[2].observed, "no uverbs device");
  EXPECT_EQ(out[2].message, "mlx5_7: no uverbs device in " + sys.string() +
                                "/class/infiniband_verbs (is ib_uverbs loaded? is the HCA "
                                "present?)");
  EXPECT_EQ(out[3].subject, "rdma_cm");
}

TEST(MpiDevices, APciAddressWithoutADeviceFails)
{
  mpi::Options o;
  o.sysfs_root = "/nonexistent";
  mpi::Seams seams;
  seams.stat = [](const std::string&) { return char_device(0666, 0, "root"); };
  const auto out = mpi::device_results({{"", "0000:99:00.0"}}, o, seams);
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[0].subject, "0000:99:00.0");
  EXPECT_EQ(out[0].status, Status::fail);
  EXPECT_EQ(out[0].message,
            "0000:99:00.0: no RDMA device at this PCI address, so no uverbs device");
}

// ---------------------------------------------------------------------------------------------
// mpi.modules
// ---------------------------------------------------------------------------------------------

TEST(MpiModules, LoadedModulesPassAndAMissingOneFailsWithTheFix)
{
  test::TempDir tmp;
  const auto sys = make_sysfs(tmp.path() / "sys", {"ib_uverbs", "rdma_ucm", "ib_ipoib"});
  mpi::Options o;
  o.sysfs_root = sys.string();
  o.live = false;
  const auto out = mpi::module_results(node_with_ipoib(), o);
  ASSERT_EQ(out.size(), 4U);
  EXPECT_EQ(out[0].subject, "ib_uverbs");
  EXPECT_EQ(out[0].status, Status::pass);
  EXPECT_EQ(out[0].message, "ib_uverbs: loaded");
  EXPECT_EQ(out[1].subject, "rdma_ucm");
  EXPECT_EQ(out[1].status, Status::pass);
  EXPECT_EQ(out[2].subject, "ib_umad");
  EXPECT_EQ(out[2].status, Status::fail);
  EXPECT_EQ(out[2].observed, "not loaded");
  EXPECT_EQ(out[2].message, "ib_umad: not loaded (no " + sys.string() +
                                "/module/ib_umad); it provides management datagrams from user "
                                "space (/dev/infiniband/umadN): modprobe ib_umad, and list it "
                                "in /etc/rdma/modules/ or /etc/modules-load.d/ for boot");
  EXPECT_EQ(out[3].subject, "ib_ipoib");
  EXPECT_EQ(out[3].status, Status::pass);
}

TEST(MpiModules, IpoibOnlyWhereTheNodeDeclaresInterfaces)
{
  test::TempDir tmp;
  const auto sys = make_sysfs(tmp.path() / "sys", {"ib_uverbs", "rdma_ucm", "ib_umad"});
  mpi::Options o;
  o.sysfs_root = sys.string();
  auto node = node_with_ipoib();
  auto out = mpi::module_results(node, o);
  ASSERT_EQ(out.size(), 4U);
  EXPECT_EQ(out[3].subject, "ib_ipoib");
  EXPECT_EQ(out[3].status, Status::fail);
  node.interfaces.clear();
  out = mpi::module_results(node, o);
  ASSERT_EQ(out.size(), 3U);
  for (const auto& r : out) {
    EXPECT_EQ(r.status, Status::pass) << r.message;
  }
}

// ---------------------------------------------------------------------------------------------
// mpi.reg_mr
// ---------------------------------------------------------------------------------------------

TEST(MpiRegMr, SuccessAndTheLikelyCauseOfAFailure)
{
  const mpi::Memlock low{0, false, 64 * k_kib};
  const mpi::Memlock unlimited{0, true, 0};
  const auto ok = mpi::reg_mr_result("rxe0", 64, {}, low);
  EXPECT_EQ(ok.status, Status::pass);
  EXPECT_EQ(ok.message, "rxe0: registered 64 MiB (ibv_reg_mr)");
  EXPECT_EQ(ok.expected, "registers 64 MiB");

  const auto memlock = mpi::reg_mr_result("rxe0", 64, {ENOMEM, "ibv_reg_mr"}, low);
  EXPECT_EQ(memlock.status, Status::fail);
  EXPECT_EQ(memlock.observed, "ibv_reg_mr: Cannot allocate memory");
  EXPECT_EQ(memlock.message,
            "rxe0: ibv_reg_mr failed: Cannot allocate memory (registering 64 MiB); likely the "
            "memlock limit: RLIMIT_MEMLOCK is 64 KiB, below 64 MiB (see mpi.memlock)");

  const auto iommu = mpi::reg_mr_result("mlx5_0", 64, {ENOMEM, "ibv_reg_mr"}, unlimited);
  EXPECT_EQ(iommu.message,
            "mlx5_0: ibv_reg_mr failed: Cannot allocate memory (registering 64 MiB); not the "
            "memlock limit (RLIMIT_MEMLOCK unlimited): likely the IOMMU (look for DMA faults in "
            "dmesg) or too little free memory");
  // A limit above the size is no explanation either.
  const auto big =
      mpi::reg_mr_result("mlx5_0", 64, {EFAULT, "ibv_reg_mr"}, {0, false, 128 * k_mib});
  EXPECT_NE(big.message.find("not the memlock limit (RLIMIT_MEMLOCK 128 MiB)"), std::string::npos)
      << big.message;

  const auto nodev = mpi::reg_mr_result("mlx5_3", 64, {ENODEV, "ibv_open_device"}, unlimited);
  EXPECT_EQ(nodev.message,
            "mlx5_3: ibv_open_device failed: No such device (registering 64 MiB); "
            "libibverbs does not list this device (no provider library, or no "
            "such HCA)");
  const auto denied = mpi::reg_mr_result("rxe0", 64, {ENOENT, "ibv_open_device"}, unlimited);
  EXPECT_EQ(denied.message,
            "rxe0: ibv_open_device failed: No such file or directory (registering "
            "64 MiB); this user cannot open the device (see mpi.devices)");
  const auto pd = mpi::reg_mr_result("mlx5_3", 8, {EACCES, "ibv_alloc_pd"}, unlimited);
  EXPECT_EQ(pd.message,
            "mlx5_3: ibv_alloc_pd failed: Permission denied (registering 8 MiB); "
            "the device refused before any memory was registered");
  EXPECT_EQ(mpi::reg_mr_result("mlx5_3", 8, {ENOMEM, "malloc"}, unlimited).message,
            "mlx5_3: malloc failed: Cannot allocate memory (registering 8 MiB); this process "
            "could not allocate the buffer");
}

// ---------------------------------------------------------------------------------------------
// check_mpi: the four checks together, where they apply
// ---------------------------------------------------------------------------------------------

struct Recorder {
  std::vector<std::pair<std::string, uint64_t>> registered;
  mpi::Seams seams(mpi::Memlock limit, int reg_error)
  {
    mpi::Seams s;
    s.memlock = [limit] { return limit; };
    s.stat = [](const std::string&) { return char_device(0666, 0, "root"); };
    s.register_memory = [this, reg_error](const std::string& device, uint64_t bytes) {
      registered.emplace_back(device, bytes);
      return mpi::Registered{reg_error, reg_error != 0 ? "ibv_reg_mr" : ""};
    };
    return s;
  }
};

std::vector<std::string> ids_of(const std::vector<Result>& results)
{
  std::vector<std::string> out;
  for (const auto& r : results) {
    out.push_back(r.id + " " + r.subject + " " + to_string(r.status));
  }
  return out;
}

// Options for a node whose sysfs has every module loaded and whose device directory exists.
mpi::Options live_options(const test::TempDir& tmp)
{
  mpi::Options o;
  o.sysfs_root = make_sysfs(tmp.path() / "sys", k_all_modules).string();
  fs::create_directories(tmp.path() / "dev");
  o.dev_dir = (tmp.path() / "dev").string();
  return o;
}

TEST(CheckMpi, AHealthyLiveNodeInCheckOrder)
{
  test::TempDir tmp;
  mpi::Options o = live_options(tmp);
  o.register_mib = 8;
  Recorder rec;
  const auto out = mpi::check_mpi(node_with_ipoib(), o, rec.seams({0, true, 0}, 0));
  EXPECT_EQ(ids_of(out),
            (std::vector<std::string>{"mpi.memlock memlock pass", "mpi.devices mlx5_0 pass",
                                      "mpi.devices mlx5_1 pass", "mpi.devices rdma_cm pass",
                                      "mpi.modules ib_uverbs pass", "mpi.modules rdma_ucm pass",
                                      "mpi.modules ib_umad pass", "mpi.modules ib_ipoib pass",
                                      "mpi.reg_mr mlx5_0 pass", "mpi.reg_mr mlx5_1 pass"}));
  EXPECT_EQ(rec.registered, (std::vector<std::pair<std::string, uint64_t>>{{"mlx5_0", 8 * k_mib},
                                                                           {"mlx5_1", 8 * k_mib}}));
}

TEST(CheckMpi, RegistrationFailsUnderALowLimit)
{
  test::TempDir tmp;
  mpi::Options o = live_options(tmp);
  Recorder rec;
  const auto out = mpi::check_mpi(node_with_ipoib(), o, rec.seams({0, false, 64 * k_kib}, ENOMEM));
  EXPECT_EQ(out.front().id, "mpi.memlock");
  EXPECT_EQ(out.front().status, Status::fail);
  EXPECT_EQ(out.back().id, "mpi.reg_mr");
  EXPECT_EQ(out.back().status, Status::fail);
  EXPECT_NE(out.back().message.find("likely the memlock limit: RLIMIT_MEMLOCK is 64 KiB, below "
                                    "64 MiB"),
            std::string::npos)
      << out.back().message;
}

TEST(CheckMpi, NoDeviceDirectoryFailsTheDevicesAndSkipsRegistration)
{
  test::TempDir tmp;
  const auto sys = make_sysfs(tmp.path() / "sys", k_all_modules);
  mpi::Options o;
  o.sysfs_root = sys.string();
  o.dev_dir = (tmp.path() / "no-dev").string();
  Recorder rec;
  auto seams = rec.seams({0, true, 0}, 0);
  seams.stat = {};  // the real stat: every file is missing
  const auto out = mpi::check_mpi(node_with_ipoib(), o, seams);
  EXPECT_TRUE(rec.registered.empty());
  size_t failed_devices = 0;
  for (const auto& r : out) {
    if (r.id == "mpi.devices") {
      EXPECT_EQ(r.status, Status::fail);
      EXPECT_EQ(r.observed, "missing");
      ++failed_devices;
    }
  }
  EXPECT_EQ(failed_devices, 3U);
  EXPECT_EQ(out.back().id, "mpi.reg_mr");
  EXPECT_EQ(out.back().status, Status::skip);
  EXPECT_EQ(out.back().message, "cn1: no " + o.dev_dir + " (see mpi.devices): not checked");
}

TEST(CheckMpi, DisabledRegistrationRegistersNothing)
{
  test::TempDir tmp;
  mpi::Options o = live_options(tmp);
  o.reg_mr = false;
  Recorder rec;
  const auto out = mpi::check_mpi(node_with_ipoib(), o, rec.seams({0, true, 0}, 0));
  EXPECT_TRUE(rec.registered.empty());
  EXPECT_EQ(out.back().id, "mpi.reg_mr");
  EXPECT_EQ(out.back().status, Status::skip);
}

TEST(CheckMpi, ANodeWithoutHcasOrASavedInventoryIsSkipped)
{
  Recorder rec;
  auto node = node_with_ipoib();
  mpi::Options saved;
  saved.saved = true;
  saved.live = false;
  auto out = mpi::check_mpi(node, saved, rec.seams({0, true, 0}, 0));
  EXPECT_EQ(ids_of(out), (std::vector<std::string>{"mpi.memlock cn1 skip", "mpi.devices cn1 skip",
                                                   "mpi.modules cn1 skip", "mpi.reg_mr cn1 skip"}));
  EXPECT_EQ(out[0].message, "cn1: judged only on the host itself, not from a saved inventory");
  node.hcas.clear();
  node.interfaces[0].device.reset();
  out = mpi::check_mpi(node, {}, rec.seams({0, true, 0}, 0));
  ASSERT_EQ(out.size(), 4U);
  EXPECT_EQ(out[3].message, "cn1: no HCA declared for this node: no MPI over verbs to check");
  EXPECT_TRUE(rec.registered.empty());
}

// A captured tree: only the modules are judged, and only when the capture has module/.
TEST(CheckMpi, ACapturedTreeJudgesOnlyItsModules)
{
  test::TempDir tmp;
  Recorder rec;
  mpi::Options o;
  o.live = false;
  o.sysfs_root = make_sysfs(tmp.path() / "with", {"ib_uverbs"}).string();
  auto out = mpi::check_mpi(node_with_ipoib(), o, rec.seams({0, false, 64 * k_kib}, 0));
  EXPECT_EQ(ids_of(out),
            (std::vector<std::string>{"mpi.memlock memlock skip", "mpi.devices cn1 skip",
                                      "mpi.modules ib_uverbs pass", "mpi.modules rdma_ucm fail",
                                      "mpi.modules ib_umad fail", "mpi.modules ib_ipoib fail",
                                      "mpi.reg_mr cn1 skip"}));
  EXPECT_EQ(out[0].message, "memlock: judged only on this machine, not for a captured tree");
  o.sysfs_root = make_sysfs(tmp.path() / "without", {}).string();
  out = mpi::check_mpi(node_with_ipoib(), o, rec.seams({0, false, 64 * k_kib}, 0));
  EXPECT_EQ(out[2].id, "mpi.modules");
  EXPECT_EQ(out[2].status, Status::skip);
  EXPECT_EQ(out[2].message, "cn1: the captured tree has no module/ directory");
  EXPECT_TRUE(rec.registered.empty());
}

// ---------------------------------------------------------------------------------------------
// The profile's checks.mpi
// ---------------------------------------------------------------------------------------------

TEST(MpiProfile, ThresholdsReachTheResolvedNode)
{
  const char* text = R"(version: 1
nodes:
  - hosts: cn[1-2]
    hcas: [{device: mlx5_0}]
    checks:
      mpi: {memlock_min_mib: 512, register_mib: 256}
      disable: [mpi.reg_mr]
  - hosts: cn3
    hcas: [{device: mlx5_0}]
)";
  const auto p = profile::load_profile_text(text, "mpi.yaml");
  const auto n = profile::resolve_node(p, "cn2");
  ASSERT_TRUE(n.checks.mpi_memlock_min_kib.has_value());
  EXPECT_EQ(*n.checks.mpi_memlock_min_kib, 512U * 1024U);
  EXPECT_EQ(n.checks.mpi_register_mib, 256);
  EXPECT_EQ(n.checks.disable, (std::vector<std::string>{"mpi.reg_mr"}));
  const auto d = profile::resolve_node(p, "cn3");
  EXPECT_FALSE(d.checks.mpi_memlock_min_kib.has_value());
  EXPECT_EQ(d.checks.mpi_register_mib, 64);
}

TEST(MpiProfile, TheGroupAndItsIdsAreKnown)
{
  for (const char* id : {"mpi", "mpi.memlock", "mpi.devices", "mpi.modules", "mpi.reg_mr"}) {
    EXPECT_TRUE(check::is_check_id_or_group(id)) << id;
  }
  const auto& ids = check::check_ids();
  const auto at = [&](const char* id) {
    return std::find(ids.begin(), ids.end(), id) - ids.begin();
  };
  EXPECT_LT(at("ipoib.addresses"), at("mpi.memlock"));
  EXPECT_LT(at("mpi.reg_mr"), at("ip.peer"));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// run_check: where the group sits and how settings reach it
// ---------------------------------------------------------------------------------------------

namespace {

check::CheckOptions fixture_check()
{
  check::CheckOptions o;
  o.profile_file = std::string(IBSETUP_TEST_DATA) + "/check/cluster.yaml";
  o.node = "hdr01";
  o.sysfs_root = std::string(IBSETUP_FIXTURES) + "/sysfs/hdr-2hca";
  return o;
}

std::vector<const Result*> mpi_results(const Report& report)
{
  std::vector<const Result*> out;
  for (const auto& r : report.checks) {
    if (r.id.rfind("mpi.", 0) == 0) {
      out.push_back(&r);
    }
  }
  return out;
}

// A captured tree without module/: every mpi check is there, skipped with its reason, after
// the ipoib checks; the run still passes.
TEST(RunCheckMpi, ACapturedTreeSkipsTheGroupAfterIpoib)
{
  const auto out = check::run_check(fixture_check());
  EXPECT_TRUE(out.report.ok()) << check::report_to_text(out.report);
  const auto mpi = mpi_results(out.report);
  ASSERT_EQ(mpi.size(), 4U);
  EXPECT_EQ(mpi[0]->message, "memlock: judged only on this machine, not for a captured tree");
  EXPECT_EQ(mpi[2]->message, "hdr01: the captured tree has no module/ directory");
  for (const auto* r : mpi) {
    EXPECT_EQ(r->status, Status::skip);
  }
  EXPECT_EQ(out.report.checks.end()[-4].id, "mpi.memlock") << "the mpi group comes last here";
  EXPECT_NE(check::report_to_json(out.report).find("\"id\":\"mpi.reg_mr\""), std::string::npos);
}

TEST(RunCheckMpi, DisableAndWarnReachTheGroup)
{
  auto o = fixture_check();
  o.disable = {"mpi"};
  const auto none = check::run_check(o);
  EXPECT_TRUE(mpi_results(none.report).empty());
  o.disable = {"mpi.modules"};
  const auto out = check::run_check(o);
  const auto mpi = mpi_results(out.report);
  ASSERT_EQ(mpi.size(), 4U);
  EXPECT_EQ(mpi[2]->id, "mpi.modules");
  EXPECT_EQ(mpi[2]->message, "hdr01: mpi.modules disabled");
}

// A saved inventory: nothing of this machine is judged.
TEST(RunCheckMpi, ASavedInventorySkipsEveryMpiCheck)
{
  test::TempDir tmp;
  inventory::Options io;
  io.sysfs_root = fixture_check().sysfs_root;
  const std::string saved = (tmp.path() / "hdr01.json").string();
  std::ofstream(saved) << inventory::host_to_json(inventory::inspect(io));
  auto o = fixture_check();
  o.sysfs_root = "/sys";
  o.inventory_file = saved;
  const auto out = check::run_check(o);
  const auto mpi = mpi_results(out.report);
  ASSERT_EQ(mpi.size(), 4U);
  for (const auto* r : mpi) {
    EXPECT_EQ(r->status, Status::skip);
    EXPECT_EQ(r->message, "hdr01: judged only on the host itself, not from a saved inventory");
  }
}

}  // namespace
