// NetworkManager connection profiles built with libnm and rendered by libnm itself
// (nm_keyfile_write, NM 1.30+): the only code that includes libnm.
#include <ibsetup/error.hpp>
#include <ibsetup/render.hpp>

#include <NetworkManager.h>

#include <memory>

namespace ibsetup::render {

namespace {

template <class T>
struct GDeleter {
  void operator()(T* p) const { g_object_unref(p); }
};

// Fixed namespace for ibsetup's name-based (version 5) connection UUIDs.
const unsigned char k_uuid_namespace[16] = {0x5b, 0x0e, 0x3c, 0x4e, 0x8f, 0x21, 0x4a, 0x57,
                                            0x9d, 0x6c, 0x1e, 0x2b, 0x7a, 0x90, 0x44, 0xd3};

void add_address(NMSettingIPConfig* ip, const IpPrefix& prefix, int family)
{
  GError* error = nullptr;
  NMIPAddress* a = nm_ip_address_new(family, prefix.address.str().c_str(),
                                     static_cast<guint>(prefix.length), &error);
  if (a == nullptr) {
    const std::string message = error->message;
    g_error_free(error);
    throw InputError("address " + prefix.str() + ": " + message);
  }
  nm_setting_ip_config_add_address(ip, a);
  nm_ip_address_unref(a);
}

NMConnection* build_connection(const profile::ResolvedInterface& i, const std::string& uuid)
{
  NMConnection* c = nm_simple_connection_new();
  auto* s_con = NM_SETTING_CONNECTION(nm_setting_connection_new());
  const std::string id = "ibsetup-" + i.name;
  g_object_set(s_con, NM_SETTING_CONNECTION_ID, id.c_str(), NM_SETTING_CONNECTION_UUID,
               uuid.c_str(), NM_SETTING_CONNECTION_TYPE, NM_SETTING_INFINIBAND_SETTING_NAME,
               NM_SETTING_CONNECTION_INTERFACE_NAME, i.name.c_str(),
               NM_SETTING_CONNECTION_AUTOCONNECT, TRUE, nullptr);
  nm_connection_add_setting(c, NM_SETTING(s_con));

  auto* s_ib = NM_SETTING_INFINIBAND(nm_setting_infiniband_new());
  if (i.mode) {
    g_object_set(s_ib, NM_SETTING_INFINIBAND_TRANSPORT_MODE, profile::to_string(*i.mode), nullptr);
  } else {
    // NetworkManager requires a transport mode; datagram is the kernel's default and the
    // only mode of enhanced IPoIB.
    g_object_set(s_ib, NM_SETTING_INFINIBAND_TRANSPORT_MODE, "datagram", nullptr);
  }
  if (i.mtu) {
    g_object_set(s_ib, NM_SETTING_INFINIBAND_MTU, static_cast<guint>(*i.mtu), nullptr);
  }
  if (i.pkey && i.parent) {
    g_object_set(s_ib, NM_SETTING_INFINIBAND_P_KEY, static_cast<gint>(*i.pkey),
                 NM_SETTING_INFINIBAND_PARENT, i.parent->c_str(), nullptr);
  }
  nm_connection_add_setting(c, NM_SETTING(s_ib));

  auto* s_ip4 = NM_SETTING_IP_CONFIG(nm_setting_ip4_config_new());
  if (i.ipv4) {
    g_object_set(s_ip4, NM_SETTING_IP_CONFIG_METHOD, NM_SETTING_IP4_CONFIG_METHOD_MANUAL, nullptr);
    add_address(s_ip4, *i.ipv4, AF_INET);
  } else {
    g_object_set(s_ip4, NM_SETTING_IP_CONFIG_METHOD, NM_SETTING_IP4_CONFIG_METHOD_DISABLED,
                 nullptr);
  }
  nm_connection_add_setting(c, NM_SETTING(s_ip4));

  auto* s_ip6 = NM_SETTING_IP_CONFIG(nm_setting_ip6_config_new());
  if (i.ipv6) {
    g_object_set(s_ip6, NM_SETTING_IP_CONFIG_METHOD, NM_SETTING_IP6_CONFIG_METHOD_MANUAL, nullptr);
    add_address(s_ip6, *i.ipv6, AF_INET6);
  } else {
    g_object_set(s_ip6, NM_SETTING_IP_CONFIG_METHOD, NM_SETTING_IP6_CONFIG_METHOD_DISABLED,
                 nullptr);
  }
  nm_connection_add_setting(c, NM_SETTING(s_ip6));
  return c;
}

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
    std::unique_ptr<NMConnection, GDeleter<NMConnection>> c(
        build_connection(i, connection_uuid(cluster, node.host, i.name)));
    GError* error = nullptr;
    if (!nm_connection_verify(c.get(), &error)) {
      const std::string message = error->message;
      g_error_free(error);
      throw InputError(i.name + ": NetworkManager rejects the connection: " + message);
    }
    GKeyFile* kf =
        nm_keyfile_write(c.get(), NM_KEYFILE_HANDLER_FLAGS_NONE, nullptr, nullptr, &error);
    if (kf == nullptr) {
      const std::string message = error->message;
      g_error_free(error);
      throw InputError(i.name + ": libnm cannot render the keyfile: " + message);
    }
    gsize len = 0;
    gchar* data = g_key_file_to_data(kf, &len, nullptr);
    g_key_file_unref(kf);
    RenderedFile f;
    f.path = "etc/NetworkManager/system-connections/ibsetup-" + i.name + ".nmconnection";
    f.mode = 0600;
    f.content = std::string(k_marker) + "\n" + std::string(data, len);
    g_free(data);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace ibsetup::render
