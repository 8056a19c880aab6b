// The cluster profile: the YAML model (one file for the whole cluster), its loading and
// validation, and its resolution into one node's desired state.
#pragma once
#pragma GCC visibility push(default)  // the public API: export.hpp says why

#include <ibsetup/address.hpp>
#include <ibsetup/diagnostics.hpp>

#include <cstdint>
#include <map>
#include <unordered_map>
#include <optional>
#include <string>
#include <vector>

namespace ibsetup::profile {

enum class Mode { datagram, connected };
enum class LinkType { ib, eth, vpi };
enum class Backend { automatic, networkmanager, netlink };
enum class PortState { down, init, armed, active, active_defer };
enum class Membership { full, limited };

const char* to_string(Mode mode);
const char* to_string(LinkType type);
const char* to_string(Backend backend);
const char* to_string(PortState state);
const char* to_string(Membership membership);

// Largest IPoIB MTU in datagram mode (4K IB MTU - 4) and in connected mode.
constexpr int k_datagram_mtu_max = 4092;
constexpr int k_connected_mtu_max = 65520;
constexpr int k_mtu_min = 68;
constexpr int k_ifname_max = 15;  // IFNAMSIZ - 1

// A value from the profile with where it was written.
template <class T>
struct Setting {
  std::optional<T> value;
  Mark mark;

  explicit operator bool() const { return value.has_value(); }
  const T& operator*() const { return *value; }
  const T* operator->() const { return &*value; }
};

struct PortSpec {
  Mark mark;
  int port = 0;
  Setting<LinkType> link_type;
  Setting<double> rate;  // minimum Gb/s
  Setting<PortState> state;
};

struct HcaSpec {
  Mark mark;
  std::string path;             // nodes[0].hcas[1]
  Setting<std::string> device;  // mlx5_0
  Setting<std::string> pci;     // 0000:3b:00.0 (normalised with domain)
  Setting<LinkType> link_type;
  Setting<std::string> firmware_min;
  Setting<int> pcie_width;
  Setting<double> pcie_speed;  // GT/s
  std::vector<PortSpec> ports;
};

// One interface as written: in a group, or as a per-host override (only the fields given).
struct InterfaceSpec {
  Mark mark;
  std::string path;  // nodes[0].interfaces[1] or hosts.cn017.interfaces.ib0
  Setting<std::string> name;
  Setting<std::string> device;
  Setting<int> port;
  Setting<std::string> parent;
  Setting<uint16_t> pkey;  // with the full-membership bit 0x8000 set
  Setting<Mode> mode;
  Setting<int> mtu;
  Setting<Backend> backend;
  Setting<IpPrefix> ipv4;  // a pool in a group, an address in a host override
  Setting<IpPrefix> ipv6;
  Setting<uint64_t> ipv4_offset;
  Setting<uint64_t> ipv6_offset;
  bool broken = false;  // name, parent or pkey was written but invalid (already reported)
};

struct Defaults {
  Setting<Mode> mode;
  Setting<int> mtu;
  Setting<Backend> backend;
  Setting<bool> prune;  // remove undeclared pkey children of declared interfaces
};

struct Group {
  Mark mark;
  std::string path;  // nodes[0]
  Setting<std::string> hosts_expression;
  int hosts_quote = 0;             // 1 when the hostlist was quoted (for error columns)
  std::vector<std::string> hosts;  // expanded, in order
  std::vector<HcaSpec> hcas;
  std::vector<InterfaceSpec> interfaces;
  std::vector<Setting<std::string>> peers;
  // checks: disable/warn (check ids or groups), counter thresholds, per-peer deadline.
  std::vector<Setting<std::string>> check_disable;
  std::vector<Setting<std::string>> check_warn;
  std::vector<std::pair<Setting<std::string>, Setting<uint64_t>>> counter_max;
  Setting<int> peer_timeout_ms;
  // checks.mpi (issue 17), appended for the soname 1 ABI: the least RLIMIT_MEMLOCK mpi.memlock
  // accepts and the size mpi.reg_mr registers, both in MiB.
  Setting<int> mpi_memlock_min_mib;
  Setting<int> mpi_register_mib;
  // checks.bandwidth {min_fraction, min_gbps} and checks.latency {max_us} (issue 17).
  Setting<double> bandwidth_min_fraction;
  Setting<double> bandwidth_min_gbps;
  Setting<double> latency_max_us;
};

struct HostOverride {
  Mark mark;
  std::string host;
  std::map<std::string, InterfaceSpec> interfaces;  // by interface name
};

// One partition of the subnet manager (`partitions.pkeys[i]`, or `partitions.default`).
struct PartitionSpec {
  Mark mark;
  std::string path;              // partitions.pkeys[0]
  Setting<uint16_t> pkey;        // the partition number, without the membership bit
  Setting<std::string> name;     // OpenSM's partition name
  Setting<int> mtu;              // IB MTU in bytes (256 ... 4096) of the IPoIB broadcast group
  Setting<double> rate;          // Gb/s
  Setting<int> sl;               // service level 0 ... 15
  Setting<std::string> limited;  // hostlist of limited members
  std::vector<std::string> limited_hosts;  // expanded, in order
  Setting<Membership> membership;          // the Default partition's: ALL=full or ALL=limited
};

// The optional `partitions:` section: what `ibsetup partitions` writes for the subnet manager.
struct PartitionsSpec {
  Mark mark;
  bool declared = false;
  PartitionSpec default_partition;  // pkey 0x7fff
  std::vector<PartitionSpec> pkeys;
};

struct Profile {
  std::string file;
  int version = 0;
  std::string cluster = "cluster";  // names the cluster in connection UUIDs
  Defaults defaults;
  std::vector<Group> groups;
  std::map<std::string, HostOverride> overrides;
  std::unordered_map<std::string, size_t> group_of_host;  // host -> index into groups
  std::vector<Diagnostic> warnings;
  PartitionsSpec partitions;  // last: the members before it keep their offsets
};

// One interface of one node, with defaults, group and host override merged.
struct ResolvedInterface {
  std::string name;
  std::string path;  // where it was declared
  Mark mark;
  std::optional<std::string> parent;
  std::optional<uint16_t> pkey;
  std::optional<Mode> mode;  // nullopt: leave the kernel's mode alone
  std::optional<int> mtu;    // nullopt: the largest the mode and port allow
  Backend backend = Backend::automatic;
  std::optional<std::string> device;
  std::optional<int> port;
  std::optional<IpPrefix> ipv4;
  std::optional<IpPrefix> ipv6;
};

struct ResolvedPeer {
  std::string host;
  // The peer's addresses on the interfaces this node also has, by interface name.
  std::vector<std::pair<std::string, IpPrefix>> addresses;
};

// What `ibsetup check` is told by the profile beyond the desired state.
struct CheckSpec {
  std::vector<std::string> disable;
  std::vector<std::string> warn;
  std::vector<std::pair<std::string, uint64_t>> counter_max;  // fail above
  int peer_timeout_ms = 1000;
  // checks.mpi (issue 17), appended for the soname 1 ABI. mpi.memlock: the least RLIMIT_MEMLOCK
  // in KiB, nullopt when only unlimited passes; mpi.reg_mr: how many MiB it registers.
  std::optional<uint64_t> mpi_memlock_min_kib;
  int mpi_register_mib = 64;
  // rdma.bandwidth and rdma.latency thresholds (issue 17; appended, soname 1): min_gbps wins
  // over min_fraction of the slower port's rate (default 0.9); no max_us: latency not judged.
  std::optional<double> bandwidth_min_fraction;
  std::optional<double> bandwidth_min_gbps;
  std::optional<double> latency_max_us;
};

// The desired state of one node.
struct ResolvedNode {
  std::string host;
  size_t group = 0;
  std::string group_hosts;  // the group's hostlist expression
  size_t position = 0;      // 1-based position in the group's host list
  std::vector<HcaSpec> hcas;
  std::vector<ResolvedInterface> interfaces;
  std::vector<ResolvedPeer> peers;
  CheckSpec checks;
  bool prune = false;
};

// Loading limits; the defaults are far above any real cluster profile.
struct Limits {
  size_t max_bytes = 64U << 20U;
  int max_depth = 64;
  size_t max_alias_expansion = 1000000;
  // Hosts of all groups together, and the bytes of their names: checked before any hostlist
  // is expanded. The largest InfiniBand clusters have about ten thousand nodes.
  size_t max_hosts = 100000;
  size_t max_host_bytes = 8U << 20U;
  // The heap yaml-cpp may use while parsing, when the program counts it
  // (ibsetup/parse_budget.hpp); a 10,000-host profile needs about 10 MiB.
  size_t max_parse_memory = 256U << 20U;
};

// Reads, parses and validates a profile file. Throws DiagnosticError listing every problem
// (file:line:column: path: message); warnings are kept in Profile::warnings.
Profile load_profile(const std::string& path, const Limits& limits = {});

// The same for a profile held in memory; file_name is used in messages.
Profile load_profile_text(const std::string& text, const std::string& file_name,
                          const Limits& limits = {});

// The desired state of host. Throws InputError when the host is not in the profile, or when
// group_of_host maps it past groups (a Profile not made by load_profile is not validated).
ResolvedNode resolve_node(const Profile& profile, const std::string& host);

// The node name to use when none is given: the short host name of this machine.
std::string default_node_name();

}  // namespace ibsetup::profile

namespace ibsetup::profile {

// The resolved node as the documented `show --json` object.
std::string node_to_json(const ResolvedNode& node);

// The resolved node as aligned text for people.
std::string node_to_text(const ResolvedNode& node);

}  // namespace ibsetup::profile
#pragma GCC visibility pop
