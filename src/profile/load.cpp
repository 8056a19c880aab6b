#include "common/bounded_read.hpp"
#include "common/parse_budget.hpp"
#include "profile/reader.hpp"
#include "profile/validate.hpp"
#include "profile/yaml_guard.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/profile.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

namespace ibsetup::profile {

namespace {

std::string read_file(const std::string& path, const Limits& limits)
{
  // O_NONBLOCK: a FIFO must not wait for a writer; it is refused below like a device.
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    // A profile that is absent or unreadable is this host's problem (exit 4, like any missing
    // file), not a defect of the profile's content (exit 3).
    throw EnvironmentError(path + ": cannot open the profile: " + std::strerror(errno));
  }
  auto r = util::read_bounded(fd, limits.max_bytes);
  close(fd);
  switch (r.status) {
  case util::BoundedRead::Status::ok:
    return std::move(r.text);
  case util::BoundedRead::Status::not_regular:
    if (S_ISDIR(r.mode)) {
      throw InputError(path + ": is a directory, not a profile file");
    }
    throw InputError(path + ": is " + util::file_kind(r.mode) +
                     ", not a regular file; a profile is read from a regular file");
  case util::BoundedRead::Status::too_large:
    throw InputError(path + ": larger than " + std::to_string(limits.max_bytes >> 20U) +
                     " MiB; a cluster profile is far smaller (is this the right file?)");
  case util::BoundedRead::Status::failed:
  default:
    throw EnvironmentError(path + ": cannot read the profile: " + std::strerror(r.error));
  }
}

bool only_comments(const std::string& text)
{
  bool in_comment = false;
  for (char c : text) {
    if (c == '\n') {
      in_comment = false;
    } else if (c == '#') {
      in_comment = true;
    } else if (!in_comment && c != ' ' && c != '\t' && c != '\r') {
      return false;
    }
  }
  return true;
}

// yaml-cpp's one parse of the text, guarded, under the memory budget. The guard's event pass
// builds the tree itself: YAML::Load would parse the text a second time (and LoadAll is
// where yaml-cpp issue 1040 loops).
detail::YamlDocument parse(const std::string& body, const Limits& limits, Diagnostics& diags)
{
  ibsetup::detail::ParseBudgetScope budget(limits.max_parse_memory);
  try {
    detail::YamlDocument tree;
    if (detail::guard_text(body, limits, diags, &tree)) {
      return tree;
    }
  } catch (const EnvironmentError& e) {
    // ibsetup-yaml.so is missing (profile/yaml_cpp_loader.cpp): name the profile that needs it.
    throw EnvironmentError((diags.file().empty() ? std::string() : diags.file() + ": ") + e.what());
  } catch (const std::bad_alloc&) {
    if (!budget.exceeded()) {
      throw;
    }
    diags.error({}, "",
                "yaml-cpp used more than " + std::to_string(limits.max_parse_memory >> 20U) +
                    " MiB parsing the profile; stopped (a profile needs far less: this input "
                    "may hit a yaml-cpp bug)");
  }
  throw DiagnosticError(std::move(diags));
}

}  // namespace

Profile load_profile_text(const std::string& text, const std::string& file_name,
                          const Limits& limits)
{
  Profile profile;
  profile.file = file_name;
  Diagnostics diags(file_name);
  std::string body = text;
  if (body.compare(0, 3, "\xEF\xBB\xBF") == 0) {
    body.erase(0, 3);  // UTF-8 byte order mark
  }
  if (body.size() > limits.max_bytes) {
    diags.error({}, "", "larger than " + std::to_string(limits.max_bytes >> 20U) + " MiB");
    throw DiagnosticError(std::move(diags));
  }
  if (!body.empty() && body.back() != '\n') {
    // yaml-cpp 0.6.2 loops on a ':' that ends the text inside a flow collection ("[:");
    // a final line break changes nothing else.
    body += '\n';
  }
  // YAML allows a carriage return alone as a line break, but neither of ibsetup's readers
  // takes it (yaml-cpp 0.6 neither): such a profile read as one comment line, "empty".
  const auto bare_cr = [&body] {
    for (size_t i = body.find('\r'); i != std::string::npos; i = body.find('\r', i + 1)) {
      if (i + 1 == body.size() || body[i + 1] != '\n') {
        return true;
      }
    }
    return false;
  };
  // Line feeds only at the very end (the one added above, or a single-line file's own), and a
  // carriage return standing alone before it: CRLF files, one-line ones included, read fine.
  if (body.find('\n') == body.size() - 1 && bare_cr()) {
    diags.error({1, 1}, "",
                "the lines end in a carriage return alone (old Mac OS line endings), which "
                "ibsetup does not read as line breaks; convert them: tr '\\r' '\\n'");
    throw DiagnosticError(std::move(diags));
  }
  if (only_comments(body)) {
    diags.error({1, 1}, "", "the profile is empty; it starts with 'version: 1' and 'nodes:'");
    throw DiagnosticError(std::move(diags));
  }
  const detail::YamlDocument tree = parse(body, limits, diags);
  detail::read_profile(tree.root(), profile, diags);
  detail::validate_profile(profile, limits, diags);
  if (diags.has_errors()) {
    throw DiagnosticError(std::move(diags));
  }
  profile.warnings = diags.all();
  return profile;
}

Profile load_profile(const std::string& path, const Limits& limits)
{
  return load_profile_text(read_file(path, limits), path, limits);
}

}  // namespace ibsetup::profile
