// The core library's side of the NetworkManager plugin: finds ibsetup-nm.so, loads it on
// first use and forwards to it. Without the plugin, NetworkManager features say what is
// missing and backend auto falls back to netlink.
#include <ibsetup/error.hpp>
#include <ibsetup/nm.hpp>
#include <ibsetup/render.hpp>

#include "apply/callbacks.hpp"
#include "nm/plugin.hpp"
#include "os/dl_module.hpp"

#include <dlfcn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include <cstdlib>

namespace ibsetup {

namespace {

const char* const k_file = "ibsetup-nm.so";
// The installed plugin directory as one string in the library's read-only data, where the
// packaging tests (and a sysadmin's `strings`) find it; inlined into a std::string it can
// become immediate stores.
[[gnu::used]] const char k_plugin_dir[] = IBSETUP_PLUGINDIR;

// IBSETUP_NM_PLUGIN (a path; not in a set-user-ID or file-capability program), else next to
// the library itself, as the YAML module is found: its plugin directory (<libdir>/ibsetup/,
// also under a DESTDIR or a relocated prefix), then its own directory (a build tree). Only when
// the library cannot tell where it was loaded from, the configured plugin directory. Not the
// running program's directory: a site's tool linked with libibsetup would load whatever
// ibsetup-nm.so lies beside it. (Only a program that links the library's objects into itself,
// as the unit tests do, is named by dladdr; they set IBSETUP_NM_PLUGIN.)
std::vector<std::string> candidates()
{
  if (const char* env = secure_getenv("IBSETUP_NM_PLUGIN"); env != nullptr && *env != '\0') {
    return {env};
  }
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&candidates), &info) != 0 && info.dli_fname != nullptr &&
      std::strchr(info.dli_fname, '/') != nullptr) {
    std::string dir = info.dli_fname;
    dir.erase(dir.rfind('/'));
    return {dir + "/ibsetup/" + k_file, dir + "/" + k_file};
  }
  return {std::string(k_plugin_dir) + "/" + k_file};
}

// Loaded once, on first use (a function-local static: thread-safe), and kept for the process.
const os::Module<nm::plugin::Api>& load()
{
  static const auto loaded = os::load_module<nm::plugin::Api>(
      candidates(), nm::plugin::k_entry,
      [](const nm::plugin::Api& a) { return a.version == nm::plugin::k_api_version; },
      std::string("an ibsetup ") + IBSETUP_VERSION + " NetworkManager plugin",
      std::string("NetworkManager support (") + k_file +
          ") is not installed or cannot be loaded: ");
  return loaded;
}

const nm::plugin::Api& api()
{
  const auto& l = load();
  if (l.api == nullptr) {
    throw EnvironmentError(l.error);
  }
  return *l.api;
}

// NetworkManager is only reachable over the D-Bus system bus. When nothing listens where
// D-Bus clients would connect, it cannot be running, and loading libnm, GLib and their
// libraries to learn that costs more than the whole netlink apply (issue 15: 14 ms of a 37 ms
// no-op). Only a plain `unix:path=` address is judged; any other goes to libnm as before.
std::optional<std::string> no_system_bus()
{
  const char* env = std::getenv("DBUS_SYSTEM_BUS_ADDRESS");
  const std::string address =
      env != nullptr && *env != '\0' ? env : nm::plugin::k_default_system_bus;
  const std::string prefix = "unix:path=";
  if (address.compare(0, prefix.size(), prefix) != 0 ||
      address.find_first_of(",;%") != std::string::npos) {
    return std::nullopt;
  }
  const std::string path = address.substr(prefix.size());
  sockaddr_un sa{};
  if (path.empty() || path.size() >= sizeof sa.sun_path) {
    return std::nullopt;
  }
  sa.sun_family = AF_UNIX;
  std::memcpy(sa.sun_path, path.data(), path.size());
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return std::nullopt;
  }
  const int rc = connect(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa);
  const int err = errno;
  close(fd);
  if (rc == 0 || (err != ENOENT && err != ECONNREFUSED && err != ENOTDIR)) {
    return std::nullopt;
  }
  return "netlink: no D-Bus system bus at " + path + " (" + std::strerror(err) +
         "), so NetworkManager is not running";
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
  if (auto why = no_system_bus()) {
    return {false, *why};
  }
  const auto& l = load();
  if (l.api == nullptr) {
    return {false, "netlink: " + l.error};
  }
  return l.api->choose_backend_fn(node);
}

nm::Report nm::apply_node(const profile::ResolvedNode& node, const std::string& cluster,
                          const Options& options)
{
  Options guarded = options;
  guarded.interrupted = apply::detail::guarded_interrupted(options.interrupted);
  guarded.progress = apply::detail::guarded_progress(options.progress);
  return api().apply_node_fn(node, cluster, guarded);
}

}  // namespace ibsetup
