// NetworkManager keyfiles rendered by libnm itself (nm_keyfile_write, NM 1.30+) from the same
// connection objects the live backend sends. Only src/nm/ includes libnm.
#include <ibsetup/error.hpp>
#include <ibsetup/render.hpp>

#include "nm/connection.hpp"
#include "nm/plugin.hpp"

#include <NetworkManager.h>

namespace ibsetup::nm::plugin {

using render::k_marker;
using render::RenderedFile;

namespace {

// Fixed namespace for ibsetup's name-based (version 5) connection UUIDs.
const unsigned char k_uuid_namespace[16] = {0x5b, 0x0e, 0x3c, 0x4e, 0x8f, 0x21, 0x4a, 0x57,
                                            0x9d, 0x6c, 0x1e, 0x2b, 0x7a, 0x90, 0x44, 0xd3};

}  // namespace

std::string connection_uuid(const std::string& cluster, const std::string& host,
                            const std::string& ifname)
{
  const std::string name = cluster + "/" + host + "/" + ifname;
  GChecksum* sum = g_checksum_new(G_CHECKSUM_SHA1);
  g_checksum_update(sum, k_uuid_namespace, sizeof k_uuid_namespace);
  g_checksum_update(sum, reinterpret_cast<const guchar*>(name.data()),
                    static_cast<gssize>(name.size()));
  guint8 digest[20];
  gsize len = sizeof digest;
  g_checksum_get_digest(sum, digest, &len);
  g_checksum_free(sum);
  digest[6] = static_cast<guint8>((digest[6] & 0x0fU) | 0x50U);  // version 5
  digest[8] = static_cast<guint8>((digest[8] & 0x3fU) | 0x80U);  // RFC 4122 variant
  char out[37];
  std::snprintf(
      out, sizeof out, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
      digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7],
      digest[8], digest[9], digest[10], digest[11], digest[12], digest[13], digest[14], digest[15]);
  return out;
}

std::vector<RenderedFile> render_keyfiles(const profile::ResolvedNode& node,
                                          const std::string& cluster)
{
  std::vector<RenderedFile> out;
  for (const auto& i : node.interfaces) {
    const auto c = nm::build_connection(i, connection_uuid(cluster, node.host, i.name));
    GError* error = nullptr;
    GKeyFile* kf =
        nm_keyfile_write(c.get(), NM_KEYFILE_HANDLER_FLAGS_NONE, nullptr, nullptr, &error);
    if (kf == nullptr) {
      throw InputError(i.name + ": libnm cannot render the keyfile: " + nm::take_message(error));
    }
    gsize len = 0;
    gchar* data = g_key_file_to_data(kf, &len, nullptr);
    g_key_file_unref(kf);
    RenderedFile f;
    f.path = "etc/NetworkManager/system-connections/" + nm::connection_id(i.name) + ".nmconnection";
    f.mode = 0600;
    f.content = std::string(k_marker) + "\n" + std::string(data, len);
    g_free(data);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace ibsetup::nm::plugin
