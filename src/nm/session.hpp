// What the live steps share: the journal of what to undo, and the session that names each
// step, keeps NetworkManager's checkpoint alive between steps, and undoes the journal.
#pragma once

#include <ibsetup/nm.hpp>

#include "nm/client.hpp"
#include "nm/connection.hpp"

#include <string>
#include <vector>

namespace ibsetup::nm {

// One step to undo, most recent last.
struct Undo {
  enum class Kind { added, updated, deleted } kind;
  std::string uuid;
  std::string id;
  VariantPtr original;     // settings before an update or a deletion
  bool in_memory = false;  // a deleted profile NetworkManager held unsaved (nmcli ... save no)
};

// The settings of c as NetworkManager takes them over D-Bus.
VariantPtr to_settings(NMConnection* c);
// A string of c's connection setting ("" when unset).
std::string setting_string(NMConnection* c, const char* (*get)(NMSettingConnection*));

// --adopt's copy of c under dir (<uuid>.nmconnection, mode 0600); returns its path.
std::string save_keyfile(NMConnection* c, const std::string& dir);
// --adopt-dir must be a directory, or be one that can be made, where the copies of uuids can
// be written: checked before any change, so that a dry run says so and a real run stops with
// nothing changed (exit 4) rather than failing mid-way and rolling back (exit 7).
void check_adopt_dir(const std::string& dir, const std::vector<std::string>& uuids);

class Session {
public:
  Session(Client& client, const Options& options, Report& report)
      : m_client(client), m_options(options), m_report(report)
  {
  }

  // Names the step (for the failure), stops if interrupted, and puts NetworkManager's own
  // rollback off again.
  void step(const std::string& what);

  void done(const std::string& what)
  {
    m_report.done.push_back(what);
    ++m_report.changes;
    if (m_options.progress) {
      m_options.progress("  + " + what + " ... ok");
    }
  }

  void journal(Undo undo) { m_journal.push_back(std::move(undo)); }
  const std::string& current() const { return m_current; }

  void undo();

private:
  std::string unreachable() const;
  void note(const std::string& line)
  {
    m_report.rollback.push_back(line);
    if (m_options.progress) {
      m_options.progress("  - " + line);
    }
  }

  Client& m_client;
  const Options& m_options;
  Report& m_report;
  std::vector<Undo> m_journal;
  std::string m_current;
  bool m_checkpoint_gone = false;  // NetworkManager no longer has it: nothing to roll back to
  // The rollback timeout the checkpoint was last given.
  unsigned m_last_timeout_s = m_options.rollback_timeout_s;
};

}  // namespace ibsetup::nm
