#include <ibsetup/error.hpp>

#include "common/strings.hpp"
#include "common/process.hpp"
#include "check/slurm.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace ibsetup::check {

namespace {

// Each run gets what is left until the deadline, at least 2 s (a verdict must reach Slurm, even
// from the watchdog) and at most 10 s.
std::chrono::milliseconds run_timeout(std::chrono::steady_clock::time_point deadline)
{
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return std::clamp(left, std::chrono::milliseconds(2000), std::chrono::milliseconds(10000));
}

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

// The node's state flags: `scontrol show node` gives "IDLE+DRAIN", "DOWN+NOT_RESPONDING",
// "MIXED+FAIL"; sinfo-style words and suffixes ("DRAINING", "DOWN*") are taken too.
struct NodeState {
  bool drained = false;
  bool down = false;  // DOWN or FAIL: out of service for a reason of its own
};

NodeState node_state(const std::string& state)
{
  NodeState out;
  size_t start = 0;
  while (start <= state.size()) {
    const size_t end = std::min(state.find('+', start), state.size());
    std::string word = state.substr(start, end - start);
    while (!word.empty() && std::isalpha(static_cast<unsigned char>(word.back())) == 0) {
      word.pop_back();
    }
    out.drained = out.drained || word == "DRAIN" || word == "DRAINING" || word == "DRAINED";
    out.down = out.down || word == "DOWN" || word == "FAIL" || word == "FAILING";
    start = end + 1;
  }
  return out;
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
                          const std::string& scontrol,
                          std::chrono::steady_clock::time_point deadline)
{
  SlurmOutcome out;
  try {
    // Read the node first either way: Slurm replaces a drained node's reason on every DRAIN,
    // so draining over an operator's drain would lose their reason, and a later pass would
    // then resume a node they are still working on.
    // A DOWN or FAIL node is held like a drained one: a DRAIN would replace its reason too.
    auto timeout = run_timeout(deadline);
    const auto show = run({scontrol, "show", "node", node}, timeout);
    if (!show.ok()) {
      out.error = failed(show, "scontrol show node " + node, timeout);
      return out;
    }
    const std::string state = field(show.out, "State");
    const std::string reason = field(show.out, "Reason");
    const NodeState flags = node_state(state);
    const bool drained = flags.drained;
    const bool ours = reason.rfind("ibsetup:", 0) == 0;
    timeout = run_timeout(deadline);
    if (!report.ok()) {
      if (flags.down && !ours) {
        out.action = "left alone (state " + state + ", reason: " + reason + ")";
        return out;
      }
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
    if (flags.down) {
      // Drained by ibsetup, but since DOWN or FAILed for a reason of Slurm's or an operator's:
      // a RESUME would return it to service under them.
      out.action = "left alone (state " + state + ": not resumed while DOWN or FAIL)";
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
