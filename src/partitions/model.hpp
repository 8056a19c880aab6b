// The fabric side (issue 16): what the subnet manager's partitions must hold, computed from the
// profile and the hosts' inventories. Shared by the generator (layout.cpp), the inventory
// sources (inventories.cpp), the writers (opensm, ufm) and the fabric verification (verify.cpp).
// Internal to libibsetup (not installed); the CLI reaches it through src/cli.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ibsetup::partitions {

// One HCA port of one host, as an inventory source reports it.
struct InventoryPort {
  std::string device;      // "mlx5_0"
  int port = 0;            // 1-based
  std::string guid;        // port GUID, "0x" and 16 lowercase hex digits
  bool infiniband = true;  // link layer; an Ethernet (RoCE) port never joins a partition
};

// What one source knows of one host.
struct InventoryHost {
  std::string host;         // the short name
  std::string given;        // the name as the source gave it, perhaps in full (cn01.site)
  bool incomplete = false;  // a device or port of it was left out for a problem
  std::string origin;       // where it came from: "FILE:LINE", "DIR/HOST.json", "-:LINE"
  std::vector<InventoryPort> ports;
  // netdev name -> its HCA port (the inventory's binding), from `inspect --json` only.
  std::map<std::string, std::pair<std::string, int>> netdevs;
};

// A located problem in an input ("-:12: not JSON: ...", "topo.txt:40: ...").
struct SourceProblem {
  std::string where;
  std::string message;
};

struct Inventories {
  std::map<std::string, InventoryHost> hosts;  // by host name
  std::vector<SourceProblem> problems;         // unparseable lines, a host given twice, ...
};

// One member port of a partition.
struct Member {
  std::string host;
  std::string device;
  int port = 0;
  std::string guid;
  bool full = true;  // full member (P_Key bit 15 set) or limited
};

struct Partition {
  std::string name;       // "ib_8001" unless the profile names it
  uint16_t pkey = 0;      // without the membership bit (0x0001 .. 0x7fff)
  bool ipoib = true;      // at least one IPoIB interface uses it
  bool all_full = false;  // "ALL=full" (the Default partition unless the profile says otherwise)
  bool all_limited = false;
  std::optional<int> mtu_code;   // OpenSM/IBTA code: 1=256 2=512 3=1024 4=2048 5=4096
  std::optional<int> rate_code;  // IBTA rate code, when the profile declares it
  std::optional<int> sl;
  std::vector<Member> members;  // sorted by GUID, no duplicates
  // Ports whose GUID another host's member already holds: "cn02 mlx5_0/1 (0x..., as cn01
  // mlx5_0/1)", sorted. Written as comments, so the file says who was left out.
  std::vector<std::string> duplicates;
};

// What the report lists instead of dropping anything quietly.
struct Missing {
  std::string host;
  std::string what;  // "no inventory", "no port for ib0.8001: candidates mlx5_0/1, mlx5_1/1", ...
  std::vector<uint16_t> pkeys;  // the partitions it is missing from (without the membership bit)
};

struct Layout {
  std::vector<Partition> partitions;  // Default first, then by pkey
  // The port of every base interface of every profile host whose inventory resolves it,
  // member of a partition or not (a host in Default alone has one too): what --verify reads.
  // Sorted by GUID; a GUID on two hosts is kept for the first.
  std::vector<Member> ports;
  std::vector<Missing> missing;              // members that could not be resolved
  std::vector<std::string> duplicate_guids;  // "0x... on cn01 mlx5_0/1 and cn02 mlx5_0/1"
  std::vector<std::string> unknown_hosts;    // inventories of hosts not in the profile
  std::vector<std::string> warnings;
};

}  // namespace ibsetup::partitions
