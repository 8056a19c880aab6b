// The session of a live run: its steps, its journal, and the rollback.
#include "nm/session.hpp"

#include "common/strings.hpp"

#include <string>

namespace ibsetup::nm {

VariantPtr to_settings(NMConnection* c)
{
  return VariantPtr(g_variant_ref_sink(nm_connection_to_dbus(c, NM_CONNECTION_SERIALIZE_ALL)));
}

std::string setting_string(NMConnection* c, const char* (*get)(NMSettingConnection*))
{
  NMSettingConnection* s = nm_connection_get_setting_connection(c);
  const char* v = s != nullptr ? get(s) : nullptr;
  return v != nullptr ? v : "";
}

void Session::step(const std::string& what)
{
  m_current = what;               // named in the failure, even when the step does not start
  if (m_options.interrupted()) {  // guarded by nm::apply_node: never empty, never throws
    throw CallError("interrupted before this step");
  }
  if (!m_report.checkpoint.empty()) {
    // --rollback-timeout counts from ibsetup's last step, not from the checkpoint's
    // creation: a long run (many activations) would otherwise see NetworkManager roll back
    // by itself half-way. An activation may take its own wait on top.
    const bool activation = what.compare(0, 9, "activate ") == 0;
    try {
      m_last_timeout_s =
          m_options.rollback_timeout_s + (activation ? m_options.activation_timeout_s : 0);
      m_client.checkpoint_adjust(m_report.checkpoint, m_last_timeout_s);
    } catch (const CallError& e) {
      if (!m_client.running()) {
        throw CallError(
            "NetworkManager is not running any more (it exited, or its D-Bus bus "
            "went away): " +
            std::string(e.what()));
      }
      if (m_client.stopped_answering()) {
        // Hung, not gone: the checkpoint is still there, and NetworkManager rolls it back by
        // itself once it answers again and the timeout has run out.
        throw CallError(
            "NetworkManager stopped answering (hung or stopped?) while it holds "
            "checkpoint " +
            m_report.checkpoint + ": " + e.what());
      }
      m_checkpoint_gone = true;
      throw CallError("NetworkManager no longer holds checkpoint " + m_report.checkpoint +
                      " (it rolled back by itself, more than " +
                      std::to_string(m_options.rollback_timeout_s) +
                      " s after the last step, or it restarted): " + e.what());
    }
  }
}

// Why no more calls are made, or empty. Gone: libnm empties its cache when NetworkManager's
// name goes, so a profile added would look "already removed by the checkpoint" while its
// keyfile stays. Not answering: each call would wait the whole call timeout again (a SIGTERM
// then took 50 s to end the run).
std::string Session::unreachable() const
{
  if (!m_client.running()) {
    return "NetworkManager is not running any more";
  }
  return m_client.stopped_answering() ? "NetworkManager is not answering" : "";
}

void Session::undo()
{
  if (const auto why = unreachable(); !why.empty() && !m_report.checkpoint.empty()) {
    note("roll back checkpoint " + m_report.checkpoint + " ... failed: not tried, " + why +
         (m_client.running() ? "; it rolls the checkpoint back by itself once it runs again, " +
                                   std::to_string(m_last_timeout_s) +
                                   " s after the last step, and applies fail until then"
                             : std::string()));
  } else if (!m_report.checkpoint.empty() && m_checkpoint_gone) {
    note("roll back checkpoint " + m_report.checkpoint +
         " ... failed: NetworkManager no longer holds it; the journal below restores the "
         "profiles, not the devices");
  } else if (!m_report.checkpoint.empty()) {
    try {
      const auto failed = m_client.checkpoint_rollback(m_report.checkpoint);
      if (failed.empty()) {
        note("rolled back checkpoint " + m_report.checkpoint + " ... ok");
      } else {
        // The call succeeded, but these devices are not as they were.
        note("roll back checkpoint " + m_report.checkpoint +
             " ... failed: " + util::join(failed, "; "));
      }
    } catch (const CallError& e) {
      note("roll back checkpoint " + m_report.checkpoint + " ... failed: " + e.what());
    }
  }
  for (auto it = m_journal.rbegin(); it != m_journal.rend(); ++it) {
    // Checked before each: NetworkManager may hang or exit during the rollback itself.
    if (const auto why = unreachable(); !why.empty()) {
      note("undo " + it->id + " ... failed: not tried, " + why +
           (it->kind == Undo::Kind::deleted ? "; restore it from --adopt-dir"
                                            : "; the change stays, a later apply completes it"));
      continue;
    }
    NMRemoteConnection* now = nm_client_get_connection_by_uuid(m_client.get(), it->uuid.c_str());
    try {
      switch (it->kind) {
      case Undo::Kind::added:
        if (now == nullptr) {
          note("remove " + it->id + " ... already removed by the checkpoint");
        } else {
          m_client.remove(now);
          note("remove " + it->id + " ... ok");
        }
        break;
      case Undo::Kind::updated:
        if (now == nullptr) {
          m_client.add(it->original.get(), true);
        } else {
          m_client.update(now, it->original.get(), true);
        }
        note("restore " + it->id + " ... ok");
        break;
      case Undo::Kind::deleted:
        if (now == nullptr) {
          // Back where it was: an unsaved profile written to disk would outlive a reboot.
          m_client.add(it->original.get(), true, !it->in_memory);
        }
        note("re-add " + it->id + " ... ok");
        break;
      }
    } catch (const CallError& e) {
      note("undo " + it->id + " ... failed: " + e.what());
    }
  }
}

}  // namespace ibsetup::nm
