// The one way ibsetup runs another program (mstconfig): posix_spawn with an argv, never a
// shell, a clean environment, a timeout and captured, size-capped output.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ibsetup {

// The PATH children get and programs are looked up in: the caller's PATH is not trusted.
extern const char* const k_clean_path;

struct ProcessOptions {
  // Zero or less kills the child at once (reported as timed out); any larger value, however
  // large, is waited for.
  std::chrono::milliseconds timeout{60000};
  size_t output_limit = 1U << 20U;  // bytes kept per stream; the rest is read and dropped
  std::vector<std::string> environment{std::string("PATH=") + k_clean_path, "LC_ALL=C"};
  // A SIGINT, SIGTERM or SIGHUP that would end this process waits for the child to exit (or
  // its timeout) instead of killing it at once: for a write that must not be cut short, such
  // as mstconfig's set.
  bool finish_on_signal = false;
};

struct ProcessResult {
  std::string program;     // the path that was executed
  int exit_status = -1;    // when the child exited
  int signal = 0;          // when a signal ended it
  bool timed_out = false;  // it outlived the timeout and was killed
  bool stdout_truncated = false;
  bool stderr_truncated = false;
  std::string out;
  std::string err;

  bool ok() const { return !timed_out && signal == 0 && exit_status == 0; }
  // "exit status 3", "killed by signal 9", "timed out after 2.5 s and was killed".
  std::string describe(std::chrono::milliseconds timeout) const;
};

// The executable path for name: name itself when it contains '/', else the first match in
// k_clean_path. nullopt when there is no such executable file, and then, if why is given, why
// in words that follow the name: "No such file or directory", "is a directory, not a program",
// "is not executable", "not found in /usr/sbin:...".
std::optional<std::string> find_program(const std::string& name, std::string* why = nullptr);

// Runs argv (argv[0] is looked up with find_program) with stdin from /dev/null, in its own
// process group, and returns once the child has exited, not when its pipes close: what the
// child wrote is read (output written after that by what it started, for at most 100 ms),
// then the whole group is killed, so that nothing it started outlives the call. On timeout the
// group is killed too. SIGINT, SIGTERM and SIGHUP with their default action kill the group
// before they end this process (common/termination_guard.hpp). Descriptors of this process without
// close-on-exec are closed in the child (listed from /proc/self/fd; without /proc they are
// inherited). Limits: a descendant that leaves the group (setsid, setpgid) is not killed; a
// descriptor another thread opens without close-on-exec while the child is being started may reach
// it; when the caller ignores SIGCHLD the child is reaped by the kernel and its status is unknown
// (exit_status stays -1). Throws EnvironmentError when the program cannot be found or started
// or its output cannot be read; a program that runs and fails is a ProcessResult.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

}  // namespace ibsetup
