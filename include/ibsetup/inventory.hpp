// What the host has: HCAs, their ports and PCI links, and network devices, read from sysfs
// (rooted at a path, so captured trees can be inspected anywhere), netlink and libibverbs.
#pragma once
#pragma GCC visibility push(default)  // the public API: export.hpp says why

#include <ibsetup/address.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ibsetup::inventory {

// ports/N/state ("4: ACTIVE").
enum class PortState { nop, down, init, armed, active, active_defer, other };
// ports/N/phys_state ("5: LinkUp").
enum class PhysState {
  sleep,
  polling,
  disabled,
  port_configuration_training,
  link_up,
  link_error_recovery,
  phy_test,
  other,
};
// ports/N/link_layer; `unknown` is the kernel's own "Unknown" (no link layer reported).
enum class LinkLayer { infiniband, ethernet, unknown, other };
// class/net/IF/mode of an IPoIB netdev.
enum class IpoibMode { datagram, connected, other };

// The kernel's spelling of a value ("ACTIVE", "LinkUp", "InfiniBand", "datagram"); "" for other.
const char* to_string(PortState value);
const char* to_string(PhysState value);
const char* to_string(LinkLayer value);
const char* to_string(IpoibMode value);

// A value of a kernel enumeration as inventory read it. Code compares `value`; a spelling this
// version does not know is kept in `text` (with value `other`) so that the outputs show it as
// the kernel wrote it.
template <class E>
struct Reading {
  E value = E::other;
  std::string text;  // only for other

  Reading() = default;
  // Implicit, so that a known value is assigned as is: p.state = PortState::active.
  Reading(E known) : value(known) {}
  // The text is kept only with other: a known value is always shown in the kernel's spelling.
  Reading(E v, std::string other_text)
      : value(v), text(v == E::other ? std::move(other_text) : std::string())
  {
  }

  // The kernel's spelling: to_string(value), or the text read for an unknown value.
  std::string name() const { return value == E::other ? text : std::string(to_string(value)); }

  friend bool operator==(const Reading& a, const Reading& b)
  {
    return a.value == b.value && a.text == b.text;
  }
  friend bool operator!=(const Reading& a, const Reading& b) { return !(a == b); }
  friend bool operator==(const Reading& a, E b) { return a.value == b; }
  friend bool operator!=(const Reading& a, E b) { return a.value != b; }
};

struct PciLink {
  std::string address;  // 0000:3b:00.0
  std::optional<std::string> vendor;
  std::optional<std::string> device;
  std::optional<double> link_speed_gts;
  std::optional<int> link_width;
  std::optional<double> max_link_speed_gts;
  std::optional<int> max_link_width;
  std::optional<int> numa_node;
  std::optional<std::string> bridge;  // upstream bridge address
  std::optional<double> bridge_max_speed_gts;
  std::optional<int> bridge_max_width;
};

struct Port {
  int port = 0;
  std::optional<int> state_code;  // 4
  std::optional<Reading<PortState>> state;
  std::optional<int> phys_state_code;  // 5
  std::optional<Reading<PhysState>> phys_state;
  std::optional<double> rate_gbps;
  std::optional<std::string> width;  // 4X
  std::optional<std::string> speed;  // HDR
  std::optional<Reading<LinkLayer>> link_layer;
  std::optional<int> lid;
  std::optional<int> sm_lid;
  std::optional<int> lmc;
  std::optional<std::string> cap_mask;       // 0xa659e848
  std::optional<std::string> port_guid;      // 0x0c42a1030016e7e0
  std::vector<uint16_t> pkeys;               // non-zero P_Key table entries
  std::optional<int> active_mtu;             // bytes, from libibverbs
  std::optional<std::string> netdev;         // base IPoIB netdev on this port
  std::map<std::string, uint64_t> counters;  // only with counters requested
  std::vector<std::string> saturated;        // counters stuck at their maximum
};

struct Device {
  std::string name;
  std::optional<std::string> node_type;  // CA
  std::optional<std::string> fw_ver;
  std::optional<std::string> node_guid;
  std::optional<std::string> sys_image_guid;
  std::optional<std::string> hca_type;
  std::optional<std::string> board_id;
  std::optional<std::string> hw_rev;
  std::optional<std::string> driver;
  std::optional<PciLink> pci;
  std::vector<Port> ports;
};

struct Netdev {
  std::string name;
  bool ipoib = false;  // type 32 (ARPHRD_INFINIBAND)
  std::optional<int> type;
  std::optional<int> ifindex;
  std::optional<std::string> device;  // HCA name
  std::optional<int> port;
  std::optional<Reading<IpoibMode>> mode;
  std::optional<uint16_t> pkey;
  std::optional<std::string> parent;  // for pkey children
  std::optional<bool> umcast;
  std::optional<int> mtu;
  std::optional<std::string> operstate;
  std::optional<bool> admin_up;  // IFF_UP in flags
  std::optional<bool> carrier;
  std::vector<IpPrefix> addresses;  // from netlink on the live host
};

struct Host {
  std::string host;
  std::vector<Device> devices;
  std::vector<Netdev> netdevs;
  std::vector<std::string> warnings;  // malformed values, each naming its file
};

// Sources beyond sysfs; each may be absent (then the fields they fill stay null).
class AddressSource {
public:
  virtual ~AddressSource() = default;
  // CIDR addresses by interface index ("10.10.0.1/16", "fe80::1/64"); inspect() parses them.
  virtual std::map<int, std::vector<std::string>> addresses() = 0;
};

class VerbsSource {
public:
  virtual ~VerbsSource() = default;
  // Active MTU in bytes of device/port, or nullopt when the device cannot be opened.
  virtual std::optional<int> active_mtu(const std::string& device, int port) = 0;
};

struct Options {
  std::string sysfs_root = "/sys";
  bool counters = false;
  // Netdevs to report even when they are neither IPoIB nor on an HCA (what a profile names).
  std::vector<std::string> netdev_names;
  AddressSource* addresses = nullptr;
  VerbsSource* verbs = nullptr;
};

// Reads the host. Never throws for odd or missing sysfs content: missing files give nullopt,
// malformed ones a warning naming the file. Throws EnvironmentError when the root itself
// cannot be read.
Host inspect(const Options& options);

// The documented `inspect --json` object.
std::string host_to_json(const Host& host);

// Reads a Host back from `inspect --json` output (golden tests, `check --inventory`). Throws
// InputError (ibsetup/error.hpp) when the text is not strict JSON (the message starts with
// "line L, column C: " where there is one place) or lacks the documented shape (the message
// names the member: "devices[0].ports[1].port: expected an integer, got a string"). Members
// it does not know are ignored; nesting deeper than 64 and duplicate keys are refused. An
// address that is not CIDR is left out with a warning naming it (the planner ignored such
// addresses before they were typed).
Host host_from_json(const std::string& text);

// One block per HCA for people; anomalies are marked with '!'.
std::string host_to_text(const Host& host);

// True when root is this machine's own /sys ("/sys", "/sys/", "//sys", a link to it), where
// netlink and libibverbs describe the same host as the tree.
bool is_live_root(const std::string& root);

// Live sources for the running host (netlink, libibverbs).
std::unique_ptr<AddressSource> make_netlink_address_source();
std::unique_ptr<VerbsSource> make_verbs_source();

// inspect(options), with the live sources attached when options.sysfs_root is this machine's
// own /sys (for a captured tree they would describe another host).
Host inspect_host(Options options);

}  // namespace ibsetup::inventory

namespace ibsetup::profile {
struct ResolvedNode;
}

namespace ibsetup::inventory {

// What plan, apply, firmware and check observe of a node: inspect_host() of sysfs_root with
// the netdevs the node's profile names, labelled with the node's host name.
Host inspect_node(const profile::ResolvedNode& node, const std::string& sysfs_root,
                  bool counters = false);

}  // namespace ibsetup::inventory

#pragma GCC visibility pop
