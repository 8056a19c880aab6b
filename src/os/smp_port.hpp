// Subnet management queries from one local HCA port: a port GUID's LID from the subnet
// administrator, and a remote port's P_Key table by SMP. The one implementation (smp_port.cpp)
// is the only code that includes libibmad/libibumad; partitions/verify.cpp goes through this
// interface, and its unit tests substitute their own SmpPort.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ibsetup::os {

// A LID the SA gave for a port GUID; error says why there is none (lid is then 0).
struct SmpLid {
  uint16_t lid = 0;
  std::string error;
};

// A port's P_Key table entries as the port holds them (membership bit included, empty slots
// 0x0000 left out, in table order); error says why it could not be read (entries then empty).
struct SmpPkeys {
  std::vector<uint16_t> entries;
  std::string error;
};

class SmpPort {
public:
  virtual ~SmpPort() = default;
  // Asks the SA (a path record to the GUID). Bounded by the port's timeout and retries.
  virtual SmpLid resolve_guid(uint64_t guid) = 0;
  // Reads NodeInfo for the table's size, then every 32-entry block of the port behind lid (a
  // CA port: the SMP lands on the port that owns the LID). Bounded like resolve_guid.
  virtual SmpPkeys pkey_table(uint16_t lid) = 0;
  // The LID of the subnet manager the local port knows (the master), 0 when there is none or
  // resolve_guid has not asked yet: OpenSM's SELF is that SM's own port.
  virtual uint16_t sm_lid() const = 0;
};

// Which local port the queries leave from and how long each may take.
struct SmpPortOptions {
  std::string ca;  // "" lets libibumad choose (the first CA with an active port)
  int port = 0;    // 0 likewise
  int timeout_ms = 500;
  int retries = 2;
};

// Opens the local port through libibmad. Throws EnvironmentError naming the CA and port when it
// cannot be opened (no HCA, no umad device, no permission).
std::unique_ptr<SmpPort> open_smp_port(const SmpPortOptions& options);

}  // namespace ibsetup::os
