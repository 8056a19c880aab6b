// Slurm integration of `ibsetup check --slurm-drain`: drain a node whose check failed, and
// resume one that passes only when ibsetup drained it (operators' own reasons are kept).
#pragma once

#include <ibsetup/check.hpp>

#include <string>

namespace ibsetup::check {

struct SlurmOutcome {
  std::string action;  // "drained", "resumed", "left alone (...)"
  std::string error;   // scontrol could not be run or failed; empty otherwise
};

// Runs scontrol (a name looked up in the clean PATH, or a path) through the process runner:
// on failure `scontrol update NodeName=<node> State=DRAIN Reason="ibsetup: <first failure>"`;
// on success `scontrol show node <node>` and, when the node is drained with a reason that
// starts with "ibsetup:", `scontrol update NodeName=<node> State=RESUME`.
SlurmOutcome slurm_update(const Report& report, const std::string& node,
                          const std::string& scontrol);

// The drain reason for a failed report: "ibsetup: <message of the first failure>", on one line
// and at most 256 bytes.
std::string drain_reason(const Report& report);

}  // namespace ibsetup::check
