#include "cli/cmd_partitions.hpp"

#include "cli/app.hpp"
#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"
#include "common/strings.hpp"
#include "partitions/inventories.hpp"
#include "partitions/layout.hpp"
#include "partitions/opensm.hpp"
#include "partitions/report.hpp"
#include "partitions/ufm.hpp"
#include "partitions/verify.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/profile.hpp>
#include <ibsetup/render.hpp>

#include <CLI/CLI.hpp>

#include <iostream>

namespace ibsetup::cli {

namespace {

// --output PATH through render's safe writer: PATH's directory is the root (named by the
// administrator, so followed as given), the file is replaced atomically, and an existing
// file that ibsetup did not write is left alone.
render::WriteResult write_output(const std::string& path, const std::string& content)
{
  const auto slash = path.rfind('/');
  const std::string dir =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.empty() || name == "." || name == "..") {
    throw Error(ErrorKind::usage, "--output " + path + ": names a directory, not a file");
  }
  return render::write_file(dir, render::RenderedFile{name, content, 0644});
}

size_t member_count(const partitions::Layout& layout)
{
  size_t n = 0;
  for (const auto& p : layout.partitions) {
    n += p.members.size();
  }
  return n;
}

std::string count(size_t n, const char* one, const char* many)
{
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

PartitionsCommands::PartitionsCommands(CLI::App& app)
{
  m_partitions = app.add_subcommand(
      "partitions",
      "Write the subnet manager's partitions (OpenSM partitions.conf) from the profile and "
      "the hosts' inventories");
  m_partitions->add_option("file", m_file, "Cluster profile (YAML)")->required();
  m_partitions
      ->add_option("--inventories", m_inventories,
                   "Where the port GUIDs come from: '-' (inspect --json lines on standard "
                   "input, as clush prints them), a directory of HOST.json files, or an "
                   "ibnetdiscover topology file")
      ->required();
  m_partitions->add_option("--format", m_format,
                           "opensm (default): OpenSM's partitions.conf; ufm: the bodies of UFM's "
                           "REST calls that set each partition's GUIDs (JSON)");
  m_partitions->add_option("--output", m_output,
                           "Write the file to PATH (atomically; a file ibsetup did not write "
                           "is left alone) instead of standard output");
  m_partitions->add_flag("--allow-missing", m_allow_missing,
                         "Write the file even when members are missing (listed in it as "
                         "comments) or a GUID is on two ports");
  m_partitions->add_flag("--json", m_json,
                         "Print the partitions, their members and every problem as JSON");
  m_partitions->add_flag("-q,--quiet", m_quiet,
                         "Do not print warnings, nor --output's summary or a passing --verify");
  m_partitions->add_flag("--verify", m_verify,
                         "Write nothing: read each profile host port's P_Key table from the fabric "
                         "(SA and SMP queries from this host's HCA) and compare it with what the "
                         "profile implies");
  m_partitions->add_option("--ca", m_ca,
                           "With --verify: the local HCA the queries leave from (default: "
                           "the first with an active port)");
  m_partitions->add_option("--ca-port", m_ca_port, "With --verify: that HCA's port");
}

int PartitionsCommands::verify(const partitions::Layout& layout, bool complete)
{
  if (!m_output.empty()) {
    throw Error(ErrorKind::usage, "--verify reads the fabric and writes no file (--output)");
  }
  partitions::VerifyOptions options;
  options.ca = m_ca;
  options.port = m_ca_port;
  const auto report = partitions::verify_fabric(layout, options);
  if (m_json) {
    std::cout << partitions::format_verify_json(report);
  } else if (!m_quiet || !report.ok()) {
    std::cout << partitions::format_verify_text(report);
  }
  if (!complete && !m_allow_missing) {
    print_error(m_file + ": " +
                count(layout.missing.size(), "member is missing", "members are missing") +
                " and could not be checked (--allow-missing accepts that)");
    return exit_code(ErrorKind::bad_input);
  }
  return report.ok() ? 0 : exit_code(ErrorKind::check_failed);
}

int PartitionsCommands::run()
{
  if (!*m_partitions) {
    return -1;
  }
  if (m_format != "opensm" && m_format != "ufm") {
    throw Error(ErrorKind::usage, "--format must be opensm or ufm");
  }
  if (m_format == "ufm" && !m_output.empty()) {
    // The safe writer replaces only files that start with its marker, which JSON cannot.
    throw Error(ErrorKind::usage,
                "--output writes OpenSM's partitions.conf; --format ufm prints the REST bodies "
                "to standard output (redirect or pipe them)");
  }
  if (!m_verify && (!m_ca.empty() || m_ca_port != 0)) {
    throw Error(ErrorKind::usage, "--ca and --ca-port go with --verify");
  }
  if (m_ca_port < 0 || m_ca_port > 255) {
    throw Error(ErrorKind::usage, "--ca-port must be 1 to 255");
  }
  const auto profile = profile::load_profile(m_file);
  print_warnings(profile.warnings, m_quiet);
  if (!m_output.empty() && !m_verify) {
    // As render: a signal ends the wait for the inventories or the output's lock, or undoes
    // the staged file, with an error; during the rename the file is replaced and reported.
    // Then the signal ends ibsetup (exit 128+N).
    hold_stop_signals();
  }
  const auto inventories = partitions::read_inventories(m_inventories);
  const auto layout = partitions::build_layout(profile, inventories);
  const bool complete = partitions::layout_complete(layout);
  const bool write = complete || m_allow_missing;
  // The problems go to standard error even with -q when they stop the command.
  print_warnings(partitions::report_lines(layout, inventories), m_quiet && write);
  if (m_verify) {
    return verify(layout, complete);
  }
  const std::string text =
      m_format == "ufm" ? partitions::write_ufm(layout) : partitions::write_opensm(layout, m_file);
  if (m_json) {
    std::cout << partitions::layout_to_json(layout, inventories);
  }
  if (!write) {
    print_error(m_file + ": " +
                count(layout.missing.size(), "member is missing", "members are missing") +
                (layout.duplicate_guids.empty()
                     ? std::string()
                     : " and " + count(layout.duplicate_guids.size(), "GUID is", "GUIDs are") +
                           " on two ports") +
                "; nothing written (--allow-missing writes the file without them)");
    return exit_code(ErrorKind::bad_input);
  }
  if (m_output.empty()) {
    if (!m_json) {
      std::cout << text;
    }
    return 0;
  }
  const auto result = write_output(m_output, text);
  note_work_done(util::escape_text(m_output) + " is in place");
  if (!m_json && !m_quiet) {
    std::cout << m_output << ": " << render::to_string(result) << " ("
              << count(layout.partitions.size(), "partition", "partitions") << ", "
              << count(member_count(layout), "member", "members")
              << (layout.missing.empty()
                      ? std::string()
                      : ", " + count(layout.missing.size(), "missing member listed",
                                     "missing members listed"))
              << ")\n";
  }
  return 0;
}

}  // namespace ibsetup::cli
