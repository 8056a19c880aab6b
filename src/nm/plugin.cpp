#include "nm/plugin.hpp"

extern "C" __attribute__((visibility("default"))) const ibsetup::nm::plugin::Api*
ibsetup_nm_plugin_api()
{
  using namespace ibsetup::nm::plugin;
  static const Api api = {k_api_version, &render_keyfiles, &connection_uuid, &choose_backend,
                          &apply_node};
  return &api;
}
