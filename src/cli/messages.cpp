// What the command groups share (declared in cli/app.hpp): the printers of errors, warnings
// and diagnostics, the immediate exit, and the choice of the node a command works on.
#include "cli/app.hpp"

#include "common/strings.hpp"

#include <ibsetup/diagnostics.hpp>
#include <ibsetup/error.hpp>
#include <ibsetup/profile.hpp>

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

namespace ibsetup::cli {

void print_error(const std::string& message)
{
  std::cerr << "ibsetup: error: " << util::escape_text(message) << '\n';
}

void print_warning(const std::string& message)
{
  std::cerr << "ibsetup: warning: " << util::escape_text(message) << '\n';
}

void exit_now(int code)
{
  std::cout.flush();
  std::cerr.flush();
  // Not exit(): static destructors and atexit handlers would run under the feet of the main
  // thread, which is still inside the library.
  _exit(code);
}

void print_warnings(const std::vector<std::string>& warnings, bool quiet)
{
  if (quiet) {
    return;
  }
  for (const auto& w : warnings) {
    print_warning(w);
  }
}

void print_warnings(const std::vector<Diagnostic>& warnings, bool quiet)
{
  if (quiet) {
    return;
  }
  for (const auto& w : warnings) {
    std::cerr << w.format() << '\n';
  }
}

// One diagnostic per line, each escaped on its own (Diagnostic::format), in the file's order
// (as Diagnostics::format sorts them). Each error line says "error:" and each warning line
// "warning:" (as print_warnings prints them), so that `grep error:` finds the errors: one
// "error:" in front of the whole block used to land on a warning when it came first.
void print_diagnostics(const Diagnostics& diagnostics, bool quiet)
{
  std::vector<const Diagnostic*> sorted;
  for (const auto& d : diagnostics.all()) {
    if (!quiet || d.severity == Severity::error) {
      sorted.push_back(&d);
    }
  }
  std::stable_sort(sorted.begin(), sorted.end(), [](const Diagnostic* a, const Diagnostic* b) {
    return a->mark.line != b->mark.line ? a->mark.line < b->mark.line
                                        : a->mark.column < b->mark.column;
  });
  for (const auto* d : sorted) {
    std::cerr << (d->severity == Severity::error ? "ibsetup: error: " : "") << d->format() << '\n';
  }
}

profile::ResolvedNode resolve_node_arg(const profile::Profile& profile,
                                       const std::string& node_flag)
{
  if (node_flag.empty()) {
    // The library's message suggests --node: right when the name came from the host name.
    return profile::resolve_node(profile, profile::default_node_name());
  }
  if (profile.group_of_host.count(node_flag) == 0) {
    std::string groups;
    for (const auto& group : profile.groups) {
      groups += (groups.empty() ? "" : ", ") +
                (group.hosts_expression ? *group.hosts_expression : std::string("?"));
    }
    std::vector<std::string> hosts;
    hosts.reserve(profile.group_of_host.size());
    for (const auto& h : profile.group_of_host) {
      hosts.push_back(h.first);
    }
    std::sort(hosts.begin(), hosts.end());  // the same suggestion on every run
    // A host name has at most 253 characters; a longer argument gets no (costly) suggestion.
    const std::string near =
        node_flag.size() > 253 ? std::string() : util::closest_match(node_flag, hosts);
    throw InputError(profile.file + ": --node " + node_flag + ": host '" + node_flag +
                     "' is not in any node group (" + groups + ")" +
                     (near.empty() ? std::string() : "; did you mean '" + near + "'?"));
  }
  return profile::resolve_node(profile, node_flag);
}

}  // namespace ibsetup::cli
