// Slurm integration of `ibsetup check --slurm-drain`: drain a node whose check failed, and
// resume one that passes only when ibsetup drained it (operators' own reasons are kept).
#pragma once
#pragma GCC visibility push(default)  // for the CLI: src/libibsetup.map.in says why

#include <ibsetup/check.hpp>

#include <chrono>
#include <string>

namespace ibsetup::check {

// Runs scontrol (a name looked up in the clean PATH, or a path) through the process runner,
// each run with what is left until deadline (at least 2 s, at most 10 s). First
// `scontrol show node <node>`; then on failure
// `scontrol update NodeName=<node> State=DRAIN Reason="ibsetup: <first failure>"` unless the
// node is already drained, DOWN or FAIL with a reason that does not start with "ibsetup:"
// (Slurm would replace the operator's reason); on success
// `scontrol update NodeName=<node> State=RESUME` when the node is drained with a reason that
// starts with "ibsetup:" and is neither DOWN nor FAIL.
SlurmOutcome slurm_update(const Report& report, const std::string& node,
                          const std::string& scontrol,
                          std::chrono::steady_clock::time_point deadline);

// The drain reason for a failed report: "ibsetup: <message of the first failure>", on one line,
// printable (other control characters and bytes that are not UTF-8 escaped as util::escape_text
// does, so a NUL cannot cut it short) and at most 256 bytes, never splitting a UTF-8 character.
std::string drain_reason(const Report& report);

}  // namespace ibsetup::check
#pragma GCC visibility pop
