// Subcommands, grouped by pipeline stage. Each group registers its options in its constructor
// and runs whichever of its subcommands was parsed.
#pragma once

#include "cli/cmd_firmware.hpp"

#include <ibsetup/check.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace ibsetup::cli {

// validate, show
class ProfileCommands {
public:
  explicit ProfileCommands(CLI::App& app);
  // Runs the parsed subcommand of this group; returns its exit code, or -1 if none parsed.
  int run();

private:
  int validate();
  int show();
  int hosts();

  CLI::App* m_validate = nullptr;
  CLI::App* m_show = nullptr;
  CLI::App* m_hosts = nullptr;
  std::string m_file;
  std::string m_node;
  bool m_json = false;
  bool m_quiet = false;
};

// inspect
class InventoryCommands {
public:
  explicit InventoryCommands(CLI::App& app);
  int run();

private:
  CLI::App* m_inspect = nullptr;
  std::string m_sysfs_root = "/sys";
  bool m_json = false;
  bool m_counters = false;
};

// plan, apply
class PipelineCommands {
public:
  explicit PipelineCommands(CLI::App& app);
  int run();
  CLI::App* apply_command() const { return m_apply; }
  const std::string& file() const { return m_file; }
  const std::string& node() const { return m_node; }
  bool json() const { return m_json; }
  bool dry_run() const { return m_dry_run; }
  bool quiet() const { return m_quiet; }

private:
  int plan();
  int apply();

  CLI::App* m_plan = nullptr;
  CLI::App* m_apply = nullptr;
  std::string m_file;
  std::string m_node;
  std::string m_sysfs_root = "/sys";
  std::string m_backend = "auto";
  std::string m_lock_file = "/run/ibsetup.lock";
  int m_wait = 0;
  bool m_json = false;
  bool m_prune = false;
  bool m_dry_run = false;
  bool m_detailed_exitcode = false;
  bool m_quiet = false;
  bool m_no_activate = false;
  bool m_adopt = false;
  std::string m_adopt_dir = "/var/lib/ibsetup/adopted";
  unsigned m_rollback_timeout = 120;
  int m_step_delay_ms = 0;
  FirmwareOptions m_firmware;
};

// render (and apply --offline, which runs the same code)
class RenderCommands {
public:
  explicit RenderCommands(CLI::App& app, CLI::App* apply);
  int run();
  // apply --offline: true when the flag was given.
  bool offline() const { return m_offline; }
  int render_offline(const std::string& file, const std::string& node, bool json, bool dry_run,
                     bool quiet);
  // Throws a usage Error when apply mixes what only --offline does with what only a live apply
  // does; nothing when apply was not the command.
  void refuse_mixed_apply() const;

private:
  CLI::App* m_render = nullptr;
  CLI::App* m_apply = nullptr;
  std::vector<const CLI::Option*> m_offline_only;  // apply's --root, --format, ...
  std::string m_file;
  std::string m_node;
  std::string m_root;
  std::string m_format = "nm-keyfile";
  std::string m_templates;
  std::string m_hosts_pattern;
  std::string m_inventories;  // --format udev: where the port GUIDs come from
  bool m_json = false;
  bool m_dry_run = false;
  bool m_quiet = false;
  bool m_offline = false;
};

// responder (the peer end of check's rdma.pingpong)
class RdmaCommands {
public:
  explicit RdmaCommands(CLI::App& app);
  int run();

private:
  int responder();

  CLI::App* m_responder = nullptr;
  std::string m_bind;
  int m_port = 18515;
  int m_count = 0;
  bool m_once = false;
  int m_timeout = 0;
  bool m_quiet = false;
  int m_max_sessions = 8;
  int m_max_session_s = 60;
};

}  // namespace ibsetup::cli

namespace ibsetup::cli {

// check
class CheckCommands {
public:
  explicit CheckCommands(CLI::App& app);
  int run();

private:
  int check();
  void validate_options() const;

  CLI::App* m_check = nullptr;
  std::string m_file;
  std::string m_node;
  std::string m_sysfs_root = "/sys";
  std::string m_inventory;
  std::string m_format = "text";
  std::vector<std::string> m_disable;
  std::vector<std::string> m_warn;
  double m_timeout_s = 10;
  int m_peer_timeout_ms = 0;  // 0: not given, the profile's (the option itself takes 1-600000)
  CLI::Option* m_peer_timeout_option = nullptr;
  bool m_json = false;
  bool m_no_peers = false;
  bool m_counters = false;
  bool m_quiet = false;
  bool m_rdma_pingpong = false;
  bool m_slurm_drain = false;
  std::string m_slurm_node;
  std::string m_scontrol = "scontrol";
  int m_rdma_port = 18515;  // int: 0 and 65536 get our message, not a conversion error
  bool m_bandwidth = false;
  bool m_latency = false;
  bool m_loopback = false;
  std::vector<std::string> m_perf_peers;
  check::PerfOptions m_perf;
  std::string m_textfile_dir;  // --textfile-dir: metrics for node_exporter
};

// report: many hosts' check --json lines summed up for the cluster
class ReportCommands {
public:
  explicit ReportCommands(CLI::App& app);
  int run();

private:
  CLI::App* m_report = nullptr;
  std::string m_input = "-";
  std::string m_expect;
  std::string m_profile;
  bool m_json = false;
  std::string m_format = "text";  // text, json or openmetrics
};

}  // namespace ibsetup::cli
