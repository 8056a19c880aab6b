// Checks a profile's raw text before yaml-cpp parses it. yaml-cpp 0.6.2 (Rocky 8) has no
// recursion limit and expands nothing itself, but a deeply nested document overflows its
// recursive parser and a "billion laughs" alias tree explodes any walk over it.
#pragma once

#include <ibsetup/diagnostics.hpp>
#include <ibsetup/profile.hpp>

#include <string>

namespace ibsetup::profile::detail {

// Reports invalid UTF-8, control characters, nesting deeper than limits.max_depth (an upper
// bound estimated from indentation, compact "- " entries and flow brackets) and alias use
// that would expand to more than limits.max_alias_expansion nodes. Returns false when the
// text must not be handed to yaml-cpp.
bool guard_text(const std::string& text, const Limits& limits, Diagnostics& diags);

}  // namespace ibsetup::profile::detail
