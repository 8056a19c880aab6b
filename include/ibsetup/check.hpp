// Pre-flight checks: the node's fabric against the profile's expectations, each verdict with
// the expected and the observed value.
#pragma once
#pragma GCC visibility push(default)  // the public API: export.hpp says why

#include <ibsetup/inventory.hpp>
#include <ibsetup/profile.hpp>

#include <string>
#include <vector>

namespace ibsetup::check {

enum class Status { pass, warn, fail, skip };
const char* to_string(Status status);

// One verdict. id names the check ("port.rate"), subject what it looked at ("mlx5_0/1",
// "ib0", "cn064"); message is one line for people:
// "mlx5_0/1: rate 100 Gb/s (4X EDR), expected at least 200".
struct Result {
  std::string id;
  std::string subject;
  Status status = Status::pass;
  std::string expected;
  std::string observed;
  std::string message;
};

struct Report {
  std::string host;
  std::vector<Result> checks;
  bool ok() const;                      // no result failed
  const Result* first_failure() const;  // nullptr when ok()
};

// Every check id, in the order checks run. A profile or --disable may name an id or the part
// before its dot ("port" disables every port.* check).
const std::vector<std::string>& check_ids();
bool is_check_id_or_group(const std::string& name);

struct Settings {
  std::vector<std::string> disabled;   // ids or groups; their results become skip
  std::vector<std::string> warn_only;  // ids or groups whose failures are warnings
  // True when id ("port.rate") or its group ("port") is disabled.
  bool disables(const std::string& id) const;
};

// Applies settings to results: disabled ones become skip ("disabled"), warn_only failures
// become warn.
void apply_settings(std::vector<Result>& results, const Settings& settings);

struct LocalOptions {
  // False for a captured tree or a saved inventory: addresses are judged only on this machine.
  bool addresses_known = true;
  // False for a saved inventory: it holds no copy of the kernel's ABI files (hca.abi).
  bool abi_known = true;
};

// The HCA, PCIe, port and IPoIB checks, from the inventory alone (no network traffic).
// sysfs_root is where the kernel's userspace interfaces (infiniband_mad, infiniband_verbs)
// are looked up. Port counters are judged only when the inventory read them.
std::vector<Result> check_local(const profile::ResolvedNode& node, const inventory::Host& host,
                                const std::string& sysfs_root, const LocalOptions& options);

// ICMP echo to every peer address (node.peers) out of the interface it belongs to, all in
// parallel; each probe fails when no reply arrives within deadline_ms.
std::vector<Result> check_ip_peers(const profile::ResolvedNode& node, int deadline_ms);

// {"host", "ok", "checks": [{"id", "subject", "status", "expected", "observed", "message"}]}
std::string report_to_json(const Report& report);
// An aligned table for people, failures first marked.
std::string report_to_text(const Report& report);
// NHC-style lines, one per failure ("ERROR:  ibsetup:  Health check failed:  <message>") and
// per warning ("WARNING:  ibsetup:  <message>").
std::string report_to_nhc(const Report& report);

}  // namespace ibsetup::check
#pragma GCC visibility pop
