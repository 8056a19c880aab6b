// The fabric verification (issue 16, `partitions --verify`): what the subnet manager actually
// programmed into each profile host port's P_Key table, against what the Layout implies.
#pragma once

#include "partitions/model.hpp"

#include <ibsetup/export.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ibsetup::os {
class SmpPort;
}

namespace ibsetup::partitions {

struct VerifyOptions {
  std::string ca;  // local HCA the queries leave from; "" lets libibumad choose
  int port = 0;    // its port; 0 likewise
  int timeout_ms = 500;
  int retries = 2;
};

// A pkey whose membership differs: expected and observed carry the membership bit.
struct MembershipDiff {
  uint16_t expected = 0;
  uint16_t observed = 0;
};

// One port of the Layout (a partition member or a host port). P_Keys include the membership bit
// (0x8000 = full).
struct PortVerdict {
  std::string host;
  std::string device;
  int port = 0;
  std::string guid;
  uint16_t lid = 0;                // 0 when it could not be resolved
  std::vector<uint16_t> expected;  // sorted by pkey without the bit
  std::vector<uint16_t> observed;  // likewise (what the port's table holds)
  std::vector<uint16_t> missing;   // expected pkeys the table lacks entirely
  std::vector<uint16_t> extra;     // pkeys the table holds that the Layout does not imply
  std::vector<MembershipDiff> membership;
  std::string unreachable;  // why the table could not be read; empty when it was

  bool ok() const
  {
    return unreachable.empty() && missing.empty() && extra.empty() && membership.empty();
  }
};

struct VerifyReport {
  std::vector<PortVerdict> ports;  // by host, then device and port
  // The Layout's unresolved members (no GUID to ask for): listed, never dropped; whether they
  // fail the command is the caller's policy (the generator's --allow-missing).
  std::vector<Missing> not_checked;

  // Every port was read and matches its expectation.
  IBSETUP_EXPORT bool ok() const;
};

// The P_Key table each port should hold, keyed by port GUID: each partition member and each of
// the Layout's ports (a host in Default alone included), with every partition the port is a
// member of, the full bit when it is a full member of any of them (OpenSM programs one entry
// per pkey, full winning), and the "ALL" partitions (Default) for every port.
struct ExpectedPort {
  Member port;  // host, device, port, guid (full is unused)
  std::vector<uint16_t> pkeys;
};
std::vector<ExpectedPort> expected_ports(const Layout& layout);

// Compares one port's table with its expectation (pure).
PortVerdict compare_port(const ExpectedPort& expected, const std::vector<uint16_t>& observed);

// Reads every expected port's table through `smp` and compares. Never throws for a port that
// does not answer: it is reported as unreachable.
VerifyReport verify_fabric(const Layout& layout, os::SmpPort& smp);

// Opens the local port (os::open_smp_port; throws EnvironmentError when it cannot) and verifies
// through it.
IBSETUP_EXPORT VerifyReport verify_fabric(const Layout& layout, const VerifyOptions& options);

// In the style of `ibsetup check`: one row per port (STATUS HOST PORT RESULT), then a summary.
IBSETUP_EXPORT std::string format_verify_text(const VerifyReport& report);
// {"ok":..,"ports":[{"host","device","port","guid","lid","status","expected","observed",
//  "missing","extra","membership":[{"pkey","expected","observed"}],"error"}],
//  "not_checked":[{"host","what","pkeys"}]}
IBSETUP_EXPORT std::string format_verify_json(const VerifyReport& report);

}  // namespace ibsetup::partitions
