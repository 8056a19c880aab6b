#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "common/strings.hpp"
#include "common/json.hpp"

#include <ibsetup/profile.hpp>

#include <CLI/CLI.hpp>

#include <iostream>
#include <set>

namespace ibsetup::cli {

namespace {

// In the file's order, as the text output prints them (print_diagnostics).
void diagnostics_json(JsonWriter& j, const std::vector<Diagnostic>& items, Severity severity)
{
  std::vector<const Diagnostic*> sorted;
  for (const auto& d : items) {
    if (d.severity == severity) {
      sorted.push_back(&d);
    }
  }
  std::stable_sort(sorted.begin(), sorted.end(), [](const Diagnostic* a, const Diagnostic* b) {
    return a->mark.line != b->mark.line ? a->mark.line < b->mark.line
                                        : a->mark.column < b->mark.column;
  });
  j.begin_array();
  for (const auto* p : sorted) {
    const Diagnostic& d = *p;
    j.begin_object();
    j.key("file").value(d.file);
    j.key("line").value(d.mark.line);
    j.key("column").value(d.mark.column);
    j.key("path").value(d.path);
    j.key("message").value(d.message);
    j.key("text").value(d.format());
    j.end_object();
  }
  j.end_array();
}

}  // namespace

ProfileCommands::ProfileCommands(CLI::App& app)
{
  m_validate = app.add_subcommand("validate", "Check a cluster profile; report every problem");
  m_validate->add_option("file", m_file, "Cluster profile (YAML)")->required();
  m_validate->add_flag("--json", m_json, "Print the result as JSON");
  m_validate->add_flag("-q,--quiet", m_quiet, "Print nothing but errors");

  m_show = app.add_subcommand("show", "Print one node's resolved desired state");
  m_show->add_option("file", m_file, "Cluster profile (YAML)")->required();
  m_show->add_option("--node", m_node, "Node to resolve (default: this host's short name)");
  m_show->add_flag("--json", m_json, "Print the node as JSON");
  m_show->add_flag("-q,--quiet", m_quiet, "Do not print warnings");

  // For shell completion (--node) and scripts; documented in ibsetup(8), not listed in --help.
  m_hosts = app.add_subcommand("hosts", "Print every host of a cluster profile, one per line");
  m_hosts->group("");
  m_hosts->add_option("file", m_file, "Cluster profile (YAML)")->required();
}

int ProfileCommands::run()
{
  if (*m_validate) {
    return validate();
  }
  if (*m_show) {
    return show();
  }
  if (*m_hosts) {
    return hosts();
  }
  return -1;
}

int ProfileCommands::validate()
{
  std::vector<Diagnostic> diags;
  bool ok = true;
  size_t groups = 0;
  size_t hosts = 0;
  size_t interfaces = 0;
  ErrorKind failed = ErrorKind::bad_input;
  try {
    const auto p = profile::load_profile(m_file);
    diags = p.warnings;
    groups = p.groups.size();
    hosts = p.group_of_host.size();
    for (const auto& g : p.groups) {
      interfaces += g.hosts.size() * g.interfaces.size();
    }
    if (!m_json) {
      print_warnings(p.warnings, m_quiet);
    }
  } catch (const DiagnosticError& e) {
    if (!m_json) {
      throw;
    }
    diags = e.diagnostics().all();
    ok = false;
  } catch (const Error& e) {
    // An unreadable file (exit 4) as well as an invalid one (exit 3): --json still answers.
    if (!m_json) {
      throw;
    }
    // The message names the file already: "FILE: cannot open the profile: ...".
    std::string message = e.what();
    const std::string named = m_file + ": ";
    if (message.compare(0, named.size(), named) == 0) {
      message.erase(0, named.size());
    }
    diags.push_back({Severity::error, m_file, {}, "", message});
    ok = false;
    failed = e.kind();
  }
  if (m_json) {
    JsonWriter j;
    j.begin_object();
    j.key("file").value(m_file);
    j.key("ok").value(ok);
    j.key("groups").value(static_cast<uint64_t>(groups));
    j.key("hosts").value(static_cast<uint64_t>(hosts));
    j.key("interfaces").value(static_cast<uint64_t>(interfaces));
    j.key("errors");
    diagnostics_json(j, diags, Severity::error);
    j.key("warnings");
    diagnostics_json(j, diags, Severity::warning);
    j.end_object();
    std::cout << j.str() << '\n';
    return ok ? 0 : exit_code(failed);
  }
  if (!m_quiet) {
    std::cout << util::escape_text(m_file) << ": ok: " << groups
              << (groups == 1 ? " group, " : " groups, ") << hosts
              << (hosts == 1 ? " host, " : " hosts, ") << interfaces << " interfaces\n";
  }
  return 0;
}

int ProfileCommands::show()
{
  const auto p = profile::load_profile(m_file);
  print_warnings(p.warnings, m_quiet || m_json);
  const auto resolved = resolve_node_arg(p, m_node);
  std::cout << (m_json ? profile::node_to_json(resolved) : profile::node_to_text(resolved));
  return 0;
}

int ProfileCommands::hosts()
{
  const auto p = profile::load_profile(m_file);
  for (const auto& g : p.groups) {
    for (const auto& h : g.hosts) {
      std::cout << h << '\n';
    }
  }
  return 0;
}

}  // namespace ibsetup::cli
