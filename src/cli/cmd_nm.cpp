#include "cli/nm_apply.hpp"
#include "common/strings.hpp"

#include "cli/interrupt.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/nm.hpp>

#include <iostream>

namespace ibsetup::cli {

int apply_with_networkmanager(const std::string& cluster, const profile::ResolvedNode& node,
                              const NmApplyFlags& flags, const std::function<bool()>& interrupted)
{
  nm::Options o;
  o.activate = flags.activate;
  o.adopt = flags.adopt;
  o.dry_run = flags.dry_run;
  o.adopt_dir = flags.adopt_dir;
  o.rollback_timeout_s = flags.rollback_timeout_s;
  o.interrupted = interrupted;
  const bool text = !flags.json && !flags.quiet;
  if (text) {
    o.progress = [](const std::string& line) { std::cout << util::escape_text(line) << std::endl; };
    std::cout << (flags.dry_run ? "checking " : "applying ") << node.interfaces.size()
              << " NetworkManager profiles on " << util::escape_text(node.host)
              << (flags.activate ? "" : " (store only, no activation)") << "\n";
  }
  const nm::Report report = nm::apply_node(node, cluster, o);
  if (!flags.quiet) {
    for (const auto& f : report.foreign) {
      std::cerr << (f.saved.empty() ? "warning: " : "") << "profile '" << util::escape_text(f.id)
                << "' (" << util::escape_text(f.uuid) << ") also claims "
                << util::escape_text(f.interface)
                << (f.saved.empty() ? "; left alone (--adopt replaces it)"
                                    : "; adopted, saved to " + f.saved)
                << '\n';
    }
  }
  if (flags.json) {
    emit_report(nm::report_to_json(report));
  } else if (flags.dry_run) {
    for (const auto& line : report.done) {
      std::cout << "  " << util::escape_text(line) << '\n';
    }
    if (!flags.quiet) {
      std::cout << util::escape_text(node.host) << ": " << report.done.size()
                << " profiles to change, " << report.unchanged.size()
                << " unchanged (dry run, nothing sent)\n";
    }
  } else if (report.ok()) {
    if (!flags.quiet) {
      emit_report(util::escape_text(node.host) + ": " + std::to_string(report.changes) +
                  " changes applied and verified (" + std::to_string(report.unchanged.size()) +
                  " profiles unchanged)\n");
    }
  } else {
    std::cerr << "ibsetup: error: " << util::escape_text(report.failure) << "; "
              << (report.checkpoint.empty() ? "nothing was changed"
                                            : "rolled back through checkpoint " + report.checkpoint)
              << "\n";
  }
  return report.ok() ? 0 : static_cast<int>(ExitCode::apply_failed);
}

}  // namespace ibsetup::cli
