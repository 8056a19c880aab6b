#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "common/strings.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/profile.hpp>
#include <ibsetup/rdma_check.hpp>

#include <CLI/CLI.hpp>

#include <iostream>

namespace ibsetup::cli {

RdmaCommands::RdmaCommands(CLI::App& app)
{
  m_responder = app.add_subcommand(
      "responder",
      "Answer the rdma.pingpong check of other nodes: accept RDMA RC connections "
      "and echo every message");
  m_responder->add_option("--bind", m_bind, "Listen on this address only (default: every one)");
  m_responder->add_option("--port", m_port, "RDMA CM port to listen on (default 18515)")
      ->check(CLI::Range(1, 65535));
  m_responder->add_option("--count", m_count, "Exit after echoing N messages")
      ->check(CLI::Range(1, 1000000000));
  m_responder->add_flag("--once", m_once, "Exit after the first echo (--count 1)");
  m_responder->add_option("--timeout", m_timeout, "Exit after S seconds (default: never)")
      ->check(CLI::Range(1, 1000000000));
  m_responder->add_flag("-q,--quiet", m_quiet, "Print nothing but errors");

  // Until `check` runs these checks itself; documented in ibsetup(8), not listed in --help.
  m_rdma_check = app.add_subcommand("rdma-check",
                                    "Run only the RDMA checks of a node (rdma.device, rdma.route, "
                                    "rdma.pingpong)");
  m_rdma_check->group("");
  m_rdma_check->add_option("file", m_file, "Cluster profile (YAML)")->required();
  m_rdma_check->add_option("--node", m_node, "Node to check (default: this host's short name)");
  m_rdma_check->add_flag("--json", m_json, "Print the results as JSON");
  m_rdma_check->add_flag("--pingpong", m_pingpong,
                         "Also exchange a message with `ibsetup responder` on each peer");
  m_rdma_check
      ->add_option("--timeout-ms", m_timeout_ms,
                   "Deadline for each peer address, in milliseconds (default 1000)")
      ->check(CLI::Range(1, 3600000));
  m_rdma_check->add_option("--port", m_port, "The peers' responder port (default 18515)")
      ->check(CLI::Range(1, 65535));
}

int RdmaCommands::run()
{
  if (*m_responder) {
    return responder();
  }
  if (*m_rdma_check) {
    return rdma_check();
  }
  return -1;
}

int RdmaCommands::responder()
{
  check::ResponderOptions o;
  o.bind = m_bind;
  o.port = static_cast<uint16_t>(m_port);
  o.count = m_once ? 1 : m_count;
  o.timeout_s = m_timeout;
  const bool quiet = m_quiet;
  check::run_responder(o, [quiet](const std::string& line) {
    if (!quiet) {
      std::cout << "ibsetup responder: " << util::escape_text(line) << std::endl;
    }
  });
  return 0;
}

int RdmaCommands::rdma_check()
{
  const auto p = profile::load_profile(m_file);
  const auto node = resolve_node_arg(p, m_node);
  check::RdmaOptions o;
  o.deadline_ms = m_timeout_ms;
  o.pingpong = m_pingpong;
  o.port = static_cast<uint16_t>(m_port);
  check::Report report;
  report.host = node.host;
  report.checks = check::check_rdma(node, o);
  std::cout << (m_json ? check::report_to_json(report) : check::report_to_text(report));
  return report.ok() ? 0 : static_cast<int>(ExitCode::check_failed);
}

}  // namespace ibsetup::cli
