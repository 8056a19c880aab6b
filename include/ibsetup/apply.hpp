// Carrying a plan out: the link backend seam, the journal that rolls back what was done, and
// the verification that re-reads the host until it matches the profile.
#pragma once
#pragma GCC visibility push(default)  // the public API: export.hpp says why

#include <ibsetup/address.hpp>
#include <ibsetup/error.hpp>
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
  explicit BackendError(const std::string& message) : Error(ExitCode::apply_failed, message) {}
};

// The operations apply needs on links and addresses. One implementation over rtnetlink
// (netlink_backend.cpp, the only apply code that includes libnl). Each throws BackendError.
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
  int verify_tries = 10;  // re-reads of the host after applying
  int verify_interval_ms = 100;
  int step_delay_ms = 0;  // pause after each step (tests of interruption; demos)
  // Polled between steps; true means stop and roll back (SIGINT/SIGTERM).
  std::function<bool()> interrupted = [] { return false; };
  // Progress lines ("  + create ib0.8001 ... ok"); may be empty.
  std::function<void(const std::string&)> progress;
};

struct Report {
  std::string host;
  size_t changes = 0;                      // actions carried out (and kept)
  std::vector<std::string> done;           // descriptions of the actions carried out
  std::vector<std::string> rollback;       // each rollback step with its outcome
  std::vector<std::string> not_converged;  // "ib0 mtu: desired 4092, current 2044"
  std::string failure;                     // empty on success
  bool ok() const { return failure.empty(); }
};

// Applies plan.actions in order through backend. After the last one, calls replan() (which
// re-reads the host) until it returns no actions, up to options.verify_tries times. On any
// backend failure, interruption or failed verification it undoes every step it made, in
// reverse order, and reports each. Never throws BackendError; the report says what happened.
Report apply_plan(const plan::Plan& plan, LinkBackend& backend,
                  const std::function<plan::Plan()>& replan, const Options& options);

// {"host", "ok", "changes", "done", "rollback", "not_converged", "failure"}
std::string report_to_json(const Report& report);

// An exclusive, host-wide lock (flock) for one apply or firmware --apply at a time. Waits up to
// wait_seconds, then throws Error(busy) naming the holder's pid; throws EnvironmentError naming
// the file when it cannot be opened or locked for another reason than a holder.
class ApplyLock {
public:
  ApplyLock(const std::string& path, int wait_seconds);
  ~ApplyLock();
  ApplyLock(const ApplyLock&) = delete;
  ApplyLock& operator=(const ApplyLock&) = delete;

private:
  int m_fd = -1;
};

// Throws EnvironmentError naming the missing capability unless this process has
// CAP_NET_ADMIN (checked before any change).
void require_net_admin();

}  // namespace ibsetup::apply
#pragma GCC visibility pop
