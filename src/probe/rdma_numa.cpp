#include "probe/rdma_numa.hpp"

#include "os/sysfs.hpp"
#include "probe/rdma_perf_logic.hpp"

#include <cerrno>
#include <cstring>

namespace ibsetup::check::rdma {

NumaPin::NumaPin(const std::string& sysfs_root, const std::string& device)
{
  std::optional<std::string> node;
  std::optional<std::string> cpus;
  try {
    const inventory::SysfsReader sysfs(sysfs_root);
    node = sysfs.read("class/infiniband/" + device + "/device/numa_node");
    // A number or -1: anything else (a captured tree's "0/../..") names no node directory.
    if (node && (node->empty() || node->size() > 5 ||
                 node->find_first_not_of("0123456789") != std::string::npos)) {
      node.reset();
    }
    if (node) {
      cpus = sysfs.read("devices/system/node/node" + *node + "/cpulist");
    }
  } catch (const std::exception&) {
    node.reset();
  }
  if (!node) {
    m_note = "not pinned: NUMA node unknown";
    return;
  }
  const auto list = parse_cpulist(cpus.value_or(""));
  if (list.empty()) {
    m_note = "not pinned: no CPU list for NUMA node " + *node;
    return;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  for (const int c : list) {
    if (c < CPU_SETSIZE) {
      CPU_SET(c, &set);
    }
  }
  if (sched_getaffinity(0, sizeof m_saved, &m_saved) != 0 ||
      sched_setaffinity(0, sizeof set, &set) != 0) {
    m_note = "not pinned to NUMA node " + *node + ": " + std::strerror(errno);
    return;
  }
  m_pinned = true;
  m_note = "NUMA node " + *node + " (CPUs " + *cpus + ")";
}

NumaPin::~NumaPin()
{
  if (m_pinned) {
    sched_setaffinity(0, sizeof m_saved, &m_saved);
  }
}

}  // namespace ibsetup::check::rdma
