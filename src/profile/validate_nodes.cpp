// The rules about how a node is applied: one backend per node. Known from the profile alone,
// so validate reports what apply would otherwise refuse on the node.
#include "profile/merge.hpp"
#include "profile/validate.hpp"

#include <vector>

namespace ibsetup::profile::detail {

// The once-per-group report keeps a group of 10,000 hosts to one message; a host override
// that brings the clash is reported for its host.
void check_backends(const Profile& profile, Diagnostics& diags)
{
  std::vector<bool> reported(profile.groups.size(), false);
  const auto check = [&](size_t gi, const HostOverride* host, const std::string& who) {
    const Group& g = profile.groups[gi];
    const InterfaceSpec* first_spec = nullptr;
    const InterfaceSpec* first_over = nullptr;
    Chosen<Backend> first;
    for (const auto& spec : g.interfaces) {
      const InterfaceSpec* over = spec.name ? find_override(host, *spec.name) : nullptr;
      const auto c = choose(over != nullptr ? &over->backend : nullptr, spec.backend,
                            &profile.defaults.backend);
      if (!c || **c.setting == Backend::automatic) {
        continue;
      }
      if (!first) {
        first = c;
        first_spec = &spec;
        first_over = over;
        continue;
      }
      if (**c.setting != **first.setting) {
        const auto name = [](const InterfaceSpec& s) { return s.name ? *s.name : s.path; };
        diags.error(c.setting->mark, source_path(c.source, over, spec, "backend"),
                    who + name(spec) + " asks for the " + to_string(**c.setting) + " backend and " +
                        name(*first_spec) + " for " + to_string(**first.setting) + " (" +
                        where(source_path(first.source, first_over, *first_spec, "backend"),
                              first.setting->mark) +
                        "); one node is applied through one backend");
        reported[gi] = true;
        return;
      }
    }
  };
  for (size_t gi = 0; gi < profile.groups.size(); ++gi) {
    check(gi, nullptr, "");
  }
  for (const auto& [host, o] : profile.overrides) {
    const auto g = profile.group_of_host.find(host);
    if (g != profile.group_of_host.end() && !reported[g->second]) {
      check(g->second, &o, host + ": ");
    }
  }
}

}  // namespace ibsetup::profile::detail
