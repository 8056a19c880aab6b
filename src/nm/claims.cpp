#include "nm/claims.hpp"

#include <fnmatch.h>

namespace ibsetup::nm {

namespace {

std::string value(const char* s)
{
  return s != nullptr ? s : "";
}

bool hw_matches(const char* mac, const std::string& device)
{
  // InfiniBand addresses compare by their last 8 bytes, the port GUID: the rest changes with
  // the queue pair and the subnet prefix.
  return mac != nullptr && !device.empty() &&
         nm_utils_hwaddr_matches(mac, -1, device.c_str(), -1) != FALSE;
}

}  // namespace

bool interface_names_match(const char* const* patterns, const std::string& name)
{
  bool any_optional = false;
  bool optional_matched = false;
  for (; patterns != nullptr && *patterns != nullptr; ++patterns) {
    const char* p = *patterns;
    bool mandatory = false;
    bool inverted = false;
    if (*p == '|') {
      ++p;
    } else if (*p == '&') {
      ++p;
      mandatory = true;
    }
    if (*p == '!') {
      ++p;
      inverted = true;
      mandatory = mandatory || (*patterns)[0] != '|';
    }
    if (*p == '\\') {
      ++p;
    }
    const bool matched = (fnmatch(p, name.c_str(), 0) == 0) != inverted;
    if (mandatory) {
      if (!matched) {
        return false;
      }
    } else {
      any_optional = true;
      optional_matched = optional_matched || matched;
    }
  }
  return !any_optional || optional_matched;
}

Claim claims(NMConnection* c, const ClaimTarget& target)
{
  if (value(nm_connection_get_uuid(c)) == target.uuid ||
      !nm_connection_is_type(c, NM_SETTING_INFINIBAND_SETTING_NAME)) {
    return Claim::none;
  }
  const std::string ifname = value(nm_connection_get_interface_name(c));
  if (ifname == target.name || value(nm_connection_get_id(c)) == target.id) {
    return Claim::own;
  }
  NMSettingInfiniband* ib = nm_connection_get_setting_infiniband(c);
  if (ib == nullptr) {
    return Claim::none;
  }
  const int pkey = nm_setting_infiniband_get_p_key(ib);
  const char* mac = nm_setting_infiniband_get_mac_address(ib);
  const auto own_if = [](bool yes) { return yes ? Claim::own : Claim::none; };
  if (target.pkey) {
    // A child is the parent's p-key, whatever its name: the parent given by name or by the
    // parent's hardware address.
    if (pkey < 0 || (pkey | 0x8000) != (*target.pkey | 0x8000)) {
      return Claim::none;
    }
    const std::string parent = value(nm_setting_infiniband_get_parent(ib));
    return own_if(parent.empty() ? hw_matches(mac, target.hw_address)
                                 : parent == target.parent.value_or(std::string()));
  }
  if (pkey >= 0 || !ifname.empty()) {
    return Claim::none;  // a child, or a base bound to another name
  }
  if (mac != nullptr) {
    return own_if(hw_matches(mac, target.hw_address));
  }
  // Bound by match.interface-name, or by nothing: then it is a candidate for every IPoIB device.
  NMSettingMatch* match = NM_SETTING_MATCH(nm_connection_get_setting(c, NM_TYPE_SETTING_MATCH));
  if (match == nullptr) {
    return Claim::shared;
  }
  guint n = 0;
  if (nm_setting_match_get_paths(match, &n) != nullptr && n > 0) {
    return Claim::none;
  }
  if (nm_setting_match_get_drivers(match, &n) != nullptr && n > 0) {
    return Claim::none;
  }
  if (nm_setting_match_get_kernel_command_lines(match, &n) != nullptr && n > 0) {
    return Claim::none;
  }
  const char* const* names = nm_setting_match_get_interface_names(match, &n);
  return interface_names_match(names, target.name) ? Claim::shared : Claim::none;
}

}  // namespace ibsetup::nm
