// Runs the measuring thread on the CPUs of an HCA's NUMA node, as azurehpc's ib_write_bw runs
// are pinned: a thread on the far socket measures the inter-socket link, not the HCA.
#pragma once

#include <sched.h>

#include <string>

namespace ibsetup::check::rdma {

// Pins the calling thread to the NUMA node of device (sysfs class/infiniband/DEV/device/
// numa_node, then devices/system/node/nodeN/cpulist, both under sysfs_root) while it lives,
// and gives the thread its former CPU set back afterwards. An unknown node (no PCI device, as
// with Soft-RoCE, or -1) or a refused sched_setaffinity leaves the thread where it was.
class NumaPin {
public:
  NumaPin(const std::string& sysfs_root, const std::string& device);
  ~NumaPin();
  NumaPin(const NumaPin&) = delete;
  NumaPin& operator=(const NumaPin&) = delete;

  // "NUMA node 0 (CPUs 0-15)", or why not pinned ("not pinned: NUMA node unknown").
  const std::string& note() const { return m_note; }

private:
  bool m_pinned = false;
  cpu_set_t m_saved{};
  std::string m_note;
};

}  // namespace ibsetup::check::rdma
