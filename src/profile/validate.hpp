// Rules that relate profile values to each other: host groups, interface names, pkey
// children, MTU against mode, overrides, peers and addresses across the whole cluster.
#pragma once

#include <ibsetup/diagnostics.hpp>
#include <ibsetup/profile.hpp>

namespace ibsetup::profile::detail {

// Expands hostlists, derives child names and checks every cross-field rule. Fills
// profile.group_of_host and the groups' host lists.
void validate_profile(Profile& profile, const Limits& limits, Diagnostics& diags);

}  // namespace ibsetup::profile::detail
