#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"
#include "common/strings.hpp"
#include "common/json.hpp"

#include "render/udev.hpp"

#include <ibsetup/profile.hpp>
#include <ibsetup/render.hpp>

#include <CLI/CLI.hpp>

#include <iostream>

#ifndef IBSETUP_DATADIR
#define IBSETUP_DATADIR "/usr/share/ibsetup"
#endif

namespace ibsetup::cli {

namespace {

std::string would(render::WriteResult result)
{
  switch (result) {
  case render::WriteResult::created:
    return "would create";
  case render::WriteResult::updated:
    return "would update";
  case render::WriteResult::unchanged:
  default:
    return "unchanged";
  }
}

void print_indented(const std::string& content)
{
  size_t start = 0;
  while (start < content.size()) {
    size_t end = content.find('\n', start);
    if (end == std::string::npos) {
      end = content.size();
    }
    std::cout << "    " << content.substr(start, end - start) << '\n';
    start = end + 1;
  }
}

}  // namespace

RenderCommands::RenderCommands(CLI::App& app, CLI::App* apply)
{
  m_render = app.add_subcommand("render",
                                "Write a node's persistent configuration under a root "
                                "directory (kickstart %post, images)");
  m_render->add_option("file", m_file, "Cluster profile (YAML)")->required();
  m_render->add_option("--node", m_node, "Node to render (default: this host's short name)");
  m_apply = apply;
  for (CLI::App* cmd : {m_render, apply}) {
    const CLI::Option* const options[] = {
        cmd->add_option("--root", m_root,
                        "Root directory to write under (e.g. / or /mnt/sysimage)"),
        cmd->add_option("--format", m_format,
                        "nm-keyfile (default), ifcfg, hosts (an /etc/hosts fragment) or udev "
                        "(rules naming the base interfaces by port GUID)"),
        cmd->add_option("--templates", m_templates,
                        "Directory with ifcfg templates, searched first (then "
                        "ROOT/etc/ibsetup/templates, then " +
                            std::string(IBSETUP_DATADIR) + "/templates)"),
        cmd->add_option("--hosts-pattern", m_hosts_pattern,
                        "Host names in the hosts fragment, with {host} and {if} (default: "
                        "{host}-ib for the first interface, {host}-{if} for the others)"),
    };
    if (cmd == apply) {
      m_offline_only.assign(std::begin(options), std::end(options));
    }
  }
  m_render->add_option("--inventories", m_inventories,
                       "--format udev: read the port GUIDs from SRC (- for inspect --json lines "
                       "on standard input, a directory of HOST.json, an ibnetdiscover file) "
                       "instead of this host's inventory");
  m_render->add_flag("--json", m_json, "Print what was written as JSON");
  m_render->add_flag("-q,--quiet", m_quiet,
                     "Print nothing but errors (--dry-run still prints its preview)");
  m_render->add_flag("--dry-run", m_dry_run,
                     "Print what would be written (would create, would update or unchanged) "
                     "and each changed file's content; write nothing");
  apply->add_flag("--offline", m_offline,
                  "Write persistent configuration under --root instead of changing the running "
                  "host (same as render)");
}

// CLI11's needs() and excludes() would do this, but they print into --help's option column,
// which bash completion reads.
void RenderCommands::refuse_mixed_apply() const
{
  if (m_apply == nullptr || !*m_apply) {
    return;
  }
  if (!m_offline) {
    // Without --offline, apply changes the running host: a kickstart's `apply --root
    // /mnt/sysimage` that forgot --offline must not reconfigure the installer's interfaces.
    for (const CLI::Option* o : m_offline_only) {
      if (o->count() > 0) {
        throw Error(ErrorKind::usage, o->get_name() +
                                          " is for apply --offline (or render); without "
                                          "--offline apply changes this host");
      }
    }
    return;
  }
  // What only a live apply does would be silently dropped, and whoever gave it expects it.
  for (const char* live : {"--prune", "--backend", "--no-activate", "--adopt", "--adopt-dir",
                           "--rollback-timeout", "--wait", "--lock-file", "--mstconfig",
                           "--mstconfig-timeout-ms", "--reboot-marker", "--step-delay-ms"}) {
    const CLI::Option* o = m_apply->get_option_no_throw(live);
    if (o != nullptr && o->count() > 0) {
      throw Error(ErrorKind::usage, std::string(live) +
                                        " is for a live apply; apply --offline only writes files "
                                        "under --root");
    }
  }
}

int RenderCommands::run()
{
  if (!*m_render) {
    return -1;
  }
  return render_offline(m_file, m_node, m_json, m_dry_run, m_quiet);
}

int RenderCommands::render_offline(const std::string& file, const std::string& node_name, bool json,
                                   bool dry_run, bool quiet)
{
  if (m_root.empty()) {
    throw Error(ErrorKind::usage, "--root DIR is required to render (use / for this system)");
  }
  render::NodeOptions o;
  const bool udev = m_format == "udev";
  const auto format = udev ? render::Format::nm_keyfile : render::parse_format(m_format);
  if (!format) {
    throw Error(ErrorKind::usage, "--format must be nm-keyfile, ifcfg, hosts or udev");
  }
  if (!udev && !m_inventories.empty()) {
    throw Error(ErrorKind::usage, "--inventories is for --format udev");
  }
  const auto p = profile::load_profile(file);
  print_warnings(p.warnings, quiet || m_quiet);
  if (!dry_run) {
    // A signal before the renames undoes the staging and says so; one during them lets the
    // node complete. Either way the error or the files written are printed before the signal
    // ends ibsetup, as it would have (exit 128+N).
    hold_stop_signals();
  }
  o.format = *format;
  o.root = m_root;
  o.templates = m_templates;
  o.data_templates = IBSETUP_DATADIR "/templates";
  o.hosts_pattern = m_hosts_pattern;
  o.dry_run = dry_run;
  JsonWriter j;
  j.begin_object().key("root").value(m_root);
  if (dry_run) {
    j.key("dry_run").value(true);
  }
  j.key("files").begin_array();
  size_t files = 0;
  o.on_file = [&](const render::FileOutcome& f) {
    ++files;
    // A dry run shows the content a write would put there; an unchanged file has it already.
    const bool show = dry_run && f.result != render::WriteResult::unchanged;
    const std::string what = dry_run ? would(f.result) : render::to_string(f.result);
    if (json) {
      j.begin_object().key("path").value(f.file.path).key("result").value(what);
      if (show) {
        j.key("content").value(f.file.content);
      }
      j.end_object();
    } else if (dry_run || (!quiet && !m_quiet)) {
      // -q drops the report of work done, not the preview a dry run was asked for.
      std::cout << what << "  " << util::escape_text(m_root + "/" + f.file.path) << '\n';
      if (show) {
        print_indented(f.file.content);
      }
    }
  };
  if (udev) {
    std::vector<std::string> warnings;
    render::render_udev_node(resolve_node_arg(p, node_name), o, m_inventories, "/sys", &warnings);
    print_warnings(warnings, quiet || m_quiet);
  } else if (o.format == render::Format::hosts) {
    render::render_node(p, nullptr, o);
  } else {
    const auto node = resolve_node_arg(p, node_name);
    render::render_node(p, &node, o);
  }
  j.end_array().end_object();
  if (!dry_run && files > 0) {
    note_work_done(std::string(files == 1 ? "its file" : "its files") + " under " +
                   util::escape_text(m_root) + (files == 1 ? " is" : " are") + " in place");
  }
  if (json) {
    std::cout << j.str() << '\n';
  }
  return 0;
}

}  // namespace ibsetup::cli
