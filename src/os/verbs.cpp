// Port attributes only libibverbs reports (the active IB MTU): the only inventory code that
// includes libibverbs.
#include <ibsetup/inventory.hpp>

#include <infiniband/verbs.h>
#include <unistd.h>

namespace ibsetup::inventory {

namespace {

int mtu_bytes(ibv_mtu mtu)
{
  switch (mtu) {
  case IBV_MTU_256:
    return 256;
  case IBV_MTU_512:
    return 512;
  case IBV_MTU_1024:
    return 1024;
  case IBV_MTU_2048:
    return 2048;
  case IBV_MTU_4096:
    return 4096;
  default:
    return 0;
  }
}

class Verbs : public VerbsSource {
public:
  ~Verbs() override
  {
    for (auto& [name, ctx] : m_open) {
      if (ctx != nullptr) {
        ibv_close_device(ctx);
      }
    }
    if (m_list != nullptr) {
      ibv_free_device_list(m_list);
    }
  }

  std::optional<int> active_mtu(const std::string& device, int port) override
  {
    ibv_context* ctx = open(device);
    ibv_port_attr attr{};
    if (ctx == nullptr || ibv_query_port(ctx, static_cast<uint8_t>(port), &attr) != 0) {
      return std::nullopt;
    }
    const int bytes = mtu_bytes(attr.active_mtu);
    return bytes > 0 ? std::optional<int>(bytes) : std::nullopt;
  }

private:
  ibv_context* open(const std::string& device)
  {
    const auto it = m_open.find(device);
    if (it != m_open.end()) {
      return it->second;
    }
    if (!m_listed) {
      m_listed = true;
      // Listing devices dlopens every provider library; without uverbs device nodes no
      // device can be opened anyway, so do not pay for it.
      if (access("/dev/infiniband", F_OK) == 0) {
        m_list = ibv_get_device_list(&m_count);
      }
    }
    ibv_context* ctx = nullptr;
    for (int i = 0; m_list != nullptr && i < m_count; ++i) {
      if (device == ibv_get_device_name(m_list[i])) {
        ctx = ibv_open_device(m_list[i]);
        break;
      }
    }
    m_open[device] = ctx;
    return ctx;
  }

  bool m_listed = false;
  ibv_device** m_list = nullptr;
  int m_count = 0;
  std::map<std::string, ibv_context*> m_open;
};

}  // namespace

std::unique_ptr<VerbsSource> make_verbs_source()
{
  return std::make_unique<Verbs>();
}

}  // namespace ibsetup::inventory
