// render and apply --offline for one node.
#include <ibsetup/error.hpp>
#include <ibsetup/render.hpp>

#include "render/write_all.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace ibsetup::render {

std::optional<Format> parse_format(const std::string& name)
{
  if (name == "nm-keyfile") {
    return Format::nm_keyfile;
  }
  if (name == "ifcfg") {
    return Format::ifcfg;
  }
  if (name == "hosts") {
    return Format::hosts;
  }
  return std::nullopt;
}

std::vector<FileOutcome> render_node(const profile::Profile& profile,
                                     const profile::ResolvedNode* node, const NodeOptions& options)
{
  if (options.root.empty()) {
    throw Error(ErrorKind::usage, "--root DIR is required to render (use / for this system)");
  }
  std::vector<RenderedFile> files;
  if (options.format == Format::hosts) {
    files.push_back(render_hosts(profile, options.hosts_pattern));
  } else if (node == nullptr) {
    throw Error(ErrorKind::internal, "render_node: no node to render");
  } else if (options.format == Format::nm_keyfile) {
    files = render_keyfiles(*node, profile.cluster);
  } else {
    std::vector<TemplateDir> dirs;
    if (!options.templates.empty()) {
      // Given, it must be there: a mistyped one would quietly render the stock templates.
      struct stat st {};
      if (stat(options.templates.c_str(), &st) != 0) {
        throw EnvironmentError("--templates " + options.templates + ": " + std::strerror(errno));
      }
      if (!S_ISDIR(st.st_mode)) {
        throw EnvironmentError("--templates " + options.templates + ": not a directory");
      }
      dirs.push_back({options.templates, ""});
    }
    dirs.push_back({"etc/ibsetup/templates", options.root});
    if (!options.data_templates.empty()) {
      dirs.push_back({options.data_templates, ""});
    }
    files = render_ifcfg(*node, dirs);
  }
  // A node's files are written all or none: a refused or failed file must not leave the
  // ones before it in place (a half-configured image).
  std::vector<WriteResult> results;
  if (options.dry_run) {
    for (const auto& f : files) {
      results.push_back(check_file(options.root, f));
    }
  } else {
    results = write_all(options.root, files);
  }
  std::vector<FileOutcome> out;
  out.reserve(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    out.push_back({std::move(files[i]), results[i]});
    if (options.on_file) {
      options.on_file(out.back());
    }
  }
  return out;
}

}  // namespace ibsetup::render
