// The core library's side of the NetworkManager plugin: finds ibsetup-nm.so, loads it on
// first use and forwards to it. Without the plugin, NetworkManager features say what is
// missing and backend auto falls back to netlink.
#include <ibsetup/error.hpp>
#include <ibsetup/nm.hpp>
#include <ibsetup/render.hpp>

#include "nm/plugin.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <mutex>

namespace ibsetup {

namespace {

const char* const k_file = "ibsetup-nm.so";

// IBSETUP_NM_PLUGIN (a path), then the installed plugin directory, then next to the running
// executable (a build tree).
std::vector<std::string> candidates()
{
  std::vector<std::string> out;
  if (const char* env = std::getenv("IBSETUP_NM_PLUGIN"); env != nullptr && *env != '\0') {
    out.emplace_back(env);
    return out;
  }
  out.push_back(std::string(IBSETUP_PLUGINDIR) + "/" + k_file);
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    std::string dir(exe, static_cast<size_t>(n));
    dir = dir.substr(0, dir.rfind('/'));
    out.push_back(dir + "/" + k_file);
  }
  return out;
}

struct Loaded {
  const nm::plugin::Api* api = nullptr;
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
        tried += (tried.empty() ? "" : "; ") + std::string(dlerror());
        continue;
      }
      using Entry = const nm::plugin::Api* (*)();
      auto entry = reinterpret_cast<Entry>(dlsym(handle, nm::plugin::k_entry));
      const nm::plugin::Api* api = entry != nullptr ? entry() : nullptr;
      if (api == nullptr || api->version != nm::plugin::k_api_version) {
        tried += (tried.empty() ? "" : "; ") + path + ": not an ibsetup " + IBSETUP_VERSION +
                 " NetworkManager plugin";
        dlclose(handle);
        continue;
      }
      loaded.api = api;  // kept loaded for the life of the process
      return;
    }
    loaded.error = std::string("NetworkManager support (") + k_file +
                   ") is not installed or cannot be loaded: " + tried;
  });
  return loaded;
}

const nm::plugin::Api& api()
{
  const Loaded& l = load();
  if (l.api == nullptr) {
    throw EnvironmentError(l.error);
  }
  return *l.api;
}

}  // namespace

std::vector<render::RenderedFile> render::render_keyfiles(const profile::ResolvedNode& node,
                                                          const std::string& cluster)
{
  return api().render_keyfiles_fn(node, cluster);
}

std::string render::connection_uuid(const std::string& cluster, const std::string& host,
                                    const std::string& ifname)
{
  return api().connection_uuid_fn(cluster, host, ifname);
}

nm::BackendChoice nm::choose_backend(const profile::ResolvedNode& node)
{
  const Loaded& l = load();
  if (l.api == nullptr) {
    return {false, "netlink: " + l.error};
  }
  return l.api->choose_backend_fn(node);
}

nm::Report nm::apply_node(const profile::ResolvedNode& node, const std::string& cluster,
                          const Options& options)
{
  return api().apply_node_fn(node, cluster, options);
}

}  // namespace ibsetup
