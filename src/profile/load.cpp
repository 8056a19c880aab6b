#include "common/bounded_read.hpp"
#include "profile/reader.hpp"
#include "profile/validate.hpp"
#include "profile/yaml_guard.hpp"

#include <ibsetup/profile.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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
  if (only_comments(body)) {
    diags.error({1, 1}, "", "the profile is empty; it starts with 'version: 1' and 'nodes:'");
    throw DiagnosticError(std::move(diags));
  }
  if (!detail::guard_text(body, limits, diags)) {
    throw DiagnosticError(std::move(diags));
  }
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(body);
  } catch (const YAML::Exception& e) {
    diags.error({e.mark.line + 1, e.mark.column + 1}, "", "YAML syntax error: " + e.msg);
    throw DiagnosticError(std::move(diags));
  }
  if (documents.size() != 1) {
    diags.error({1, 1}, "",
                "the file holds " + std::to_string(documents.size()) +
                    " YAML documents; a profile is exactly one");
    throw DiagnosticError(std::move(diags));
  }
  detail::read_profile(documents.front(), profile, diags);
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
