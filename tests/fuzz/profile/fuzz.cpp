// The profile loader (YAML guard, reader, validation) and the resolution of the hosts it
// declares: profile::load_profile_text, resolve_node, node_to_json.
#include "fuzz_common.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/profile.hpp>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  // Real profiles are a few KiB (cluster-512.yaml is the largest seed); the loader's own byte
  // limit is tested by the unit tests, not by growing inputs here.
  if (fuzz::too_large(size, size_t{256} << 10U)) {
    return 0;
  }
  namespace profile = ibsetup::profile;
  profile::Limits limits;
  // A range like "cn[0-999999]" is legal, and each of its million names would be resolved
  // below; a smaller cap keeps the fuzzer fast and still reaches the over-the-limit path.
  limits.max_hosts = 4096;
  try {
    const profile::Profile loaded =
        profile::load_profile_text(fuzz::as_string(data, size), "fuzz.yaml", limits);
    // Resolving merges defaults, groups and host overrides and allocates addresses: a few
    // hosts of each group reach all of it.
    for (const auto& group : loaded.groups) {
      for (size_t i = 0; i < group.hosts.size() && i < 3; ++i) {
        try {
          (void)profile::node_to_json(profile::resolve_node(loaded, group.hosts[i]));
        } catch (const ibsetup::Error&) {
          // A valid profile may still fail to resolve a host (e.g. its address pool is full).
        }
      }
    }
  } catch (const ibsetup::Error&) {
    // The documented outcome for an invalid profile (DiagnosticError).
  }
  return 0;
}
