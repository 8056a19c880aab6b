#include "nm/sequence.hpp"

#include <ibsetup/apply.hpp>

#include <stdexcept>

namespace ibsetup::nm {

void run_steps(Steps& steps, const Options& options, Report& report)
{
  try {
    steps.create_checkpoint();
    if (options.adopt) {
      steps.adopt();
    }
    steps.store();
    steps.check_stored();
    if (options.activate) {
      steps.activate();
      if (options.replan) {
        // While the checkpoint exists a mismatch can still be undone: what NetworkManager
        // stored and activated may not be what the kernel now has (a driver that refuses a
        // mode, an MTU clamped by the IB link).
        steps.step("verify against the host");
        apply::Options verify;
        verify.verify_tries = options.verify_tries;
        verify.verify_interval_ms = options.verify_interval_ms;
        verify.interrupted = options.interrupted;
        if (!apply::verify_host(options.replan, verify, report)) {
          throw std::runtime_error(report.failure);
        }
        if (options.progress) {
          options.progress("  verify against the host ... ok");
        }
      }
    }
    steps.destroy_checkpoint();
  } catch (const std::exception& e) {
    report.failure = steps.current() + ": " + e.what();
    steps.undo();
    report.changes = 0;
  }
}

}  // namespace ibsetup::nm
