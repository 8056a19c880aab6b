#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "common/strings.hpp"

#include <ibsetup/rdma_check.hpp>

#include <CLI/CLI.hpp>

#include <iostream>

namespace ibsetup::cli {

RdmaCommands::RdmaCommands(CLI::App& app)
{
  m_responder = app.add_subcommand(
      "responder",
      "Answer the rdma.pingpong, rdma.bandwidth and rdma.latency checks of other nodes: "
      "accept RDMA RC connections, echo messages, take RDMA writes");
  m_responder->add_option("--bind", m_bind, "Listen on this address only (default: every one)");
  m_responder->add_option("--port", m_port, "RDMA CM port to listen on (default 18515)")
      ->check(CLI::Range(1, 65535));
  m_responder->add_option("--count", m_count, "Exit after N ping-pong echoes or perf sessions")
      ->check(CLI::Range(1, 1000000000));
  m_responder->add_flag("--once", m_once, "Exit after the first echo or session (--count 1)");
  m_responder->add_option("--timeout", m_timeout, "Exit after S seconds (default: never)")
      ->check(CLI::Range(1, 1000000000));
  m_responder
      ->add_option("--max-sessions", m_max_sessions,
                   "Connections served at once; more are rejected (default 8)")
      ->check(CLI::Range(1, 64));
  m_responder
      ->add_option("--max-session-time", m_max_session_s,
                   "Seconds any one connection may last (default 60)")
      ->check(CLI::Range(1, 3600));
  m_responder->add_flag("-q,--quiet", m_quiet, "Print nothing but errors");
}

int RdmaCommands::run()
{
  return *m_responder ? responder() : -1;
}

int RdmaCommands::responder()
{
  if (m_once && m_responder->count("--count") > 0) {
    throw Error(ErrorKind::usage, "--once and --count disagree; give one");
  }
  check::ResponderOptions o;
  o.bind = m_bind;
  o.port = static_cast<uint16_t>(m_port);
  o.count = m_once ? 1 : m_count;
  o.timeout_s = m_timeout;
  o.max_sessions = m_max_sessions;
  o.max_session_s = m_max_session_s;
  const bool quiet = m_quiet;
  check::run_responder(o, [quiet](const std::string& line) {
    if (!quiet) {
      std::cout << "ibsetup responder: " << util::escape_text(line) << std::endl;
    }
  });
  return 0;
}

}  // namespace ibsetup::cli
