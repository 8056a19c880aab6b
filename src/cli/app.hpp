// The command line: subcommands, options, output formats and the one top-level catch.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace ibsetup {
struct Diagnostic;
class Diagnostics;
}  // namespace ibsetup

namespace ibsetup::profile {
struct Profile;
struct ResolvedNode;
}  // namespace ibsetup::profile

namespace ibsetup::cli {

// Parses argv, runs the subcommand and returns the process exit code (exit_codes.hpp).
int run(int argc, char** argv);

struct GlobalOptions {
  bool quiet = false;
};

// Each subcommand registers itself on the app and returns the function that runs it.
struct Command {
  CLI::App* app = nullptr;
  int (*run)(const void* options) = nullptr;
};

// The one printer of errors and warnings: writes a message to stderr as "ibsetup: error: ..."
// / "ibsetup: warning: ...", escaped.
void print_error(const std::string& message);
void print_warning(const std::string& message);
// Warnings that travel in an outcome: nothing with -q.
void print_warnings(const std::vector<std::string>& warnings, bool quiet);
// A profile's warnings, each as its Diagnostic formats it (file:line:column: ...); nothing
// with -q.
void print_warnings(const std::vector<Diagnostic>& warnings, bool quiet);
// An invalid profile's diagnostics, in the file's order, errors only with -q.
void print_diagnostics(const Diagnostics& diagnostics, bool quiet);

// Ends the process with code at once, after flushing standard output and error. Only for a
// thread that cannot return through run() because the main thread is stuck (check's
// --timeout watchdog); everything else returns its exit code from run().
[[noreturn]] void exit_now(int code);

// The node a command works on: --node NAME when given, else this machine's short host name.
// A name the profile does not have is an input error that says which of the two it was.
profile::ResolvedNode resolve_node_arg(const profile::Profile& profile,
                                       const std::string& node_flag);

}  // namespace ibsetup::cli
