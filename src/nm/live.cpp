// The live NetworkManager backend. Each interface's profile is found by its stable UUID and
// added, updated or left alone; foreign profiles on the same interface are reported (and with
// --adopt saved and deleted). All of it runs inside a checkpoint. NetworkManager's rollback
// restores devices and the profiles active on them; ibsetup's own journal restores every
// profile it touched that no device had active (stored-only profiles, --no-activate).
#include <ibsetup/error.hpp>
#include <ibsetup/nm.hpp>
#include <ibsetup/render.hpp>

#include "common/strings.hpp"
#include "nm/claims.hpp"
#include "nm/client.hpp"
#include "nm/compare.hpp"
#include "nm/plugin.hpp"
#include "nm/sequence.hpp"
#include "nm/session.hpp"

#include <algorithm>
#include <set>

namespace ibsetup::nm {

namespace {

struct Item {
  const profile::ResolvedInterface* spec = nullptr;
  std::string id;
  std::string uuid;
  GPtr<NMConnection> want;
  bool exists = false;
  std::vector<std::string> differs;  // properties that differ from what NM holds
  bool active = false;
};

bool is_active(Client& client, const std::string& uuid)
{
  const GPtrArray* active = nm_client_get_active_connections(client.get());
  for (guint k = 0; k < active->len; ++k) {
    auto* a = NM_ACTIVE_CONNECTION(g_ptr_array_index(active, k));
    const char* u = nm_active_connection_get_uuid(a);
    if (u != nullptr && uuid == u &&
        nm_active_connection_get_state(a) == NM_ACTIVE_CONNECTION_STATE_ACTIVATED) {
      return true;
    }
  }
  return false;
}

void deactivate_all(Client& client, const std::string& uuid)
{
  const GPtrArray* active = nm_client_get_active_connections(client.get());
  std::vector<GPtr<NMActiveConnection>> matches;
  for (guint k = 0; k < active->len; ++k) {
    auto* a = NM_ACTIVE_CONNECTION(g_ptr_array_index(active, k));
    const char* u = nm_active_connection_get_uuid(a);
    if (u != nullptr && uuid == u) {
      matches.emplace_back(NM_ACTIVE_CONNECTION(g_object_ref(a)));
    }
  }
  for (auto& a : matches) {
    client.deactivate(a.get());
  }
}

// shared: the foreign profiles that are also candidates for other IPoIB devices (Claim::shared),
// which --adopt leaves alone.
std::vector<Item> survey(Client& client, const profile::ResolvedNode& node,
                         const std::string& cluster, Report& report, std::set<std::string>& shared)
{
  std::vector<Item> items;
  for (const auto& i : node.interfaces) {
    Item item;
    item.spec = &i;
    item.id = connection_id(i.name);
    item.uuid = plugin::connection_uuid(cluster, node.host, i.name);
    item.want = build_connection(i, item.uuid);
    NMRemoteConnection* have = nm_client_get_connection_by_uuid(client.get(), item.uuid.c_str());
    if (have != nullptr &&
        !nm_connection_is_type(NM_CONNECTION(have), NM_SETTING_INFINIBAND_SETTING_NAME)) {
      // ibsetup's UUIDs are derived from names anyone can read (a copied keyfile keeps its
      // UUID): a profile of another type holding one is not ibsetup's to rewrite.
      const char* type = nm_connection_get_connection_type(NM_CONNECTION(have));
      throw EnvironmentError(
          "profile '" + setting_string(NM_CONNECTION(have), nm_setting_connection_get_id) + "' (" +
          item.uuid + ", type " + (type != nullptr ? type : "none") +
          ") holds the UUID ibsetup uses for " + i.name +
          "; ibsetup rewrites only InfiniBand profiles: give it another UUID or delete it");
    }
    if (have != nullptr) {
      item.exists = true;
      item.differs = differences(item.want.get(), client.stored_settings(have).get());
      item.active = is_active(client, item.uuid);
    }
    ClaimTarget target{i.name, item.id, item.uuid, i.parent, i.pkey, {}};
    if (NMDevice* base = client.device(i.parent.value_or(i.name)); base != nullptr) {
      const char* hw = nm_device_get_hw_address(base);
      target.hw_address = hw != nullptr ? hw : "";
    }
    for (NMRemoteConnection* c : client.connections()) {
      const Claim claim = claims(NM_CONNECTION(c), target);
      if (claim != Claim::none) {
        const std::string uuid = setting_string(NM_CONNECTION(c), nm_setting_connection_get_uuid);
        report.foreign.push_back(
            {i.name, setting_string(NM_CONNECTION(c), nm_setting_connection_get_id), uuid, ""});
        if (claim == Claim::shared) {
          shared.insert(uuid);
        }
      }
    }
    items.push_back(std::move(item));
  }
  return items;
}

std::vector<NMDevice*> affected_devices(Client& client, const profile::ResolvedNode& node)
{
  std::vector<NMDevice*> out;
  for (const auto& i : node.interfaces) {
    for (const std::string& name : {i.name, i.parent.value_or(std::string())}) {
      NMDevice* d = name.empty() ? nullptr : client.device(name);
      if (d != nullptr && std::find(out.begin(), out.end(), d) == out.end()) {
        out.push_back(d);
      }
    }
  }
  return out;
}

void adopt(Session& s, Client& client, const Options& options, Report& report,
           const std::set<std::string>& shared)
{
  for (auto& f : report.foreign) {
    if (shared.count(f.uuid) > 0) {
      continue;  // also a candidate for interfaces the profile does not declare
    }
    NMRemoteConnection* c = nm_client_get_connection_by_uuid(client.get(), f.uuid.c_str());
    if (c == nullptr) {
      // Listed twice (it claimed two interfaces) and already deleted: this entry too says
      // where it went, so that it is not reported as left alone.
      for (const auto& earlier : report.foreign) {
        if (&earlier != &f && earlier.uuid == f.uuid && !earlier.saved.empty()) {
          f.saved = earlier.saved;
          break;
        }
      }
      continue;
    }
    s.step("adopt " + f.id);
    auto stored = client.stored_settings(c);
    f.saved = save_keyfile(stored.get(), options.adopt_dir);
    deactivate_all(client, f.uuid);
    const bool unsaved =
        (nm_remote_connection_get_flags(c) & NM_SETTINGS_CONNECTION_FLAG_UNSAVED) != 0;
    s.journal({Undo::Kind::deleted, f.uuid, f.id, to_settings(stored.get()), unsaved});
    client.remove(c);
    s.done("delete foreign " + f.id + " (" + f.uuid + ", saved to " + f.saved + ")");
  }
}

// ibsetup's own profile as NetworkManager holds it now: someone else (nmcli, Ansible) may
// have deleted it since the survey. A null here crashed the read-back, and activating a null
// profile lets NetworkManager pick any profile for the device, which was then reported as
// ibsetup's.
NMRemoteConnection* held(Client& client, const Item& item)
{
  NMRemoteConnection* have = nm_client_get_connection_by_uuid(client.get(), item.uuid.c_str());
  if (have == nullptr) {
    throw CallError("NetworkManager no longer holds " + item.id + " (" + item.uuid +
                    "): it was deleted during the run");
  }
  return have;
}

void store(Session& s, Client& client, std::vector<Item>& items, const Options& options)
{
  for (auto& item : items) {
    if (item.exists && item.differs.empty()) {
      continue;
    }
    const auto settings = to_settings(item.want.get());
    if (!item.exists) {
      s.step("add " + item.id);
      s.journal({Undo::Kind::added, item.uuid, item.id, nullptr});
      client.add(settings.get(), !options.activate);
      s.done("add " + item.id + " (" + item.uuid + ")");
    } else {
      s.step("update " + item.id);
      NMRemoteConnection* have = held(client, item);
      s.journal({Undo::Kind::updated, item.uuid, item.id,
                 to_settings(client.stored_settings(have).get())});
      client.update(have, settings.get(), !options.activate);
      s.done("update " + item.id + " (" + util::join(item.differs, ", ") + ")");
    }
  }
}

void verify(Session& s, Client& client, const std::vector<Item>& items)
{
  for (const auto& item : items) {
    s.step("verify " + item.id);
    NMRemoteConnection* have = nm_client_get_connection_by_uuid(client.get(), item.uuid.c_str());
    if (have == nullptr) {
      throw CallError("NetworkManager does not hold " + item.id + " after storing it");
    }
    const auto differs = differences(item.want.get(), client.stored_settings(have).get());
    if (!differs.empty()) {
      throw CallError("NetworkManager holds " + item.id + " with different " +
                      util::join(differs, ", "));
    }
  }
}

void activate(Session& s, Client& client, const std::vector<Item>& items, const Options& options)
{
  for (const auto& item : items) {
    if (item.exists && item.differs.empty() && item.active) {
      continue;
    }
    s.step("activate " + item.id);
    NMRemoteConnection* have = held(client, item);
    // A pkey child's device is created by NetworkManager on activation.
    NMDevice* device = item.spec->parent ? nullptr : client.device(item.spec->name);
    client.activate(have, device, options.activation_timeout_s);
    s.done("activate " + item.id);
  }
}

// The libnm side of run_steps.
class LiveSteps : public Steps {
public:
  LiveSteps(Client& client, const profile::ResolvedNode& node, std::vector<Item>& items,
            const Options& options, Report& report, const std::set<std::string>& shared)
      : m_client(client),
        m_node(node),
        m_items(items),
        m_options(options),
        m_report(report),
        m_shared(shared),
        m_session(client, options, report)
  {
  }
  void step(const std::string& what) override { m_session.step(what); }
  const std::string& current() const override { return m_session.current(); }
  void create_checkpoint() override
  {
    m_session.step("create checkpoint");
    m_report.checkpoint = m_client.checkpoint_create(affected_devices(m_client, m_node),
                                                     m_options.rollback_timeout_s);
  }
  void adopt() override { nm::adopt(m_session, m_client, m_options, m_report, m_shared); }
  void store() override { nm::store(m_session, m_client, m_items, m_options); }
  void check_stored() override { verify(m_session, m_client, m_items); }
  void activate() override { nm::activate(m_session, m_client, m_items, m_options); }
  void destroy_checkpoint() override
  {
    m_session.step("destroy checkpoint");
    m_client.checkpoint_destroy(m_report.checkpoint);
  }
  void undo() override { m_session.undo(); }

private:
  Client& m_client;
  const profile::ResolvedNode& m_node;
  std::vector<Item>& m_items;
  const Options& m_options;
  Report& m_report;
  const std::set<std::string>& m_shared;
  Session m_session;
};

}  // namespace

Report plugin::apply_node(const profile::ResolvedNode& node, const std::string& cluster,
                          const Options& options)
{
  std::unique_ptr<Client> owned;
  try {
    owned = std::make_unique<Client>();
  } catch (const CallError& e) {
    throw EnvironmentError(e.what());
  }
  Client& client = *owned;
  if (!client.running()) {
    throw EnvironmentError("NetworkManager is not running (nothing answers on the system D-Bus)");
  }
  if (!client.answered()) {
    // A survey of nothing would plan to add every profile, and a dry run would say so.
    throw EnvironmentError(k_not_answering);
  }
  Report report;
  report.host = node.host;
  report.backend = apply::Backend::networkmanager;
  std::vector<Item> items;
  std::set<std::string> shared;
  try {
    items = survey(client, node, cluster, report, shared);
  } catch (const CallError& e) {
    throw EnvironmentError(std::string("reading NetworkManager's profiles: ") + e.what());
  }
  if (options.adopt) {
    std::vector<std::string> adopted;
    for (const auto& f : report.foreign) {
      if (shared.count(f.uuid) == 0) {
        adopted.push_back(f.uuid);
      }
    }
    if (!adopted.empty()) {  // a read-only --adopt-dir that nothing is written to is fine
      check_adopt_dir(options.adopt_dir, adopted);
    }
  }
  if (options.dry_run) {
    // The steps a real run takes, in its order (sequence.cpp), so that a dry run that lists
    // nothing means a run would change nothing: adoption and activation included.
    if (options.adopt) {
      std::set<std::string> listed;  // one profile may claim two interfaces
      for (const auto& f : report.foreign) {
        if (shared.count(f.uuid) == 0 && listed.insert(f.uuid).second) {
          report.done.push_back("would delete foreign " + f.id + " (" + f.uuid + ")");
        }
      }
    }
    for (const auto& item : items) {
      if (!item.exists) {
        report.done.push_back("would add " + item.id + " (" + item.uuid + ")");
      } else if (!item.differs.empty()) {
        report.done.push_back("would update " + item.id + " (" + util::join(item.differs, ", ") +
                              ")");
      } else {
        report.unchanged.push_back(item.id);
      }
    }
    for (const auto& item : items) {
      if (options.activate && !(item.exists && item.differs.empty() && item.active)) {
        report.done.push_back("would activate " + item.id);
      }
    }
    return report;
  }
  LiveSteps steps(client, node, items, options, report, shared);
  run_steps(steps, options, report);
  if (!report.ok()) {
    return report;
  }
  for (const auto& item : items) {
    if (item.exists && item.differs.empty()) {
      report.unchanged.push_back(item.id);
    }
  }
  return report;
}

}  // namespace ibsetup::nm
