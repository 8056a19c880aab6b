// libibsetup's side of ibsetup-yaml.so (yaml_cpp.hpp): found next to the library, loaded on
// the first profile the fast path leaves to yaml-cpp, and kept for the life of the process.
#include "profile/yaml_cpp.hpp"

#include <ibsetup/error.hpp>

#include <dlfcn.h>

#include <cstring>
#include <mutex>
#include <vector>

namespace ibsetup::profile::detail {

namespace {

// Where the library itself was loaded from: its plugin directory (<libdir>/ibsetup/, also
// under a DESTDIR or a relocated prefix), then its own directory (a build tree), then the
// configured plugin directory. Each is as trusted as the library: root-owned when installed.
std::vector<std::string> candidates()
{
  std::vector<std::string> out;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&yaml_cpp_events), &info) != 0 && info.dli_fname != nullptr &&
      std::strchr(info.dli_fname, '/') != nullptr) {
    std::string dir = info.dli_fname;
    dir.erase(dir.rfind('/'));
    out.push_back(dir + "/ibsetup/" + yaml_cpp::k_file);
    out.push_back(dir + "/" + yaml_cpp::k_file);
  }
  const std::string configured = std::string(IBSETUP_PLUGINDIR) + "/" + yaml_cpp::k_file;
  if (out.empty() || out.front() != configured) {
    out.push_back(configured);
  }
  return out;
}

struct Loaded {
  const yaml_cpp::Api* api = nullptr;
  std::string error;
};

const Loaded& load()
{
  static Loaded loaded;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string tried;
    for (const auto& path : candidates()) {
      void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle == nullptr) {
        const char* why = dlerror();
        tried += (tried.empty() ? "" : "; ") + std::string(why != nullptr ? why : path);
        continue;
      }
      using Entry = const yaml_cpp::Api* (*)();
      auto entry = reinterpret_cast<Entry>(dlsym(handle, yaml_cpp::k_entry));
      const yaml_cpp::Api* api = entry != nullptr ? entry() : nullptr;
      if (api == nullptr || std::strcmp(api->version, IBSETUP_VERSION) != 0) {
        tried += (tried.empty() ? "" : "; ") + path + ": not the yaml-cpp module of ibsetup " +
                 IBSETUP_VERSION;
        dlclose(handle);
        continue;
      }
      loaded.api = api;
      return;
    }
    loaded.error = std::string(
                       "reading this profile needs yaml-cpp's parser (the built-in one "
                       "reads plain ASCII YAML without anchors, tags or block "
                       "scalars), and ") +
                   yaml_cpp::k_file + " cannot be loaded: " + tried;
  });
  return loaded;
}

}  // namespace

bool yaml_cpp_events(const std::string& text, YAML::EventHandler& handler, YamlSyntaxError& error)
{
  const Loaded& l = load();
  if (l.api == nullptr) {
    throw EnvironmentError(l.error);
  }
  return l.api->parse_events_fn(text, handler, error);
}

}  // namespace ibsetup::profile::detail
