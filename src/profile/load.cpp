#include "common/parse_budget.hpp"
#include "profile/reader.hpp"
#include "profile/validate.hpp"
#include "profile/yaml_guard.hpp"

#include <ibsetup/profile.hpp>

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <new>

namespace ibsetup::profile {

namespace {

std::string read_file(const std::string& path, const Limits& limits)
{
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    throw InputError(path + ": cannot open the profile: " + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) {
    throw InputError(path + ": is a directory, not a profile file");
  }
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode)) {
    throw InputError(path + ": is not a regular file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(path + ": cannot read the profile: " + std::strerror(errno));
  }
  std::string text;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > limits.max_bytes) {
      throw InputError(path + ": larger than " + std::to_string(limits.max_bytes >> 20U) +
                       " MiB; a cluster profile is far smaller (is this the right file?)");
    }
  }
  if (in.bad()) {
    throw InputError(path + ": cannot read the profile: " + std::strerror(errno));
  }
  return text;
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

// yaml-cpp's parse of the guarded text, under the memory budget.
YAML::Node parse(const std::string& body, const Limits& limits, Diagnostics& diags)
{
  ibsetup::detail::ParseBudgetScope budget(limits.max_parse_memory);
  try {
    if (detail::guard_text(body, limits, diags)) {
      // Load, not LoadAll: the guard saw exactly one document, and LoadAll is where yaml-cpp
      // issue 1040 loops.
      return YAML::Load(body);
    }
  } catch (const YAML::Exception& e) {
    diags.error({e.mark.line + 1, e.mark.column + 1}, "", "YAML syntax error: " + e.msg);
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
  if (only_comments(body)) {
    diags.error({1, 1}, "", "the profile is empty; it starts with 'version: 1' and 'nodes:'");
    throw DiagnosticError(std::move(diags));
  }
  const YAML::Node root = parse(body, limits, diags);
  detail::read_profile(root, profile, diags);
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
