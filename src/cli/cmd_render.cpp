#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "common/strings.hpp"
#include "common/json.hpp"

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
  for (CLI::App* cmd : {m_render, apply}) {
    cmd->add_option("--root", m_root, "Root directory to write under (e.g. / or /mnt/sysimage)");
    cmd->add_option("--format", m_format,
                    "nm-keyfile (default), ifcfg or hosts (an /etc/hosts fragment)");
    cmd->add_option("--templates", m_templates,
                    "Directory with ifcfg templates (default: /etc/ibsetup/templates, then " +
                        std::string(IBSETUP_DATADIR) + "/templates)");
    cmd->add_option("--hosts-pattern", m_hosts_pattern,
                    "Host names in the hosts fragment, with {host} and {if} (default: {host}-ib "
                    "for the first interface, {host}-{if} for the others)");
  }
  m_render->add_flag("--json", m_json, "Print what was written as JSON");
  m_render->add_flag("--dry-run", m_dry_run,
                     "Print what would be written (would create, would update or unchanged) "
                     "and each changed file's content; write nothing");
  apply->add_flag("--offline", m_offline,
                  "Write persistent configuration under --root instead of changing the running "
                  "host (same as render)");
}

int RenderCommands::run()
{
  if (!*m_render) {
    return -1;
  }
  return render_offline(m_file, m_node, m_json, m_dry_run);
}

int RenderCommands::render_offline(const std::string& file, const std::string& node_name, bool json,
                                   bool dry_run)
{
  if (m_root.empty()) {
    throw Error(ExitCode::usage, "--root DIR is required to render (use / for this system)");
  }
  const auto p = profile::load_profile(file);
  for (const auto& w : p.warnings) {
    std::cerr << w.format() << '\n';
  }
  std::vector<render::RenderedFile> files;
  if (m_format == "hosts") {
    files.push_back(render::render_hosts(p, m_hosts_pattern));
  } else {
    const auto node = resolve_node_arg(p, node_name);
    if (m_format == "nm-keyfile") {
      files = render::render_keyfiles(node, p.cluster);
    } else if (m_format == "ifcfg") {
      std::vector<render::TemplateDir> dirs;
      if (!m_templates.empty()) {
        dirs.push_back({m_templates, ""});
      }
      dirs.push_back({"etc/ibsetup/templates", m_root});
      dirs.push_back({IBSETUP_DATADIR "/templates", ""});
      files = render::render_ifcfg(node, dirs);
    } else {
      throw Error(ExitCode::usage, "--format must be nm-keyfile, ifcfg or hosts");
    }
  }
  JsonWriter j;
  j.begin_object().key("root").value(m_root);
  if (dry_run) {
    j.key("dry_run").value(true);
  }
  j.key("files").begin_array();
  for (const auto& f : files) {
    const auto result = dry_run ? render::check_file(m_root, f) : render::write_file(m_root, f);
    // A dry run shows the content a write would put there; an unchanged file has it already.
    const bool show = dry_run && result != render::WriteResult::unchanged;
    const std::string what = dry_run ? would(result) : render::to_string(result);
    if (json) {
      j.begin_object().key("path").value(f.path).key("result").value(what);
      if (show) {
        j.key("content").value(f.content);
      }
      j.end_object();
    } else {
      std::cout << what << "  " << util::escape_text(m_root + "/" + f.path) << '\n';
      if (show) {
        print_indented(f.content);
      }
    }
  }
  j.end_array().end_object();
  if (json) {
    std::cout << j.str() << '\n';
  }
  return 0;
}

}  // namespace ibsetup::cli
