// How defaults, a group's interface and a per-host override combine; shared by validation
// (which checks every host) and resolution (which builds one).
#pragma once

#include <ibsetup/profile.hpp>

namespace ibsetup::profile::detail {

// The first of override, group, defaults that is set, with the key path it came from.
template <class T>
struct Chosen {
  const Setting<T>* setting = nullptr;
  std::string path;
  explicit operator bool() const { return setting != nullptr; }
};

template <class T>
Chosen<T> choose(const Setting<T>* over, const std::string& over_path, const Setting<T>& group,
                 const std::string& group_path, const Setting<T>* defaults, const std::string& key)
{
  if (over != nullptr && *over) {
    return {over, over_path + "." + key};
  }
  if (group) {
    return {&group, group_path + "." + key};
  }
  if (defaults != nullptr && *defaults) {
    return {defaults, "defaults." + key};
  }
  return {};
}

// The override of interface name for host, or nullptr.
const InterfaceSpec* find_override(const Profile& profile, const std::string& host,
                                   const std::string& name);

// Merges defaults, the group's interface and the host's override; addresses come from the
// override or from the pool at position (1-based). Unset pool positions give no address.
ResolvedInterface merge_interface(const Profile& profile, const InterfaceSpec& spec,
                                  const InterfaceSpec* over, size_t position);

}  // namespace ibsetup::profile::detail
