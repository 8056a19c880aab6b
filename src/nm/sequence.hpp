// The order of a live NetworkManager apply, apart from libnm: checkpoint, adopt, store, check
// what NetworkManager stored, activate, verify against the host, destroy the checkpoint; on any
// failure roll back. live.cpp carries the steps out over libnm; unit tests fake them.
#pragma once

#include <ibsetup/nm.hpp>

#include <string>

namespace ibsetup::nm {

class Steps {
public:
  virtual ~Steps() = default;
  // Names the step about to run (for the failure message); throws when interrupted.
  virtual void step(const std::string& what) = 0;
  // The step running (or that failed).
  virtual const std::string& current() const = 0;
  virtual void create_checkpoint() = 0;
  virtual void adopt() = 0;
  virtual void store() = 0;
  virtual void check_stored() = 0;
  virtual void activate() = 0;
  virtual void destroy_checkpoint() = 0;
  // Rolls back through the checkpoint and restores every profile touched.
  virtual void undo() = 0;
};

// Runs the steps in order. With activation and options.replan, re-plans against the host
// inside the checkpoint (apply::verify_host); a plan that keeps actions fails like any step.
// A failure sets report.failure to "<step>: <reason>", undoes and zeroes report.changes.
void run_steps(Steps& steps, const Options& options, Report& report);

}  // namespace ibsetup::nm
