// The Tool that runs mstflint's mstconfig, and the meaning of its failures.
#include <ibsetup/firmware.hpp>

#include "common/bounded_read.hpp"
#include "common/process.hpp"
#include "common/strings.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <sstream>

namespace ibsetup::firmware {

namespace {

bool any_contains(const std::vector<std::string>& lines, const std::string& needle)
{
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(needle) != std::string::npos; });
}

std::string last_line(const std::string& text)
{
  std::string last;
  size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    const auto line = text.substr(start, end == std::string::npos ? end : end - start);
    if (line.find_first_not_of(" \t\r") != std::string::npos) {
      last = line;
    }
    if (end == std::string::npos) {
      break;
    }
    start = end + 1;
  }
  return last;
}

std::string fixed_message(const std::string& pci)
{
  return "link type is fixed on this adapter: " + pci +
         " has no LINK_TYPE parameters (an Ethernet-only or single-protocol card); remove "
         "link_type from the profile for it";
}

class Mstconfig : public Tool {
public:
  Mstconfig(std::string program, std::chrono::milliseconds timeout)
      : m_program(std::move(program)), m_timeout(timeout)
  {
  }

  std::vector<std::pair<int, profile::LinkType>> query(const std::string& pci,
                                                       const std::vector<int>& ports) override
  {
    std::vector<std::string> argv{m_program, "-d", pci, "query"};
    for (int p : ports) {
      argv.push_back("LINK_TYPE_P" + std::to_string(p));
    }
    // After a set, the query that confirms it is let finish too: a signal that cut it short
    // would leave the run without knowing what the firmware holds, and the reboot marker
    // without the change.
    const MstconfigOutput out = run(argv, pci, m_written);
    std::vector<std::pair<int, profile::LinkType>> result;
    bool any = false;
    for (int p : ports) {
      const std::string name = "LINK_TYPE_P" + std::to_string(p);
      const auto value = out.value(name);
      if (!value) {
        continue;
      }
      any = true;
      const auto type = parse_link_type(*value);
      if (!type) {
        throw EnvironmentError(util::join(argv, " ") + ": " + name +
                               " has a value ibsetup does not know: '" + *value + "'");
      }
      result.emplace_back(p, *type);
    }
    if (!any && out.parameters.empty() && out.columns.empty() && !out.device) {
      // Not an adapter without the parameter (mstconfig names those with "-E-"): nothing at
      // all came back, which says nothing about the card.
      throw EnvironmentError(
          util::join(argv, " ") + ": mstconfig exited 0 but printed no configuration " + "(" +
          (out.warnings.empty() ? "no output" : "-W- " + out.warnings.front()) + "); not trusted");
    }
    const bool listed =
        std::any_of(out.parameters.begin(), out.parameters.end(),
                    [](const auto& p) { return p.first.rfind("LINK_TYPE_P", 0) == 0; });
    if (!any && listed && !out.columns.empty() &&
        std::find(out.columns.begin(), out.columns.end(), "Next Boot") == out.columns.end()) {
      // The parameters are there, in other columns: not a fixed link type, an output this
      // version of ibsetup does not know where to read.
      throw EnvironmentError(util::join(argv, " ") + ": mstconfig listed LINK_TYPE but no " +
                             "Next Boot column (columns: " + util::join(out.columns, ", ") +
                             "); not trusted");
    }
    if (!any) {
      throw EnvironmentError(fixed_message(pci));
    }
    if (result.size() != ports.size()) {
      throw EnvironmentError(util::join(argv, " ") + ": mstconfig reported " +
                             std::to_string(result.size()) + " of " + std::to_string(ports.size()) +
                             " LINK_TYPE parameters; the missing ports have a fixed link type");
    }
    return result;
  }

  void set(const std::string& pci,
           const std::vector<std::pair<int, profile::LinkType>>& values) override
  {
    std::vector<std::string> argv{m_program, "-y", "-d", pci, "set"};
    for (const auto& [port, type] : values) {
      argv.push_back("LINK_TYPE_P" + std::to_string(port) + "=" + std::to_string(mst_value(type)));
    }
    // A signal lets the write finish (or time out) first: a set cut short may leave some
    // ports written and the device semaphore held.
    m_written = true;
    const MstconfigOutput out = run(argv, pci, true);
    if (!out.errors.empty()) {
      throw EnvironmentError(util::join(argv, " ") + " failed: " + out.errors.front());
    }
  }

private:
  MstconfigOutput run(const std::vector<std::string>& argv, const std::string& pci,
                      bool finish_on_signal = false) const
  {
    ProcessOptions options;
    options.timeout = m_timeout;
    options.finish_on_signal = finish_on_signal;
    ProcessResult r = run_process(argv, options);
    // Its text ends up in exception messages, which are C strings: a NUL would cut off the
    // rest, the exit status and ibsetup's own hint included. Shown as the escape it gets.
    for (std::string* text : {&r.out, &r.err}) {
      for (size_t at = text->find('\0'); at != std::string::npos; at = text->find('\0', at)) {
        text->replace(at, 1, "\\x00");
      }
    }
    const std::string command = util::join(argv, " ");
    if (r.timed_out || r.signal != 0) {
      throw EnvironmentError(command + " " + r.describe(m_timeout));
    }
    MstconfigOutput out;
    std::optional<ParseError> parse_error;
    try {
      out = parse_mstconfig(r.out + (r.out.empty() || r.out.back() == '\n' ? "" : "\n") + r.err);
    } catch (const ParseError& e) {
      parse_error = e;
    }
    const std::string status = " (" + r.describe(m_timeout) + ")";
    if (!parse_error && (r.exit_status != 0 || !out.errors.empty())) {
      if (any_contains(out.errors, "Failed to open")) {
        std::string message =
            "mstconfig cannot open the device " + pci + ": -E- " + out.errors.front() + status;
        if (out.semaphore_denied) {
          message +=
              "; it could not write the device semaphore ('write counter to semaphore: "
              "Operation not permitted'), which happens when Secure Boot puts the kernel in "
              "lockdown mode: disable Secure Boot (mokutil --sb-state) or set the link type "
              "from the adapter's UEFI/BIOS menu";
        } else {
          message +=
              "; is there a Mellanox/NVIDIA adapter at this address, and is this run as root?";
        }
        throw EnvironmentError(message);
      }
      if (any_contains(out.errors, "Unsupported device") ||
          any_contains(out.errors, "not supported")) {
        throw EnvironmentError("mstconfig does not support the adapter at " + pci + ": -E- " +
                               out.errors.front() + status);
      }
      if (any_contains(out.errors, "support LINK_TYPE") ||
          any_contains(out.errors, "Unknown Parameter: LINK_TYPE")) {
        throw EnvironmentError(fixed_message(pci) + " (-E- " + out.errors.front() + ")");
      }
      const std::string detail = out.errors.empty() ? last_line(r.err.empty() ? r.out : r.err)
                                                    : "-E- " + out.errors.front();
      throw EnvironmentError(command + " failed" + status + (detail.empty() ? "" : ": " + detail));
    }
    if (parse_error) {
      // The output was not understood, but a failing run's own "-E-" line says the most.
      std::istringstream lines(r.err + "\n" + r.out);
      std::string line;
      std::string e_line;
      while (e_line.empty() && std::getline(lines, line)) {
        const auto at = line.find("-E-");
        if (at != std::string::npos) {
          e_line = line.substr(at);
        }
      }
      throw EnvironmentError(command + status + ": " +
                             (r.exit_status != 0 && !e_line.empty() ? e_line + "; " : "") +
                             parse_error->what());
    }
    if (r.stdout_truncated || r.stderr_truncated) {
      throw EnvironmentError(command + ": output larger than ibsetup reads; not trusted");
    }
    // mstflint names the device it answered for; MFT names its /dev/mst node instead, which
    // cannot be compared. An answer about another PCI device is not this one's.
    if (const auto named = out.device ? util::pci_address(*out.device) : std::nullopt;
        named && *named != util::to_lower(pci)) {
      throw EnvironmentError(command + ": mstconfig answered for device " +
                             util::escape_text(*out.device) + ", not " + pci + "; not trusted");
    }
    return out;
  }

  std::string m_program;
  std::chrono::milliseconds m_timeout;
  bool m_written = false;  // a set has run (or was started): the firmware may have changed
};

}  // namespace

std::unique_ptr<Tool> make_mstconfig(const std::string& program, std::chrono::milliseconds timeout)
{
  const std::string name = program.empty() ? "mstconfig" : program;
  std::string why;
  const auto path = find_program(name, &why);
  if (!path) {
    if (program.empty()) {
      throw EnvironmentError(std::string("mstconfig is not installed (not found in ") +
                             k_clean_path +
                             "); install the mstflint package (apt-get/dnf install mstflint), or "
                             "give its path with --mstconfig PATH");
    }
    throw EnvironmentError(util::escape_text(program) + ": " + why +
                           " (--mstconfig); mstconfig comes with the mstflint package");
  }
  return std::make_unique<Mstconfig>(*path, timeout);
}

}  // namespace ibsetup::firmware
