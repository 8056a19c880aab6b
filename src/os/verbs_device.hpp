// RDMA device access: which devices libibverbs lists, opening them, querying their ports. The
// one implementation (verbs_device.cpp) is the only code that includes libibverbs for this;
// inspect (the active MTU) and the rdma.device check both go through it, and tests substitute
// their own VerbsDevices.
#pragma once

#include <ibsetup/inventory.hpp>

#include <memory>
#include <string>
#include <vector>

namespace ibsetup::inventory {
class SysfsReader;
}

namespace ibsetup::os {

// Port states and link layers are the inventory's enums (one spelling of each, in
// inventory/parse.cpp); libibverbs' numbers are mapped once, in verbs_device.cpp.
using VerbsPortState = inventory::PortState;
using VerbsLinkLayer = inventory::LinkLayer;

// The devices libibverbs lists; error is the errno of a failed listing (names is then empty).
struct VerbsDeviceList {
  int error = 0;
  std::vector<std::string> names;
};

// A device's port count; error is the errno of ibv_query_device (count is then 0).
struct VerbsPortCount {
  int error = 0;
  int count = 0;
};

// One port; error is the errno of ibv_query_port (the rest is then unset).
struct VerbsPort {
  int error = 0;
  VerbsPortState state = VerbsPortState::nop;
  VerbsLinkLayer link_layer = VerbsLinkLayer::unknown;
  int active_mtu = 0;  // bytes; 0 when libibverbs reports a value it does not define
};

class VerbsDevices {
public:
  virtual ~VerbsDevices() = default;
  // The devices, listed on first use and kept.
  virtual const VerbsDeviceList& list() = 0;
  // Opens a listed device on first use and keeps it open; later calls give the first outcome.
  // 0, the errno of ibv_open_device, or ENODEV when the device is not listed.
  virtual int open(const std::string& device) = 0;
  // The device must be open (open() returned 0).
  virtual VerbsPortCount port_count(const std::string& device) = 0;
  virtual VerbsPort query_port(const std::string& device, int port) = 0;
};

// libibverbs on this host. Listing loads every provider library, so it happens only when
// list() or open() is first called.
std::unique_ptr<VerbsDevices> make_verbs_devices();

// Whether the uverbs/rdma_cm device directory (normally /dev/infiniband) exists: without it
// no RDMA device can be opened, so callers skip the libraries altogether.
bool device_dir_present(const std::string& dir);

// The RDMA device at a PCI address (the first name under the PCI function's infiniband/
// directory, read through the sysfs reader); empty when there is none.
std::string device_at_pci(const inventory::SysfsReader& sysfs, const std::string& pci);

}  // namespace ibsetup::os
