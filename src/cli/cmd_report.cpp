#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "common/bounded_read.hpp"
#include "common/strings.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/fleet.hpp>
#include <ibsetup/hostlist.hpp>
#include <ibsetup/profile.hpp>

#include <CLI/CLI.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <new>

namespace ibsetup::cli {

namespace {

// The input read with read(2): a failing read is an error with its errno, where std::cin
// (through stdio) would take it for the end of the input.
class FdInput : public std::streambuf {
public:
  explicit FdInput(int fd) : m_fd(fd) {}
  FdInput(const FdInput&) = delete;
  FdInput& operator=(const FdInput&) = delete;
  ~FdInput() override
  {
    if (m_fd > 0) {
      ::close(m_fd);
    }
  }

  int error() const { return m_error; }

protected:
  int_type underflow() override
  {
    const ssize_t n = util::read_waiting(m_fd, m_buf, sizeof m_buf);
    if (n < 0) {
      m_error = errno;
      throw std::ios_base::failure("read failed");  // the stream sets badbit
    }
    if (n == 0) {
      return traits_type::eof();
    }
    setg(m_buf, m_buf, m_buf + n);
    return traits_type::to_int_type(m_buf[0]);
  }

private:
  int m_fd;
  int m_error = 0;
  char m_buf[65536];
};

}  // namespace

ReportCommands::ReportCommands(CLI::App& app)
{
  m_report = app.add_subcommand(
      "report",
      "Sum up many hosts' 'check --json' lines (as clush or pdsh prints them) for the cluster");
  m_report->add_option("file", m_input,
                       "Input: 'check --json' lines, 'HOST: ' prefixed or bare "
                       "(default '-': standard input)");
  m_report->add_option("--expect", m_expect,
                       "Hosts that must answer (hostlist, e.g. cn[001-512]); a host missing "
                       "from the input did not answer");
  m_report->add_option("--profile", m_profile,
                       "Cluster profile whose hosts must all answer (with --expect: both)");
  m_report->add_flag("--json", m_json, "Print the summary as JSON (same as --format json)");
  m_report->add_option("--format", m_format, "text (default), json or openmetrics");
}

int ReportCommands::run()
{
  if (!*m_report) {
    return -1;
  }
  if (m_json) {
    if (m_report->count("--format") > 0 && m_format != "json") {
      throw Error(ErrorKind::usage, "--json and --format " + m_format + " disagree; give one");
    }
    m_format = "json";
  }
  if (m_format != "text" && m_format != "json" && m_format != "openmetrics") {
    throw Error(ErrorKind::usage, "--format must be text, json or openmetrics");
  }
  std::vector<std::string> expected;
  if (!m_expect.empty()) {
    try {
      expected = expand_hostlist(m_expect);
    } catch (const HostlistError& e) {
      throw Error(ErrorKind::usage, "--expect '" + m_expect + "': at offset " +
                                        std::to_string(e.offset()) + ": " + e.what());
    }
  }
  if (!m_profile.empty()) {
    const auto p = profile::load_profile(m_profile);
    for (const auto& g : p.groups) {
      expected.insert(expected.end(), g.hosts.begin(), g.hosts.end());
    }
  }
  const std::string name = m_input == "-" ? "standard input" : m_input;
  struct stat st {};
  // A device is looked at before it is opened (opening one can act on it: a watchdog, a tty
  // that becomes the controlling terminal), and again after, in case the path was swapped. A
  // FIFO stays allowed: report <(clush ...).
  const auto refuse_device = [this, &st] {
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
      throw EnvironmentError(util::escape_text(m_input) + ": is " + util::file_kind(st.st_mode) +
                             "; give the file clush or pdsh wrote, or - for standard input");
    }
  };
  if (m_input == "-") {
    util::refuse_terminal(0, "report -", "the output of clush or pdsh");
  } else if (::stat(m_input.c_str(), &st) == 0) {
    refuse_device();
  }
  const int fd = m_input == "-" ? 0 : ::open(m_input.c_str(), O_RDONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    // Like a missing profile: this host's problem (exit 4), not a defect of the input.
    throw EnvironmentError(util::escape_text(m_input) + ": cannot open: " + std::strerror(errno));
  }
  FdInput buf(fd);
  const bool stat_ok = ::fstat(fd, &st) == 0;
  if (stat_ok && m_input != "-") {
    refuse_device();
  }
  if (stat_ok && S_ISDIR(st.st_mode)) {
    // read() would fail with EISDIR, which read as invalid input "after line 0" (exit 3).
    throw EnvironmentError(util::escape_text(m_input) +
                           ": is a directory; give the file clush or pdsh wrote, or - for "
                           "standard input");
  }
  std::istream in(&buf);
  check::FleetInput input;
  try {
    input = check::read_fleet(in);
  } catch (const Error& e) {
    const std::string why = buf.error() != 0 ? std::string(": ") + std::strerror(buf.error()) : "";
    throw Error(e.kind(), name + ": " + e.what() + why);
  }
  const size_t hosts = input.hosts.size();
  try {
    const auto summary = check::summarize_fleet(input, expected);
    std::cout << (m_format == "json"          ? check::fleet_to_json(summary)
                  : m_format == "openmetrics" ? check::fleet_to_metrics(summary)
                                              : check::fleet_to_text(summary));
    return summary.ok() ? 0 : exit_code(ErrorKind::check_failed);
  } catch (const std::bad_alloc&) {
    input = check::FleetInput();
    throw EnvironmentError(name + ": out of memory summing up " + std::to_string(hosts) + " hosts");
  }
}

}  // namespace ibsetup::cli
