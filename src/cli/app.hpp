// The command line: subcommands, options, output formats and the one top-level catch.
#pragma once

#include <string>

namespace CLI {
class App;
}

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

}  // namespace ibsetup::cli
