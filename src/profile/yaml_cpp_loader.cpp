// libibsetup's side of ibsetup-yaml.so (yaml_cpp.hpp): found next to the library, loaded on
// the first profile the fast path leaves to yaml-cpp, and kept for the life of the process.
#include "profile/yaml_cpp.hpp"

#include "os/dl_module.hpp"

#include <ibsetup/error.hpp>

#include <dlfcn.h>

#include <cstring>
#include <vector>

namespace ibsetup::profile::detail {

namespace {

// Next to the library itself: its plugin directory (<libdir>/ibsetup/, also under a DESTDIR or
// a relocated prefix), then its own directory (a build tree). Only when the library cannot
// tell where it was loaded from, the configured plugin directory: a build tree's library must
// not take an installed module of another build. Each is as trusted as the library.
std::vector<std::string> candidates()
{
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&yaml_cpp_events), &info) != 0 && info.dli_fname != nullptr &&
      std::strchr(info.dli_fname, '/') != nullptr) {
    std::string dir = info.dli_fname;
    dir.erase(dir.rfind('/'));
    return {dir + "/ibsetup/" + yaml_cpp::k_file, dir + "/" + yaml_cpp::k_file};
  }
  return {std::string(IBSETUP_PLUGINDIR) + "/" + yaml_cpp::k_file};
}

// Loaded once, on first use (a function-local static: thread-safe), and kept for the process.
const os::Module<yaml_cpp::Api>& load()
{
  static const auto loaded = os::load_module<yaml_cpp::Api>(
      candidates(), yaml_cpp::k_entry,
      [](const yaml_cpp::Api& a) { return std::strcmp(a.tag, IBSETUP_YAML_MODULE_TAG) == 0; },
      std::string("the yaml-cpp module of this build (") + IBSETUP_YAML_MODULE_TAG + ")",
      std::string("reading this profile needs yaml-cpp's parser (the built-in one reads only "
                  "plain profiles: no anchors, tags, block or multi-line scalars, escapes, tabs, "
                  "carriage returns, text that is not ASCII or syntax errors), and ") +
          yaml_cpp::k_file + " cannot be loaded: ");
  return loaded;
}

}  // namespace

bool yaml_cpp_events(const std::string& text, YAML::EventHandler& handler, YamlSyntaxError& error)
{
  const auto& module = load();
  if (module.api == nullptr) {
    throw EnvironmentError(module.error);
  }
  return module.api->parse_events_fn(text, handler, error);
}

}  // namespace ibsetup::profile::detail
