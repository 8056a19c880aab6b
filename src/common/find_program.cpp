// Which program an argv names: looked up in a fixed PATH, never the caller's, and refused
// with a reason a message can quote.
#include "common/bounded_read.hpp"
#include "common/process.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

namespace ibsetup {

const char* const k_clean_path = "/usr/sbin:/usr/bin:/sbin:/bin";

namespace {

// Whether path is a program to run; if not and why is given, why it is not.
bool is_executable_file(const std::string& path, std::string* why = nullptr)
{
  struct stat st {};
  const char* problem = nullptr;
  std::string kind;
  if (stat(path.c_str(), &st) != 0) {
    problem = std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    kind = std::string("is ") + util::file_kind(st.st_mode) + ", not a program";
    problem = kind.c_str();
  } else if (access(path.c_str(), X_OK) != 0) {
    problem = "is not executable";
  }
  if (problem != nullptr && why != nullptr) {
    *why = problem;
  }
  return problem == nullptr;
}

}  // namespace

std::optional<std::string> find_program(const std::string& name, std::string* why)
{
  if (name.empty()) {
    if (why != nullptr) {
      *why = "is an empty program name";
    }
    return std::nullopt;
  }
  if (name.find('/') != std::string::npos) {
    return is_executable_file(name, why) ? std::optional<std::string>(name) : std::nullopt;
  }
  std::istringstream dirs(k_clean_path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = dir + "/" + name;
    if (is_executable_file(candidate)) {
      return candidate;
    }
  }
  if (why != nullptr) {
    *why = std::string("not found in ") + k_clean_path;
  }
  return std::nullopt;
}

}  // namespace ibsetup
