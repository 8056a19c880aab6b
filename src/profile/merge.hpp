// How defaults, a group's interface and a per-host override combine; shared by validation
// (which checks every host) and resolution (which builds one).
#pragma once

#include <ibsetup/profile.hpp>

namespace ibsetup::profile::detail {

enum class Source { none, host_override, group, defaults };

// The first of override, group, defaults that is set, and which one it was.
template <class T>
struct Chosen {
  const Setting<T>* setting = nullptr;
  Source source = Source::none;
  explicit operator bool() const { return setting != nullptr; }
};

template <class T>
Chosen<T> choose(const Setting<T>* over, const Setting<T>& group, const Setting<T>* defaults)
{
  if (over != nullptr && *over) {
    return {over, Source::host_override};
  }
  if (group) {
    return {&group, Source::group};
  }
  if (defaults != nullptr && *defaults) {
    return {defaults, Source::defaults};
  }
  return {};
}

// The key path of a chosen value, e.g. hosts.cn017.interfaces.ib0.mtu or defaults.mtu.
std::string source_path(Source source, const InterfaceSpec* over, const InterfaceSpec& spec,
                        const char* key);

// The overrides of host, or nullptr.
const HostOverride* find_host_override(const Profile& profile, const std::string& host);

// The override of interface name in a host's overrides (may be nullptr), or nullptr.
const InterfaceSpec* find_override(const HostOverride* host, const std::string& name);

// The address of an interface: the override's, or the pool's at position + offset.
std::optional<IpPrefix> interface_address(const InterfaceSpec& spec, const InterfaceSpec* over,
                                          size_t position, bool v4);

// Merges defaults, the group's interface and the host's override; addresses come from the
// override or from the pool at position (1-based). Unset pool positions give no address.
ResolvedInterface merge_interface(const Profile& profile, const InterfaceSpec& spec,
                                  const InterfaceSpec* over, size_t position);

}  // namespace ibsetup::profile::detail
