#include "cli/app.hpp"
#include "cli/commands.hpp"

#include <ibsetup/json.hpp>
#include <ibsetup/profile.hpp>
#include <ibsetup/render.hpp>

#include <CLI/CLI.hpp>

#include <iostream>

#ifndef IBSETUP_DATADIR
#define IBSETUP_DATADIR "/usr/share/ibsetup"
#endif

namespace ibsetup::cli {

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
  apply->add_flag("--offline", m_offline,
                  "Write persistent configuration under --root instead of changing the running "
                  "host (same as render)");
}

int RenderCommands::run()
{
  if (!*m_render) {
    return -1;
  }
  return render_offline(m_file, m_node, m_json);
}

int RenderCommands::render_offline(const std::string& file, const std::string& node_name, bool json)
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
    const auto node =
        profile::resolve_node(p, node_name.empty() ? profile::default_node_name() : node_name);
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
  j.begin_object().key("root").value(m_root).key("files").begin_array();
  for (const auto& f : files) {
    const auto result = render::write_file(m_root, f);
    if (json) {
      j.begin_object().key("path").value(f.path).key("result").value(render::to_string(result));
      j.end_object();
    } else {
      std::cout << render::to_string(result) << "  " << m_root << "/" << f.path << '\n';
    }
  }
  j.end_array().end_object();
  if (json) {
    std::cout << j.str() << '\n';
  }
  return 0;
}

}  // namespace ibsetup::cli
