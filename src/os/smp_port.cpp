// The SmpPort through libibmad (rdma-core). libibmad's own retries and timeout bound every
// query, so an unreachable port costs at most (retries + 1) * timeout per MAD, never a hang.
// libibmad (and with it libibumad) is loaded when a port is first opened, not linked: only
// `partitions --verify` needs it, and two more libraries at every start cost every other
// command (issue 15).
#include "os/smp_port.hpp"

#include <ibsetup/error.hpp>

#include <infiniband/mad.h>

#include "os/dl_library.hpp"

#include <cstring>
#include <mutex>

namespace ibsetup::os {
namespace {

// The libibmad calls used here, resolved from libibmad.so.5 (its soname on Rocky 8 and Debian).
struct Mad {
  decltype(&::mad_rpc_open_port) open_port = nullptr;
  decltype(&::mad_rpc_close_port) close_port = nullptr;
  decltype(&::mad_rpc_set_timeout) set_timeout = nullptr;
  decltype(&::mad_rpc_set_retries) set_retries = nullptr;
  decltype(&::madrpc_show_errors) show_errors = nullptr;
  decltype(&::ib_resolve_smlid_via) resolve_smlid = nullptr;
  decltype(&::ib_resolve_guid_via) resolve_guid = nullptr;
  decltype(&::smp_query_via) smp_query = nullptr;
  decltype(&::mad_decode_field) decode_field = nullptr;
  std::string error;  // empty when every function above was found
};

template <typename F>
void bind(DlLibrary& lib, const char* name, F& out)
{
  out = reinterpret_cast<F>(lib.symbol(name));
}

const Mad& mad()
{
  static DlLibrary lib("libibmad.so.5",
                       "rdma-core's libibmad: infiniband-diags on Rocky 8, libibmad5 on Debian");
  static Mad m;
  static std::once_flag once;
  std::call_once(once, [] {
    bind(lib, "mad_rpc_open_port", m.open_port);
    bind(lib, "mad_rpc_close_port", m.close_port);
    bind(lib, "mad_rpc_set_timeout", m.set_timeout);
    bind(lib, "mad_rpc_set_retries", m.set_retries);
    bind(lib, "madrpc_show_errors", m.show_errors);
    bind(lib, "ib_resolve_smlid_via", m.resolve_smlid);
    bind(lib, "ib_resolve_guid_via", m.resolve_guid);
    bind(lib, "smp_query_via", m.smp_query);
    bind(lib, "mad_decode_field", m.decode_field);
    m.error = lib.first_error();
  });
  return m;
}

// P_Key table blocks hold 32 entries; NodeInfo's PartitionCap says how many the port has.
constexpr unsigned k_block_entries = 32;
// A CA reports at most 65535 entries; more blocks than this would be a broken answer.
constexpr unsigned k_max_blocks = 2048;

std::string lid_text(uint16_t lid)
{
  return "LID " + std::to_string(lid);
}

class MadPort final : public SmpPort {
public:
  MadPort(ibmad_port* port, int timeout_ms) : m_port(port), m_timeout(timeout_ms) {}
  ~MadPort() override { mad().close_port(m_port); }
  MadPort(const MadPort&) = delete;
  MadPort& operator=(const MadPort&) = delete;

  SmpLid resolve_guid(uint64_t guid) override
  {
    SmpLid out;
    if (!m_sm_checked) {
      m_sm_checked = true;
      m_sm = ib_portid_t{};
      if (mad().resolve_smlid(&m_sm, m_timeout, m_port) < 0 || m_sm.lid == 0) {
        m_sm_error = "the local port knows no subnet manager (SM LID 0): is one running?";
      }
    }
    if (!m_sm_error.empty()) {
      out.error = m_sm_error;
      return out;
    }
    ib_portid_t target{};
    uint64_t g = guid;
    ib_portid_t sm = m_sm;
    if (mad().resolve_guid(&target, &g, &sm, m_timeout, m_port) < 0 || target.lid <= 0 ||
        target.lid > 0xbfff) {
      out.error = "the SA at " + lid_text(static_cast<uint16_t>(m_sm.lid)) +
                  " has no path to it (not in the fabric, or down; or it shares no partition "
                  "with this port in which either is a full member: verify from the subnet "
                  "manager's node)";
      return out;
    }
    out.lid = static_cast<uint16_t>(target.lid);
    return out;
  }

  uint16_t sm_lid() const override
  {
    return m_sm_error.empty() ? static_cast<uint16_t>(m_sm.lid) : 0;
  }

  SmpPkeys pkey_table(uint16_t lid) override
  {
    SmpPkeys out;
    ib_portid_t dest{};
    ib_portid_set(&dest, lid, 0, 0);  // inline in mad.h
    uint8_t data[IB_SMP_DATA_SIZE] = {};
    if (mad().smp_query(data, &dest, IB_ATTR_NODE_INFO, 0, m_timeout, m_port) == nullptr) {
      out.error = "NodeInfo of " + lid_text(lid) + ": no valid answer (timeout or error status)";
      return out;
    }
    unsigned node_type = 0;
    unsigned cap = 0;
    mad().decode_field(data, IB_NODE_TYPE_F, &node_type);
    mad().decode_field(data, IB_NODE_PARTITION_CAP_F, &cap);
    if (node_type != IB_NODE_CA) {
      out.error =
          lid_text(lid) + " is not a channel adapter (node type " + std::to_string(node_type) + ")";
      return out;
    }
    const unsigned blocks = (cap + k_block_entries - 1) / k_block_entries;
    if (blocks == 0 || blocks > k_max_blocks) {
      out.error = lid_text(lid) + " reports a P_Key table of " + std::to_string(cap) + " entries";
      return out;
    }
    for (unsigned block = 0; block < blocks; ++block) {
      std::memset(data, 0, sizeof data);
      if (mad().smp_query(data, &dest, IB_ATTR_PKEY_TBL, block, m_timeout, m_port) == nullptr) {
        out.entries.clear();
        out.error =
            "P_Key table block " + std::to_string(block) + " of " + lid_text(lid) + ": no answer";
        return out;
      }
      for (size_t i = 0; i < k_block_entries; ++i) {
        // Big-endian 16-bit entries, from the start of the SMP data.
        const auto pkey = static_cast<uint16_t>((data[2 * i] << 8) | data[2 * i + 1]);
        if ((pkey & 0x7fff) != 0) {
          out.entries.push_back(pkey);
        }
      }
    }
    return out;
  }

private:
  ibmad_port* m_port;
  int m_timeout;
  bool m_sm_checked = false;
  ib_portid_t m_sm{};
  std::string m_sm_error;
};

}  // namespace

std::unique_ptr<SmpPort> open_smp_port(const SmpPortOptions& options)
{
  const Mad& m = mad();
  if (!m.error.empty()) {
    throw EnvironmentError(m.error);
  }
  // libibmad prints every failed MAD to stderr; the report says which ports did not answer.
  m.show_errors(0);
  int classes[] = {IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_SA_CLASS};
  std::string ca = options.ca;
  ibmad_port* port = m.open_port(ca.empty() ? nullptr : &ca[0], options.port, classes,
                                 static_cast<int>(sizeof classes / sizeof classes[0]));
  if (port == nullptr) {
    const std::string which = (ca.empty() ? std::string("the first HCA") : ca) +
                              (options.port == 0 ? std::string(" (first active port)")
                                                 : " port " + std::to_string(options.port));
    throw EnvironmentError("cannot open " + which +
                           " for MADs through libibumad (no HCA, no umad device, or no "
                           "permission on /dev/infiniband/umad*)");
  }
  m.set_timeout(port, options.timeout_ms);
  m.set_retries(port, options.retries);
  return std::make_unique<MadPort>(port, options.timeout_ms);
}

}  // namespace ibsetup::os
