#include <ibsetup/error.hpp>
#include <ibsetup/process.hpp>
#include <ibsetup/slurm.hpp>

#include <sstream>

namespace ibsetup::check {

namespace {

const std::chrono::milliseconds k_timeout{10000};

ProcessResult run(const std::vector<std::string>& argv)
{
  ProcessOptions o;
  o.timeout = k_timeout;
  o.output_limit = 256U << 10U;
  return run_process(argv, o);
}

std::string failed(const ProcessResult& r, const std::string& what)
{
  std::string err = r.err;
  while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) {
    err.pop_back();
  }
  return what + ": " + r.describe(k_timeout) + (err.empty() ? "" : ": " + err);
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
  std::string reason = "ibsetup: " + (f != nullptr ? f->message : std::string("check failed"));
  for (char& c : reason) {
    if (c == '\n' || c == '\r' || c == '\t') {
      c = ' ';
    }
  }
  if (reason.size() > 256) {
    reason = reason.substr(0, 253) + "...";
  }
  return reason;
}

SlurmOutcome slurm_update(const Report& report, const std::string& node,
                          const std::string& scontrol)
{
  SlurmOutcome out;
  try {
    if (!report.ok()) {
      const auto r = run({scontrol, "update", "NodeName=" + node, "State=DRAIN",
                          "Reason=" + drain_reason(report)});
      if (!r.ok()) {
        out.error = failed(r, "scontrol update NodeName=" + node + " State=DRAIN");
      } else {
        out.action = "drained (" + drain_reason(report) + ")";
      }
      return out;
    }
    const auto show = run({scontrol, "show", "node", node});
    if (!show.ok()) {
      out.error = failed(show, "scontrol show node " + node);
      return out;
    }
    const std::string state = field(show.out, "State");
    const std::string reason = field(show.out, "Reason");
    if (state.find("DRAIN") == std::string::npos) {
      out.action = "left alone (state " + (state.empty() ? "unknown" : state) + ")";
      return out;
    }
    if (reason.rfind("ibsetup:", 0) != 0) {
      out.action = "left alone (drained by someone else: " + reason + ")";
      return out;
    }
    const auto r = run({scontrol, "update", "NodeName=" + node, "State=RESUME"});
    if (!r.ok()) {
      out.error = failed(r, "scontrol update NodeName=" + node + " State=RESUME");
    } else {
      out.action = "resumed (was drained: " + reason + ")";
    }
  } catch (const Error& e) {
    out.error = e.what();
  }
  return out;
}

}  // namespace ibsetup::check
