#include "cli/app.hpp"
#include "cli/commands.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/fleet.hpp>
#include <ibsetup/hostlist.hpp>
#include <ibsetup/profile.hpp>

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

namespace ibsetup::cli {

ReportCommands::ReportCommands(CLI::App& app)
{
  m_report = app.add_subcommand(
      "report", "Sum up many hosts' 'check --json' lines (as clush prints them) for the cluster");
  m_report->add_option("file", m_input,
                       "Input: 'check --json' lines, 'HOST: ' prefixed or bare "
                       "(default '-': standard input)");
  m_report->add_option("--expect", m_expect,
                       "Hosts that must answer (hostlist, e.g. cn[001-512]); a host missing "
                       "from the input did not answer");
  m_report->add_option("--profile", m_profile,
                       "Cluster profile whose hosts must all answer (with --expect: both)");
  m_report->add_flag("--json", m_json, "Print the summary as JSON");
}

int ReportCommands::run()
{
  if (!*m_report) {
    return -1;
  }
  std::vector<std::string> expected;
  if (!m_expect.empty()) {
    try {
      expected = expand_hostlist(m_expect);
    } catch (const HostlistError& e) {
      throw Error(ExitCode::usage, "--expect '" + m_expect + "': at offset " +
                                       std::to_string(e.offset()) + ": " + e.what());
    }
  }
  if (!m_profile.empty()) {
    const auto p = profile::load_profile(m_profile);
    for (const auto& g : p.groups) {
      expected.insert(expected.end(), g.hosts.begin(), g.hosts.end());
    }
  }
  check::FleetInput input;
  if (m_input == "-") {
    input = check::read_fleet(std::cin);
  } else {
    std::ifstream in(m_input);
    if (!in) {
      throw InputError(m_input + ": cannot open: " + std::strerror(errno));
    }
    input = check::read_fleet(in);
    if (in.bad()) {
      throw InputError(m_input + ": cannot read: " + std::strerror(errno));
    }
  }
  const auto summary = check::summarize_fleet(input, expected);
  std::cout << (m_json ? check::fleet_to_json(summary) : check::fleet_to_text(summary));
  return summary.ok() ? 0 : static_cast<int>(ExitCode::check_failed);
}

}  // namespace ibsetup::cli
