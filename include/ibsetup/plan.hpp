// The plan: a pure function of (desired node, observed host) -> the actions that bring the
// host to the profile, plus the problems that forbid applying it.
#pragma once
#pragma GCC visibility push(default)  // the public API: export.hpp says why

#include <ibsetup/address.hpp>
#include <ibsetup/inventory.hpp>
#include <ibsetup/profile.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ibsetup::plan {

enum class ActionKind {
  delete_child,
  create_child,
  set_mode,
  set_mtu,
  remove_address,
  add_address,
  set_up,
};

const char* to_string(ActionKind kind);

struct Action {
  ActionKind kind = ActionKind::set_up;
  std::string ifname;
  std::string parent;                 // create_child
  uint16_t pkey = 0;                  // create_child, delete_child
  std::optional<profile::Mode> mode;  // create_child (initial mode), set_mode (target)
  std::optional<inventory::Reading<inventory::IpoibMode>> from_mode;  // set_mode, delete_child
  int mtu = 0;                                                        // set_mtu
  std::optional<int> from_mtu;                                        // set_mtu
  std::optional<IpPrefix> address;                                    // add_address, remove_address
  // delete_child: what rollback must recreate (addresses, and whether it was up).
  std::vector<IpPrefix> restore_addresses;
  bool was_up = false;

  // One line for people: "+ create ib0.8001 (pkey 0x8001, parent ib0)", "~ ib0 mtu 2044 -> 4092".
  std::string describe() const;
};

// A problem that forbids applying the plan, and the interface it is about (a declared one, or
// an undeclared pkey child the plan would prune).
struct PlanError {
  std::string interface;
  std::string message;

  // "ib0: message", as plan_to_text and plan_to_json print it.
  std::string str() const { return interface + ": " + message; }
  bool operator==(const PlanError& other) const
  {
    return interface == other.interface && message == other.message;
  }
};

struct Plan {
  std::string host;
  std::vector<Action> actions;
  std::vector<PlanError> errors;      // each forbids applying the plan
  std::vector<std::string> warnings;  // reported, not fatal
};

struct Options {
  bool prune = false;  // remove undeclared pkey children of declared interfaces
};

// Computes the plan. Never throws for host state; problems go to Plan::errors.
Plan make_plan(const profile::ResolvedNode& desired, const inventory::Host& observed,
               const Options& options);

// The names of the netdevs a node's plan looks at (declared interfaces and their parents).
std::vector<std::string> netdev_names(const profile::ResolvedNode& desired);

std::string plan_to_text(const Plan& plan);

// {"host", "changes", "actions": [{"op", "interface", "text", ...}], "errors", "warnings"}
std::string plan_to_json(const Plan& plan);

}  // namespace ibsetup::plan
#pragma GCC visibility pop
