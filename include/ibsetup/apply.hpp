// Carrying a plan out: the link backend seam, the journal that rolls back what was done, and
// the verification that re-reads the host until it matches the profile.
#pragma once
#pragma GCC visibility push(default)  // the public API: export.hpp says why

#include <ibsetup/address.hpp>
#include <ibsetup/error.hpp>
#include <ibsetup/firmware.hpp>
#include <ibsetup/plan.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ibsetup::apply {

// The kernel (or another backend) refused an operation; what() says which and why.
class BackendError : public Error {
public:
  explicit BackendError(const std::string& message) : Error(ErrorKind::apply_failed, message) {}
};

// The operations apply needs on links and addresses. One implementation over rtnetlink
// (netlink_backend.cpp, the only apply code that includes libnl). Each throws BackendError.
// The netlink backend connects, and loads libnl-3, at its first call: when it cannot, that
// call throws EnvironmentError instead, before anything has changed.
class LinkBackend {
public:
  virtual ~LinkBackend() = default;
  virtual void create_child(const std::string& parent, const std::string& name, uint16_t pkey,
                            std::optional<profile::Mode> mode) = 0;
  virtual void delete_link(const std::string& name) = 0;
  virtual void set_mode(const std::string& name, profile::Mode mode) = 0;
  virtual void set_mtu(const std::string& name, int mtu) = 0;
  virtual void add_address(const std::string& name, const IpPrefix& address) = 0;
  virtual void remove_address(const std::string& name, const IpPrefix& address) = 0;
  virtual void set_up(const std::string& name, bool up) = 0;
};

std::unique_ptr<LinkBackend> make_netlink_backend();

// The rtnetlink request an action sends, for --dry-run: "RTM_NEWLINK (create, excl) ifname
// ib0.8001 link ib0 linkinfo{kind ipoib, data{pkey 0x8001, mode datagram}}".
std::string describe_request(const plan::Action& action);

struct Options {
  int verify_tries = 10;  // re-reads of the host after applying (at least 1 is made)
  int verify_interval_ms = 100;
  int step_delay_ms = 0;  // pause after each step (tests of interruption; demos)
  // Polled between steps, and by apply_node while it waits for the lock; true means stop and
  // roll back (SIGINT/SIGTERM). Empty: never; one that throws counts as true.
  std::function<bool()> interrupted = [] { return false; };
  // Progress lines ("  + create ib0.8001 ... ok"); may be empty. What it throws is ignored.
  std::function<void(const std::string&)> progress;
};

// Which backend carries out a node's changes.
enum class Backend { netlink, networkmanager };

const char* to_string(Backend backend);

// A profile on a declared interface that ibsetup did not create (NetworkManager backend).
struct Foreign {
  std::string interface;
  std::string id;
  std::string uuid;
  std::string saved;  // with --adopt: the keyfile it was saved to before deletion
};

// What an apply did, for both backends. The NetworkManager-only members stay empty for netlink.
struct Report {
  std::string host;
  Backend backend = Backend::netlink;
  size_t changes = 0;                      // actions carried out (and kept)
  std::vector<std::string> done;           // descriptions of the actions carried out
  std::vector<std::string> unchanged;      // NetworkManager: profiles that already matched
  std::vector<Foreign> foreign;            // NetworkManager: other profiles on the interfaces
  std::vector<std::string> rollback;       // each rollback step with its outcome
  std::vector<std::string> not_converged;  // "ib0 mtu: desired 4092, current 2044"
  std::string checkpoint;                  // NetworkManager: D-Bus path of the checkpoint
  std::string failure;                     // empty on success
  bool ok() const { return failure.empty(); }
};

// Applies plan.actions in order through backend. After the last one, calls replan() (which
// re-reads the host) until it returns no actions, up to options.verify_tries times; a plan
// without actions is not re-read (the inspection it came from is the verification). On any
// backend failure, interruption or failed verification it undoes every step it made, in
// reverse order, and reports each. A backend call that throws anything (BackendError, another
// exception of a caller's LinkBackend, std::bad_alloc) is a failed step: the report says what
// happened. Only an EnvironmentError from a call made before any step succeeded (nothing
// changed yet) passes through.
Report apply_plan(const plan::Plan& plan, LinkBackend& backend,
                  const std::function<plan::Plan()>& replan, const Options& options);

// The verification both backends run after their changes: calls replan() until it returns
// neither actions nor errors, up to options.verify_tries times, options.verify_interval_ms
// apart. Fills report.not_converged with what still differs ("desired X, current Y") and sets
// report.failure when the host did not converge, could not be read or the run was interrupted.
// Returns report.ok().
bool verify_host(const std::function<plan::Plan()>& replan, const Options& options, Report& report);

// The lines of report.rollback whose undo did not happen: none when every undo said ok (or
// found a profile NetworkManager's checkpoint had already removed), and when nothing was rolled
// back. Any other (a step the kernel refused, one not tried) leaves the node part-way.
std::vector<std::string> rollback_failures(const Report& report);

// netlink: {"host", "backend", "ok", "changes", "done", "rollback", "rollback_failed",
// "not_converged", "failure"} (rollback_failed: rollback_failures());
// networkmanager adds "unchanged", "foreign" and "checkpoint" (see README, apply --json).
std::string report_to_json(const Report& report);

// An exclusive, host-wide lock (flock) for one apply or firmware --apply at a time. Waits up to
// wait_seconds, then throws Error(busy) naming the holder's pid; throws EnvironmentError naming
// the file when it cannot be opened or locked for another reason than a holder.
class ApplyLock {
public:
  ApplyLock(const std::string& path, int wait_seconds);
  // The same, polling stop while it waits (every 50 ms): once stop returns true (or throws),
  // throws Error(apply_failed), "stopped while waiting for PATH (held by pid N)".
  ApplyLock(const std::string& path, int wait_seconds, const std::function<bool()>& stop);
  ~ApplyLock();
  ApplyLock(const ApplyLock&) = delete;
  ApplyLock& operator=(const ApplyLock&) = delete;

private:
  int m_fd = -1;
};

// Throws EnvironmentError naming the missing capability unless this process has
// CAP_NET_ADMIN (checked before any change).
void require_net_admin();

// --backend: auto (the profile's, else what NetworkManager manages), or one named.
enum class BackendRequest { automatic, networkmanager, netlink };

// Which backend a node is applied through, and why (for the user).
struct BackendPick {
  Backend backend = Backend::netlink;
  std::string why;  // "netlink: asked for with --backend"
};

// request wins, then the profile's backend, then nm::choose_backend. Throws InputError when the
// node's interfaces ask for different backends.
BackendPick pick_backend(BackendRequest request, const profile::ResolvedNode& node);

// plan_node: the plan and the firmware section.
struct NodePlan {
  inventory::Host host;
  plan::Plan plan;
  firmware::StepOutcome firmware;
  // Interface changes or link types would change (plan --detailed-exitcode).
  bool changes() const { return !plan.actions.empty() || firmware.changes(); }
};

// Observes sysfs_root (inventory::inspect_node) and plans the node; queries the firmware link
// types without setting them (firmware::query_step).
NodePlan plan_node(const profile::ResolvedNode& node, const std::string& sysfs_root,
                   const plan::Options& options, const firmware::StepOptions& firmware);

// The `firmware` command: reads the node's link types (sysfs_root may be a captured tree, then
// options.mstconfig is required by the caller) and, with set, takes the apply lock and sets
// those that differ (firmware::set_step). Unlike query_step, a failing query throws. A SIGINT,
// SIGTERM or SIGHUP that the command line holds back until it has printed (see --wait) ends
// the wait for the lock: Error(apply_failed), "...; nothing was changed".
firmware::StepOutcome firmware_node(const profile::ResolvedNode& node,
                                    const std::string& sysfs_root,
                                    const firmware::StepOptions& options, bool set,
                                    const std::string& lock_file, int wait_seconds);

struct NodeOptions {
  BackendRequest backend = BackendRequest::automatic;
  bool dry_run = false;  // plan and query, change nothing, take no lock
  bool prune = false;    // also the profile's prune
  std::string lock_file = "/run/ibsetup.lock";
  int wait_seconds = 0;
  // NetworkManager backend only (Error(usage) with netlink when changed).
  bool activate = true;
  bool adopt = false;
  std::string adopt_dir = "/var/lib/ibsetup/adopted";
  unsigned rollback_timeout_s = 120;
  firmware::StepOptions firmware;
  // Verification, step delay, interruption poll and progress lines of both backends.
  Options steps;
  // Called as soon as each stage is known, so a front end can print in order: the backend
  // chosen, the firmware step's outcome, and (netlink: with the plan) just before the first
  // change. All may be empty.
  std::function<void(const BackendPick&)> on_backend;
  std::function<void(const firmware::StepOutcome&)> on_firmware;
  std::function<void(const plan::Plan*)> before_changes;
  // Called once the lock is held; what it returns lives until the changes end.
  std::function<std::shared_ptr<void>()> while_locked;
};

struct NodeOutcome {
  // ok; bad_input (the plan has errors, nothing changed); environment (firmware failed);
  // reboot_required (a link type changes at the next boot: interfaces left alone);
  // apply_failed (rolled back, the report says what and why).
  ErrorKind result = ErrorKind::ok;
  BackendPick backend;
  firmware::StepOutcome firmware;
  // netlink: the plan carried out (or refused, or only shown by a dry run).
  std::optional<plan::Plan> plan;
  Report report;  // empty until a backend ran
  bool ran = false;
  // Plan warnings (netlink) and the foreign profiles left alone (NetworkManager), as text.
  std::vector<std::string> warnings;
};

// apply for one node: backend choice, then (unless a dry run) the lock, the firmware step, the
// changes through the backend, verification against the host and rollback on failure.
// Throws Error for what stops it before any change (usage, lock busy, missing capability,
// NetworkManager unreachable, steps.interrupted while it waits for the lock: apply_failed,
// "...; nothing was changed"); every later outcome is in the result.
NodeOutcome apply_node(const profile::ResolvedNode& node, const std::string& cluster,
                       const NodeOptions& options);

}  // namespace ibsetup::apply
#pragma GCC visibility pop
