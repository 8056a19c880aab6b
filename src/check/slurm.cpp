#include <ibsetup/error.hpp>

#include "common/strings.hpp"
#include "common/process.hpp"
#include "check/slurm.hpp"

#include <sstream>

namespace ibsetup::check {

namespace {

ProcessResult run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout)
{
  ProcessOptions o;
  o.timeout = timeout;
  o.output_limit = 256U << 10U;
  return run_process(argv, o);
}

std::string failed(const ProcessResult& r, const std::string& what,
                   std::chrono::milliseconds timeout)
{
  std::string err = r.err;
  while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) {
    err.pop_back();
  }
  return what + ": " + r.describe(timeout) + (err.empty() ? "" : ": " + err);
}

// The value of key in `scontrol show node` output (key=value pairs; Reason runs to the end of
// its line because it may hold spaces).
std::string field(const std::string& text, const std::string& key)
{
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t pos = 0;
    while ((pos = line.find(key + "=", pos)) != std::string::npos) {
      if (pos == 0 || line[pos - 1] == ' ') {
        const size_t start = pos + key.size() + 1;
        if (key == "Reason") {
          return line.substr(start);
        }
        return line.substr(start, line.find(' ', start) - start);
      }
      pos += key.size();
    }
  }
  return "";
}

}  // namespace

std::string drain_reason(const Report& report)
{
  const Result* f = report.first_failure();
  std::string message = f != nullptr ? f->message : std::string("check failed");
  for (char& c : message) {
    if (c == '\n' || c == '\r' || c == '\t') {
      c = ' ';
    }
  }
  // The message may quote sysfs or a peer: any other control character (a NUL would end the
  // argv string early, silently) or byte that is not UTF-8 is written as an escape.
  std::string reason = "ibsetup: " + util::escape_text(message);
  if (reason.size() > 256) {
    size_t cut = 253;
    while (cut > 0 && (static_cast<unsigned char>(reason[cut]) & 0xC0U) == 0x80U) {
      --cut;  // never split a UTF-8 character
    }
    reason = reason.substr(0, cut) + "...";
  }
  return reason;
}

SlurmOutcome slurm_update(const Report& report, const std::string& node,
                          const std::string& scontrol, std::chrono::milliseconds timeout)
{
  SlurmOutcome out;
  try {
    // Read the node first either way: Slurm replaces a drained node's reason on every DRAIN,
    // so draining over an operator's drain would lose their reason, and a later pass would
    // then resume a node they are still working on.
    const auto show = run({scontrol, "show", "node", node}, timeout);
    if (!show.ok()) {
      out.error = failed(show, "scontrol show node " + node, timeout);
      return out;
    }
    const std::string state = field(show.out, "State");
    const std::string reason = field(show.out, "Reason");
    const bool drained = state.find("DRAIN") != std::string::npos;
    const bool ours = reason.rfind("ibsetup:", 0) == 0;
    if (!report.ok()) {
      if (drained && !ours) {
        out.action = "left alone (already drained by someone else: " + reason + ")";
        return out;
      }
      const auto r = run(
          {scontrol, "update", "NodeName=" + node, "State=DRAIN", "Reason=" + drain_reason(report)},
          timeout);
      if (!r.ok()) {
        out.error = failed(r, "scontrol update NodeName=" + node + " State=DRAIN", timeout);
      } else {
        out.action = "drained (" + drain_reason(report) + ")";
      }
      return out;
    }
    if (!drained) {
      out.action = "left alone (state " + (state.empty() ? "unknown" : state) + ")";
      return out;
    }
    if (!ours) {
      out.action = "left alone (drained by someone else: " + reason + ")";
      return out;
    }
    const auto r = run({scontrol, "update", "NodeName=" + node, "State=RESUME"}, timeout);
    if (!r.ok()) {
      out.error = failed(r, "scontrol update NodeName=" + node + " State=RESUME", timeout);
    } else {
      out.action = "resumed (was drained: " + reason + ")";
    }
  } catch (const Error& e) {
    out.error = e.what();
  }
  return out;
}

}  // namespace ibsetup::check
