// Error kinds: what went wrong, for the front end to act on. The library never exits; the
// command line maps each kind to its documented exit code (src/cli/exit_codes.cpp).
#pragma once
#pragma GCC visibility push(default)  // the public API: export.hpp says why

#include <stdexcept>
#include <string>

namespace ibsetup {

// What an operation ended with. The ibsetup command maps each to the exit code documented in
// README, --help and ibsetup(8); later features add kinds, never change the existing ones.
enum class ErrorKind : int {
  ok = 0,
  internal = 1,         // a bug in ibsetup
  usage = 2,            // bad command line (or bad options of an operation)
  bad_input = 3,        // the profile (or another input file) is invalid
  environment = 4,      // the host lacks something ibsetup needs (files, permissions, tools)
  check_failed = 5,     // `check` found a failing check
  changes_pending = 6,  // `plan --detailed-exitcode`: the host differs from the profile
  apply_failed = 7,     // apply failed and was rolled back (the report says what and why)
  busy = 8,             // another apply or firmware --apply holds the lock
  reboot_required = 9,  // firmware link types change at the next boot (see the marker file)
};

// Base of every exception the library throws on purpose; carries its kind.
class Error : public std::runtime_error {
public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), m_kind(kind) {}
  ErrorKind kind() const { return m_kind; }

private:
  ErrorKind m_kind;
};

// Invalid user input: a profile, a node name, a file that cannot be read as a profile.
class InputError : public Error {
public:
  explicit InputError(const std::string& message) : Error(ErrorKind::bad_input, message) {}
};

// The host is missing something: a file, a permission, a program.
class EnvironmentError : public Error {
public:
  explicit EnvironmentError(const std::string& message) : Error(ErrorKind::environment, message) {}
};

}  // namespace ibsetup
#pragma GCC visibility pop
