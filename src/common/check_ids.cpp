#include "common/check_ids.hpp"

#include <algorithm>

namespace ibsetup::util {

const std::vector<std::string>& check_ids()
{
  static const std::vector<std::string> ids = {
      "hca.present", "hca.abi",         "hca.firmware",  "pcie.width",      "pcie.speed",
      "port.state",  "port.phys_state", "port.rate",     "port.link_layer", "port.sm",
      "port.lid",    "port.pkeys",      "port.counters", "ipoib.exists",    "ipoib.up",
      "ipoib.port",  "ipoib.plan",      "ipoib.mode",    "ipoib.mtu",       "ipoib.addresses",
      "mpi.memlock", "mpi.devices",     "mpi.modules",   "mpi.reg_mr",      "ip.peer",
      "rdma.device", "rdma.route",      "rdma.pingpong", "rdma.bandwidth",  "rdma.latency"};
  return ids;
}

std::string check_group(const std::string& id)
{
  return id.substr(0, id.find('.'));
}

bool is_check_id_or_group(const std::string& name)
{
  const auto& ids = check_ids();
  return std::any_of(ids.begin(), ids.end(),
                     [&](const std::string& id) { return id == name || check_group(id) == name; });
}

}  // namespace ibsetup::util
