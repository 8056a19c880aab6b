// NetworkManager support lives in a plugin (ibsetup-nm.so) that only this folder builds and
// only the commands that need NetworkManager load: linking libnm (glib, gio, gnutls, ...)
// into every ibsetup process cost about 7 ms per start, more than a whole `check`.
#pragma once

#include <ibsetup/nm.hpp>
#include <ibsetup/render.hpp>

namespace ibsetup::nm::plugin {

// The system bus when DBUS_SYSTEM_BUS_ADDRESS is unset or empty, as libnm (GDBus) finds it.
constexpr const char* k_default_system_bus = "unix:path=/var/run/dbus/system_bus_socket";

std::vector<render::RenderedFile> render_keyfiles(const profile::ResolvedNode& node,
                                                  const std::string& cluster);
std::string connection_uuid(const std::string& cluster, const std::string& host,
                            const std::string& ifname);
BackendChoice choose_backend(const profile::ResolvedNode& node);
Report apply_node(const profile::ResolvedNode& node, const std::string& cluster,
                  const Options& options);

// What the plugin hands the core library. Version bumps on any change of these signatures;
// the core refuses a plugin of another version.
struct Api {
  int version;
  decltype(&render_keyfiles) render_keyfiles_fn;
  decltype(&connection_uuid) connection_uuid_fn;
  decltype(&choose_backend) choose_backend_fn;
  decltype(&apply_node) apply_node_fn;
};
constexpr int k_api_version = 2;
constexpr const char* k_entry = "ibsetup_nm_plugin_api";

}  // namespace ibsetup::nm::plugin
