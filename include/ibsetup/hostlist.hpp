// Slurm hostlist expressions: "cn[001-128],gpu[01-08]", "r[1-2]n[01-04]".
#pragma once
#pragma GCC visibility push(default)  // the public API: export.hpp says why

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ibsetup {

// A malformed hostlist; offset() is the 0-based position of the problem in the expression.
class HostlistError : public std::runtime_error {
public:
  HostlistError(size_t offset, const std::string& message)
      : std::runtime_error(message), m_offset(offset)
  {
  }
  size_t offset() const { return m_offset; }

private:
  size_t m_offset;
};

// The longest host name, and the longest part of one between dots (RFC 1035 names).
constexpr size_t k_max_hostname = 253;
constexpr size_t k_max_label = 63;

// What a hostlist expands to: its number of host names and their bytes in total (duplicates
// counted). Both saturate at the largest unsigned long long.
struct HostlistSize {
  unsigned long long hosts = 0;
  unsigned long long bytes = 0;
};

// The size of a hostlist's expansion, computed without expanding it, so a caller can bound
// the expansion first ("x[000000-999999]" costs nothing here). Throws HostlistError when the
// expression is malformed or names a host longer than k_max_hostname characters or with a
// part longer than k_max_label (checked on the pattern, before anything is expanded).
HostlistSize measure_hostlist(std::string_view expression);

// Expands a hostlist into host names, in the order written. Numeric ranges keep the width of
// their lower bound ("[01-10]" gives 01 ... 10). Throws HostlistError when measure_hostlist
// does or the expression expands to more than max_hosts names (then before expanding any).
std::vector<std::string> expand_hostlist(std::string_view expression, size_t max_hosts = 1000000);

// Folds host names into a sorted hostlist expression that expand_hostlist turns back into the
// same set: {"cn003", "cn007", "cn008", "cn009"} gives "cn[003,007-009]". Ranges fold on the
// last number of a name and keep its written width ("cn9" and "cn09" stay distinct);
// duplicates are dropped. Returns "" for no hosts. The round trip holds for names that
// is_valid_hostname accepts, which is what ibsetup passes it; a name with ',', '[' or ']' is
// put in as it is, and the text then no longer expands to the same set.
std::string fold_hostlist(const std::vector<std::string>& hosts);

// True when name is a valid host name as used in hostlists (letters, digits, '-', '_', '.').
bool is_valid_hostname(std::string_view name);

}  // namespace ibsetup
#pragma GCC visibility pop
