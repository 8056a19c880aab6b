// `checks.mpi` of a node group: the thresholds of the MPI readiness checks (check/mpi.cpp).
#include "profile/reader.hpp"

namespace ibsetup::profile::detail {

void read_mpi_checks(const Entry& section, Group& group, Diagnostics& diags)
{
  MapReader m(section.value, section.path, section.value_mark, diags,
              {"memlock_min_mib", "register_mib"});
  // Up to 1 TiB of locked memory, and 1 GiB registered: a check must not exhaust the node
  // (the registration is pinned on each HCA at every run, the metrics timer's too).
  if (const auto* e = m.get("memlock_min_mib")) {
    group.mpi_memlock_min_mib = read_int(*e, 1, 1 << 20, diags);
  }
  if (const auto* e = m.get("register_mib")) {
    group.mpi_register_mib = read_int(*e, 1, 1024, diags);
  }
}

}  // namespace ibsetup::profile::detail
