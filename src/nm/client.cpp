#include "nm/client.hpp"
#include "nm/plugin.hpp"

#include <algorithm>
#include <cstdlib>

namespace ibsetup::nm {

struct Pending {
  GAsyncResult* result = nullptr;
  GCancellable* cancellable = g_cancellable_new();
  Pending() = default;
  ~Pending()
  {
    if (result != nullptr) {
      g_object_unref(result);
    }
    g_object_unref(cancellable);
  }
  Pending(const Pending&) = delete;
  Pending& operator=(const Pending&) = delete;
};

namespace {

extern "C" void on_ready(GObject* /*source*/, GAsyncResult* result, gpointer data)
{
  static_cast<Pending*>(data)->result = G_ASYNC_RESULT(g_object_ref(result));
}

extern "C" gboolean on_timeout(gpointer data)
{
  *static_cast<bool*>(data) = true;
  return G_SOURCE_REMOVE;
}

// Runs context until done() or timeout_s passes; returns false on timeout.
template <class Done>
bool run_until(GMainContext* context, unsigned timeout_s, Done done)
{
  bool timed_out = false;
  GSource* timer = g_timeout_source_new_seconds(timeout_s);
  g_source_set_callback(timer, on_timeout, &timed_out, nullptr);
  g_source_attach(timer, context);
  while (!done() && !timed_out) {
    g_main_context_iteration(context, TRUE);
  }
  g_source_destroy(timer);
  g_source_unref(timer);
  return done();
}

std::string active_state_reason(NMActiveConnection* active)
{
  GEnumClass* cls = G_ENUM_CLASS(g_type_class_ref(NM_TYPE_ACTIVE_CONNECTION_STATE_REASON));
  const GEnumValue* v = g_enum_get_value(cls, nm_active_connection_get_state_reason(active));
  std::string reason = v != nullptr ? v->value_nick : "unknown reason";
  g_type_class_unref(cls);
  return reason;
}

}  // namespace

Client::Client(unsigned call_timeout_s)
    : m_context(g_main_context_new()), m_timeout_s(call_timeout_s)
{
  // libnm delivers replies and property changes to the thread-default context of the
  // thread that created the client; a private one keeps ibsetup's waits self-contained.
  g_main_context_push_thread_default(m_context);
  GError* error = nullptr;
  m_client = nm_client_new(nullptr, &error);
  if (m_client == nullptr) {
    g_main_context_pop_thread_default(m_context);
    g_main_context_unref(m_context);
    // Which bus: DBUS_SYSTEM_BUS_ADDRESS overrides the standard socket, and a wrong one in the
    // environment is the usual cause.
    const char* env = std::getenv("DBUS_SYSTEM_BUS_ADDRESS");
    throw CallError("cannot reach NetworkManager on the system D-Bus (" +
                    (env != nullptr && *env != '\0' ? "DBUS_SYSTEM_BUS_ADDRESS=" + std::string(env)
                                                    : std::string(plugin::k_default_system_bus)) +
                    "): " + failed(error));
  }
}

Client::~Client()
{
  g_object_unref(m_client);
  // Let libnm release what it still holds in the context before it goes.
  while (g_main_context_iteration(m_context, FALSE)) {
  }
  g_main_context_pop_thread_default(m_context);
  g_main_context_unref(m_context);
}

bool Client::running() const
{
  return nm_client_get_nm_running(m_client) != FALSE;
}

bool Client::answered() const
{
  // The manager's Version property comes with the first GetManagedObjects; a running
  // NetworkManager always has one.
  return nm_client_get_version(m_client) != nullptr;
}

NMDevice* Client::device(const std::string& ifname) const
{
  return nm_client_get_device_by_iface(m_client, ifname.c_str());
}

std::vector<NMRemoteConnection*> Client::connections() const
{
  std::vector<NMRemoteConnection*> out;
  const GPtrArray* all = nm_client_get_connections(m_client);
  for (guint i = 0; i < all->len; ++i) {
    out.push_back(NM_REMOTE_CONNECTION(g_ptr_array_index(all, i)));
  }
  return out;
}

std::string Client::failed(GError* error)
{
  // GLib's own D-Bus call timeout may come before wait()'s: NetworkManager is just as hung.
  if (error != nullptr && (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT) != FALSE ||
                           g_error_matches(error, G_DBUS_ERROR, G_DBUS_ERROR_NO_REPLY) != FALSE ||
                           g_error_matches(error, G_DBUS_ERROR, G_DBUS_ERROR_TIMEOUT) != FALSE ||
                           g_error_matches(error, G_DBUS_ERROR, G_DBUS_ERROR_TIMED_OUT) != FALSE)) {
    m_no_answer = true;
  }
  return take_message(error);
}

GAsyncResult* Client::wait(Pending& pending, const std::string& what, unsigned timeout_s)
{
  if (!run_until(m_context, timeout_s, [&] { return pending.result != nullptr; })) {
    g_cancellable_cancel(pending.cancellable);
    run_until(m_context, 5, [&] { return pending.result != nullptr; });
    m_no_answer = true;
    throw CallError(what + ": NetworkManager did not answer within " + std::to_string(timeout_s) +
                    " s");
  }
  return pending.result;
}

GPtr<NMConnection> Client::stored_settings(NMRemoteConnection* remote)
{
  GError* error = nullptr;
  const char* path = remote != nullptr ? nm_connection_get_path(NM_CONNECTION(remote)) : nullptr;
  if (path == nullptr) {
    throw CallError("read back: NetworkManager no longer holds the profile");
  }
  GVariant* reply = g_dbus_connection_call_sync(
      nm_client_get_dbus_connection(m_client), NM_DBUS_SERVICE, path,
      NM_DBUS_INTERFACE_SETTINGS_CONNECTION, "GetSettings", nullptr, G_VARIANT_TYPE("(a{sa{sv}})"),
      G_DBUS_CALL_FLAGS_NONE, static_cast<int>(m_timeout_s * 1000), nullptr, &error);
  if (reply == nullptr) {
    throw CallError(std::string("read back ") + path + ": " + failed(error));
  }
  VariantPtr settings(g_variant_get_child_value(reply, 0));
  g_variant_unref(reply);
  GPtr<NMConnection> c(nm_simple_connection_new_from_dbus(settings.get(), &error));
  if (!c) {
    throw CallError(std::string("read back ") + path + ": " + failed(error));
  }
  return c;
}

GPtr<NMRemoteConnection> Client::add(GVariant* settings, bool block_autoconnect, bool to_disk)
{
  Pending p;
  auto flags = static_cast<NMSettingsAddConnection2Flags>(
      (to_disk ? NM_SETTINGS_ADD_CONNECTION2_FLAG_TO_DISK
               : NM_SETTINGS_ADD_CONNECTION2_FLAG_IN_MEMORY) |
      (block_autoconnect ? NM_SETTINGS_ADD_CONNECTION2_FLAG_BLOCK_AUTOCONNECT : 0));
  nm_client_add_connection2(m_client, settings, flags, nullptr, TRUE, p.cancellable, on_ready, &p);
  GError* error = nullptr;
  GPtr<NMRemoteConnection> remote(nm_client_add_connection2_finish(
      m_client, wait(p, "add connection", m_timeout_s), nullptr, &error));
  if (!remote) {
    throw CallError(failed(error));
  }
  return remote;
}

void Client::update(NMRemoteConnection* remote, GVariant* settings, bool block_autoconnect)
{
  Pending p;
  auto flags = static_cast<NMSettingsUpdate2Flags>(
      NM_SETTINGS_UPDATE2_FLAG_TO_DISK |
      (block_autoconnect ? NM_SETTINGS_UPDATE2_FLAG_BLOCK_AUTOCONNECT : 0));
  nm_remote_connection_update2(remote, settings, flags, nullptr, p.cancellable, on_ready, &p);
  GError* error = nullptr;
  GVariant* out = nm_remote_connection_update2_finish(
      remote, wait(p, "update connection", m_timeout_s), &error);
  if (out == nullptr) {
    throw CallError(failed(error));
  }
  g_variant_unref(out);
}

void Client::remove(NMRemoteConnection* remote)
{
  Pending p;
  nm_remote_connection_delete_async(remote, p.cancellable, on_ready, &p);
  GError* error = nullptr;
  if (!nm_remote_connection_delete_finish(remote, wait(p, "delete connection", m_timeout_s),
                                          &error)) {
    throw CallError(failed(error));
  }
}

void Client::deactivate(NMActiveConnection* active)
{
  Pending p;
  nm_client_deactivate_connection_async(m_client, active, p.cancellable, on_ready, &p);
  GError* error = nullptr;
  if (!nm_client_deactivate_connection_finish(
          m_client, wait(p, "deactivate connection", m_timeout_s), &error)) {
    throw CallError(failed(error));
  }
}

void Client::activate(NMRemoteConnection* remote, NMDevice* device, unsigned timeout_s)
{
  if (remote == nullptr) {
    // NetworkManager would choose a profile for the device itself: not ibsetup's to start.
    throw CallError("activate: NetworkManager no longer holds the profile");
  }
  Pending p;
  nm_client_activate_connection_async(m_client, NM_CONNECTION(remote), device, nullptr,
                                      p.cancellable, on_ready, &p);
  GError* error = nullptr;
  GPtr<NMActiveConnection> active(nm_client_activate_connection_finish(
      m_client, wait(p, "activate connection", m_timeout_s), &error));
  if (!active) {
    throw CallError(failed(error));
  }
  NMActiveConnection* a = active.get();
  const auto settled = [a] {
    const auto state = nm_active_connection_get_state(a);
    return state == NM_ACTIVE_CONNECTION_STATE_ACTIVATED ||
           state == NM_ACTIVE_CONNECTION_STATE_DEACTIVATING ||
           state == NM_ACTIVE_CONNECTION_STATE_DEACTIVATED;
  };
  if (!run_until(m_context, timeout_s, settled)) {
    throw CallError("activation did not finish within " + std::to_string(timeout_s) + " s");
  }
  if (nm_active_connection_get_state(a) != NM_ACTIVE_CONNECTION_STATE_ACTIVATED) {
    throw CallError("activation failed: " + active_state_reason(a));
  }
}

std::string Client::checkpoint_create(const std::vector<NMDevice*>& devices,
                                      unsigned rollback_timeout_s)
{
  GPtrArray* array = g_ptr_array_new();
  m_checkpoint_devices.clear();
  for (NMDevice* d : devices) {
    g_ptr_array_add(array, d);
    const char* iface = nm_device_get_iface(d);
    m_checkpoint_devices[nm_object_get_path(NM_OBJECT(d))] = iface != nullptr ? iface : "?";
  }
  Pending p;
  // New profiles are deleted on rollback, so a rollback NetworkManager does on its own
  // (ibsetup killed) also undoes additions. New devices (pkey children) can only be
  // disconnected by a checkpoint over all devices.
  const auto flags = static_cast<NMCheckpointCreateFlags>(
      NM_CHECKPOINT_CREATE_FLAG_DELETE_NEW_CONNECTIONS |
      (devices.empty() ? NM_CHECKPOINT_CREATE_FLAG_DISCONNECT_NEW_DEVICES : 0));
  nm_client_checkpoint_create(m_client, array, rollback_timeout_s, flags, p.cancellable, on_ready,
                              &p);
  g_ptr_array_unref(array);
  GError* error = nullptr;
  GPtr<NMCheckpoint> cp(nm_client_checkpoint_create_finish(
      m_client, wait(p, "create checkpoint", m_timeout_s), &error));
  if (!cp) {
    std::string why = failed(error);
    if (why.find("already included in checkpoint") != std::string::npos) {
      // Another tool's, or a killed ibsetup's: NetworkManager rolls it back when it expires.
      why +=
          " (another tool's, or left by an apply that was killed; it ends at its rollback "
          "timeout)";
    }
    throw CallError("cannot create a checkpoint: " + why);
  }
  return nm_object_get_path(NM_OBJECT(cp.get()));
}

std::vector<std::string> Client::checkpoint_rollback(const std::string& path)
{
  Pending p;
  nm_client_checkpoint_rollback(m_client, path.c_str(), p.cancellable, on_ready, &p);
  GError* error = nullptr;
  GHashTable* results = nm_client_checkpoint_rollback_finish(
      m_client, wait(p, "roll back checkpoint", m_timeout_s), &error);
  if (results == nullptr) {
    throw CallError(failed(error));
  }
  auto not_restored = rollback_failures(results, m_checkpoint_devices);
  g_hash_table_unref(results);
  return not_restored;
}

std::vector<std::string> rollback_failures(GHashTable* results,
                                           const std::map<std::string, std::string>& devices)
{
  // Device path -> NMRollbackResult: the call succeeds even when a device was not restored.
  std::vector<std::string> failed;
  GHashTableIter it;
  gpointer key = nullptr;
  gpointer value = nullptr;
  g_hash_table_iter_init(&it, results);
  while (g_hash_table_iter_next(&it, &key, &value) != FALSE) {
    const auto result = static_cast<NMRollbackResult>(GPOINTER_TO_UINT(value));
    if (result == NM_ROLLBACK_RESULT_OK) {
      continue;
    }
    std::string name = static_cast<const char*>(key);
    if (const auto known = devices.find(name); known != devices.end()) {
      name = known->second;
    }
    failed.push_back(name + ": " +
                     (result == NM_ROLLBACK_RESULT_ERR_NO_DEVICE          ? "the device is gone"
                      : result == NM_ROLLBACK_RESULT_ERR_DEVICE_UNMANAGED ? "no longer managed"
                                                                          : "not restored"));
  }
  std::sort(failed.begin(), failed.end());
  return failed;
}

void Client::checkpoint_adjust(const std::string& path, unsigned seconds)
{
  Pending p;
  nm_client_checkpoint_adjust_rollback_timeout(m_client, path.c_str(), seconds, p.cancellable,
                                               on_ready, &p);
  GError* error = nullptr;
  if (!nm_client_checkpoint_adjust_rollback_timeout_finish(
          m_client, wait(p, "adjust the checkpoint's rollback timeout", m_timeout_s), &error)) {
    throw CallError(failed(error));
  }
}

void Client::checkpoint_destroy(const std::string& path)
{
  Pending p;
  nm_client_checkpoint_destroy(m_client, path.c_str(), p.cancellable, on_ready, &p);
  GError* error = nullptr;
  if (!nm_client_checkpoint_destroy_finish(m_client, wait(p, "destroy checkpoint", m_timeout_s),
                                           &error)) {
    throw CallError(failed(error));
  }
}

}  // namespace ibsetup::nm
