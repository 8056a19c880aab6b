// Which NetworkManager profiles compete with ibsetup's for a declared interface: the foreign
// profiles that apply reports, and that --adopt saves and deletes.
#pragma once

#include <NetworkManager.h>

#include <optional>
#include <string>

namespace ibsetup::nm {

struct ClaimTarget {
  std::string name;                   // the declared interface (ib0, ib0.8001)
  std::string id;                     // ibsetup's profile id for it
  std::string uuid;                   // ibsetup's profile UUID for it
  std::optional<std::string> parent;  // pkey children
  std::optional<int> pkey;
  // The hardware address of the base device (the interface, or a child's parent) as
  // NetworkManager shows it; empty when NetworkManager has no such device.
  std::string hw_address;
};

enum class Claim {
  none,
  // Bound to this interface (by name, port GUID, parent and p-key) or carrying ibsetup's id:
  // --adopt may take it over.
  own,
  // A candidate for other IPoIB devices as well (bound by match.interface-name, or by
  // nothing): reported, but --adopt leaves it, since deleting it would take it from
  // interfaces the profile does not declare.
  shared,
};

// Whether c, a profile other than ibsetup's own, is one NetworkManager could activate on the
// interface, or carries ibsetup's id. Only InfiniBand profiles count: NetworkManager activates
// no other type on an IPoIB device. A profile restricted by match.path, match.driver or
// match.kernel-command-line, which ibsetup does not evaluate, claims nothing.
Claim claims(NMConnection* c, const ClaimTarget& target);

// NetworkManager's match.interface-name semantics: shell patterns, optional ("|p", the default)
// or mandatory ("&p", and "!p" meaning "&!p"), a leading backslash escaping the prefix; an
// empty list matches every name.
bool interface_names_match(const char* const* patterns, const std::string& name);

}  // namespace ibsetup::nm
