// The RDMA libraries' loader (os/rdma_dl.cpp) when they cannot be loaded: every forwarding
// function fails as its man page says, nothing crashes, and the commands' messages name the
// library and dlopen's reason. Its own executable: the loader takes the test sonames only before
// the first RDMA call of the process, and unit_tests loads the real libraries.
#include "check/mpi.hpp"
#include "os/rdma_dl.hpp"
#include "os/verbs_device.hpp"
#include "os/verbs_register.hpp"

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <cerrno>
#include <cstring>

#include "gtest_compat.hpp"

using namespace ibsetup;

namespace {

constexpr const char* k_verbs = "libibsetup-test-absent-verbs.so.1";
constexpr const char* k_rdmacm = "libibsetup-test-absent-rdmacm.so.1";

class RdmaDlMissing : public ::testing::Test {
protected:
  void SetUp() override { os::rdma_dl_sonames_for_test(k_verbs, k_rdmacm); }
};

bool contains(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

TEST_F(RdmaDlMissing, VerbsCallsFailAsDocumented)
{
  int count = -1;
  errno = 0;
  EXPECT_EQ(ibv_get_device_list(&count), nullptr);
  EXPECT_EQ(errno, ENOSYS);
  errno = 0;
  EXPECT_EQ(ibv_open_device(nullptr), nullptr);
  EXPECT_EQ(errno, ENOSYS);
  EXPECT_EQ(ibv_get_device_name(nullptr), nullptr);
  EXPECT_EQ(ibv_close_device(nullptr), -1);
  // These return the errno value itself. The parentheses call the function, not verbs.h's
  // inline wrapper, which would read the context.
  ibv_device_attr attr{};
  EXPECT_EQ(ibv_query_device(nullptr, &attr), ENOSYS);
  ibv_port_attr port{};
  EXPECT_EQ((ibv_query_port)(nullptr, 1, reinterpret_cast<_compat_ibv_port_attr*>(&port)), ENOSYS);
  EXPECT_EQ(ibv_alloc_pd(nullptr), nullptr);
  EXPECT_EQ(ibv_dealloc_pd(nullptr), ENOSYS);
  errno = 0;
  EXPECT_EQ(ibv_reg_mr(nullptr, nullptr, 4096, IBV_ACCESS_LOCAL_WRITE), nullptr);
  EXPECT_EQ(errno, ENOSYS);
  EXPECT_EQ(ibv_dereg_mr(nullptr), ENOSYS);
  EXPECT_EQ(ibv_create_comp_channel(nullptr), nullptr);
  EXPECT_EQ(ibv_destroy_comp_channel(nullptr), ENOSYS);
  EXPECT_EQ(ibv_create_cq(nullptr, 1, nullptr, nullptr, 0), nullptr);
  EXPECT_EQ(ibv_destroy_cq(nullptr), ENOSYS);
  EXPECT_EQ(ibv_get_cq_event(nullptr, nullptr, nullptr), -1);
  EXPECT_STREQ(ibv_wc_status_str(IBV_WC_SUCCESS), "unknown");
  ibv_ack_cq_events(nullptr, 1);
  ibv_free_device_list(nullptr);

  const std::string why = os::verbs_load_error();
  EXPECT_TRUE(contains(why, std::string(k_verbs) + " cannot be loaded")) << why;
  EXPECT_EQ(os::verbs_error_text(ENOSYS), why);
  EXPECT_EQ(os::verbs_error_text(ENODEV), std::strerror(ENODEV));
}

TEST_F(RdmaDlMissing, RdmacmCallsFailAsDocumented)
{
  errno = 0;
  EXPECT_EQ(rdma_create_event_channel(), nullptr);
  EXPECT_EQ(errno, ENOSYS);
  rdma_cm_id* id = nullptr;
  errno = 0;
  EXPECT_EQ(rdma_create_id(nullptr, &id, nullptr, RDMA_PS_TCP), -1);
  EXPECT_EQ(errno, ENOSYS);
  EXPECT_EQ(rdma_destroy_id(nullptr), -1);
  EXPECT_EQ(rdma_bind_addr(nullptr, nullptr), -1);
  EXPECT_EQ(rdma_resolve_addr(nullptr, nullptr, nullptr, 1), -1);
  EXPECT_EQ(rdma_resolve_route(nullptr, 1), -1);
  EXPECT_EQ(rdma_create_qp(nullptr, nullptr, nullptr), -1);
  EXPECT_EQ(rdma_connect(nullptr, nullptr), -1);
  EXPECT_EQ(rdma_listen(nullptr, 1), -1);
  EXPECT_EQ(rdma_accept(nullptr, nullptr), -1);
  EXPECT_EQ(rdma_reject(nullptr, nullptr, 0), -1);
  EXPECT_EQ(rdma_disconnect(nullptr), -1);
  EXPECT_EQ(rdma_get_cm_event(nullptr, nullptr), -1);
  EXPECT_EQ(rdma_ack_cm_event(nullptr), -1);
  EXPECT_EQ(rdma_get_src_port(nullptr), 0);
  int devices = 5;
  EXPECT_EQ(rdma_get_devices(&devices), nullptr);
  EXPECT_EQ(devices, 0);
  rdma_free_devices(nullptr);
  EXPECT_STREQ(rdma_event_str(RDMA_CM_EVENT_ESTABLISHED), "UNKNOWN EVENT");
  rdma_destroy_qp(nullptr);
  rdma_destroy_event_channel(nullptr);

  const std::string why = os::rdmacm_load_error();
  EXPECT_TRUE(contains(why, std::string(k_rdmacm) + " cannot be loaded")) << why;
  EXPECT_EQ(os::rdmacm_error_text(ENOSYS), why);
}

TEST_F(RdmaDlMissing, DeviceListingSaysWhy)
{
  const auto devices = os::make_verbs_devices();
  EXPECT_EQ(devices->list().error, ENOSYS);
  EXPECT_TRUE(devices->list().names.empty());
  EXPECT_NE(devices->open("mlx5_0"), 0);
}

TEST_F(RdmaDlMissing, MpiRegistrationSaysWhy)
{
  const os::RegisterOutcome outcome = os::register_memory("mlx5_0", 4096);
  EXPECT_EQ(outcome.step, "ibv_get_device_list");
  EXPECT_EQ(outcome.error, ENOSYS);
  check::mpi::Registered registered;
  registered.error = outcome.error;
  registered.step = outcome.step;
  const check::Result r = check::mpi::reg_mr_result("mlx5_0", 1, registered, {});
  EXPECT_EQ(r.status, check::Status::fail);
  EXPECT_TRUE(contains(r.message, std::string(k_verbs) + " cannot be loaded")) << r.message;
  EXPECT_TRUE(contains(r.message, "libibverbs is not usable")) << r.message;
}

}  // namespace
