#include "nm/connection.hpp"

#include <ibsetup/error.hpp>

namespace ibsetup::nm {

namespace {

void add_address(NMSettingIPConfig* ip, const IpPrefix& prefix, int family)
{
  GError* error = nullptr;
  NMIPAddress* a = nm_ip_address_new(family, prefix.address.str().c_str(),
                                     static_cast<guint>(prefix.length), &error);
  if (a == nullptr) {
    throw InputError("address " + prefix.str() + ": " + take_message(error));
  }
  nm_setting_ip_config_add_address(ip, a);
  nm_ip_address_unref(a);
}

}  // namespace

std::string take_message(GError* error)
{
  if (error == nullptr) {
    return "unknown error";
  }
  std::string message = error->message;
  g_error_free(error);
  return message;
}

std::string connection_id(const std::string& ifname)
{
  return "ibsetup-" + ifname;
}

GPtr<NMConnection> build_connection(const profile::ResolvedInterface& i, const std::string& uuid)
{
  GPtr<NMConnection> c(nm_simple_connection_new());
  auto* s_con = NM_SETTING_CONNECTION(nm_setting_connection_new());
  const std::string id = connection_id(i.name);
  g_object_set(s_con, NM_SETTING_CONNECTION_ID, id.c_str(), NM_SETTING_CONNECTION_UUID,
               uuid.c_str(), NM_SETTING_CONNECTION_TYPE, NM_SETTING_INFINIBAND_SETTING_NAME,
               NM_SETTING_CONNECTION_INTERFACE_NAME, i.name.c_str(),
               NM_SETTING_CONNECTION_AUTOCONNECT, TRUE, nullptr);
  nm_connection_add_setting(c.get(), NM_SETTING(s_con));

  auto* s_ib = NM_SETTING_INFINIBAND(nm_setting_infiniband_new());
  // NetworkManager requires a transport mode; datagram is the kernel's default and the only
  // mode of enhanced IPoIB.
  g_object_set(s_ib, NM_SETTING_INFINIBAND_TRANSPORT_MODE,
               i.mode ? profile::to_string(*i.mode) : "datagram", nullptr);
  if (i.mtu) {
    g_object_set(s_ib, NM_SETTING_INFINIBAND_MTU, static_cast<guint>(*i.mtu), nullptr);
  }
  if (i.pkey && i.parent) {
    g_object_set(s_ib, NM_SETTING_INFINIBAND_P_KEY, static_cast<gint>(*i.pkey),
                 NM_SETTING_INFINIBAND_PARENT, i.parent->c_str(), nullptr);
  }
  nm_connection_add_setting(c.get(), NM_SETTING(s_ib));

  auto* s_ip4 = NM_SETTING_IP_CONFIG(nm_setting_ip4_config_new());
  g_object_set(s_ip4, NM_SETTING_IP_CONFIG_METHOD,
               i.ipv4 ? NM_SETTING_IP4_CONFIG_METHOD_MANUAL : NM_SETTING_IP4_CONFIG_METHOD_DISABLED,
               nullptr);
  if (i.ipv4) {
    add_address(s_ip4, *i.ipv4, AF_INET);
  }
  nm_connection_add_setting(c.get(), NM_SETTING(s_ip4));

  auto* s_ip6 = NM_SETTING_IP_CONFIG(nm_setting_ip6_config_new());
  g_object_set(s_ip6, NM_SETTING_IP_CONFIG_METHOD,
               i.ipv6 ? NM_SETTING_IP6_CONFIG_METHOD_MANUAL : NM_SETTING_IP6_CONFIG_METHOD_DISABLED,
               nullptr);
  if (i.ipv6) {
    add_address(s_ip6, *i.ipv6, AF_INET6);
  }
  nm_connection_add_setting(c.get(), NM_SETTING(s_ip6));

  GError* error = nullptr;
  if (!nm_connection_normalize(c.get(), nullptr, nullptr, &error)) {
    throw InputError(i.name + ": NetworkManager rejects the connection: " + take_message(error));
  }
  return c;
}

}  // namespace ibsetup::nm
