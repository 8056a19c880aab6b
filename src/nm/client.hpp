// A synchronous face on libnm's asynchronous D-Bus calls: each call runs a private main
// context until its reply arrives or its deadline passes (then it is cancelled), so a hung
// NetworkManager never hangs ibsetup.
#pragma once

#include "nm/connection.hpp"

#include <NetworkManager.h>

#include <map>
#include <string>
#include <vector>

namespace ibsetup::nm {

// A NetworkManager call failed; what() says which and NM's reason.
class CallError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct Pending;

// Client::answered() is false.
inline constexpr const char* k_not_answering =
    "NetworkManager holds its D-Bus name but did not answer (hung or stopped?); nothing was read "
    "or changed";

class Client {
public:
  // Connects to NetworkManager on the system bus; throws CallError when the bus cannot be
  // reached. running() tells whether NetworkManager itself answers.
  explicit Client(unsigned call_timeout_s = 25);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  bool running() const;
  // NetworkManager's objects were read: false when it holds its D-Bus name but did not answer
  // in time (hung, stopped), when libnm's cache is empty and every survey would read nothing.
  bool answered() const;
  NMClient* get() const { return m_client; }
  // A call of this run got no answer within the call timeout: NetworkManager is hung or
  // stopped, and every further call would wait as long.
  bool stopped_answering() const { return m_no_answer; }

  NMDevice* device(const std::string& ifname) const;
  std::vector<NMRemoteConnection*> connections() const;

  // NetworkManager's current settings of a profile, read afresh over D-Bus (not libnm's cache).
  GPtr<NMConnection> stored_settings(NMRemoteConnection* remote);

  // to_disk false: in memory only (a profile NetworkManager held unsaved, put back as it was).
  GPtr<NMRemoteConnection> add(GVariant* settings, bool block_autoconnect, bool to_disk = true);
  void update(NMRemoteConnection* remote, GVariant* settings, bool block_autoconnect);
  void remove(NMRemoteConnection* remote);
  void deactivate(NMActiveConnection* active);
  // Activates and waits until the connection is activated; throws with NM's reason.
  void activate(NMRemoteConnection* remote, NMDevice* device, unsigned timeout_s);

  // Returns the checkpoint's D-Bus path.
  std::string checkpoint_create(const std::vector<NMDevice*>& devices, unsigned rollback_timeout_s);
  // Rolls back; returns the devices NetworkManager could not restore ("ib0: unmanaged"), empty
  // when every one was. Throws when the rollback itself is refused.
  std::vector<std::string> checkpoint_rollback(const std::string& path);
  void checkpoint_destroy(const std::string& path);
  // NetworkManager's own rollback of path now happens seconds from now (AdjustRollbackTimeout).
  void checkpoint_adjust(const std::string& path, unsigned seconds);

private:
  GAsyncResult* wait(Pending& pending, const std::string& what, unsigned timeout_s);
  // take_message(error), noting a call that timed out (stopped_answering).
  std::string failed(GError* error);

  GMainContext* m_context = nullptr;
  NMClient* m_client = nullptr;
  unsigned m_timeout_s;
  bool m_no_answer = false;
  // The checkpoint's devices by D-Bus path: a rollback names them by interface even when one
  // is gone by then.
  std::map<std::string, std::string> m_checkpoint_devices;
};

// The devices a CheckpointRollback's results (D-Bus path -> NMRollbackResult) say were not
// restored, as "ib0: no longer managed", sorted; devices maps paths to interface names.
std::vector<std::string> rollback_failures(GHashTable* results,
                                           const std::map<std::string, std::string>& devices);

}  // namespace ibsetup::nm
