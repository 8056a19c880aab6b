// The command line: subcommands, options, output formats and the one top-level catch.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace ibsetup::profile {
struct Profile;
struct ResolvedNode;
}  // namespace ibsetup::profile

namespace ibsetup::cli {

// Parses argv, runs the subcommand and returns the process exit code (see ExitCode).
int run(int argc, char** argv);

struct GlobalOptions {
  bool quiet = false;
};

// Each subcommand registers itself on the app and returns the function that runs it.
struct Command {
  CLI::App* app = nullptr;
  int (*run)(const void* options) = nullptr;
};

// Writes a message to stderr as "ibsetup: error: ..." / "ibsetup: warning: ...".
void print_error(const std::string& message);
void print_warning(const std::string& message);

// Ends the process with code at once, after flushing standard output and error. Only for a
// thread that cannot return through run() because the main thread is stuck (check's
// --timeout watchdog); everything else returns its exit code from run().
[[noreturn]] void exit_now(int code);

// The node a command works on: --node NAME when given, else this machine's short host name.
// A name the profile does not have is an input error that says which of the two it was.
profile::ResolvedNode resolve_node_arg(const profile::Profile& profile,
                                       const std::string& node_flag);

}  // namespace ibsetup::cli
