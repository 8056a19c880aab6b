// Slurm hostlists: expand_hostlist, fold_hostlist and the round trip between them.
#include "fuzz_common.hpp"

#include <ibsetup/hostlist.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  // A hostlist is one YAML scalar or one command-line argument.
  if (fuzz::too_large(size, 4096)) {
    return 0;
  }
  const std::string expression = fuzz::as_string(data, size);
  std::vector<std::string> hosts;
  try {
    // The product's default cap is a million names; a smaller one keeps runs fast and still
    // reaches the over-the-cap path.
    hosts = ibsetup::expand_hostlist(expression, 2000);
  } catch (const ibsetup::HostlistError& error) {
    if (error.offset() > expression.size()) {
      std::fprintf(stderr, "offset %zu past the end of a %zu-byte expression\n", error.offset(),
                   expression.size());
      std::abort();
    }
    return 0;
  }
  for (const auto& host : hosts) {
    (void)ibsetup::is_valid_hostname(host);
  }
  // fold_hostlist promises an expression that expands back to the same set of names.
  const std::string folded = ibsetup::fold_hostlist(hosts);
  std::vector<std::string> again;
  try {
    again = folded.empty() ? std::vector<std::string>{} : ibsetup::expand_hostlist(folded, 2000);
  } catch (const ibsetup::HostlistError& error) {
    std::fprintf(stderr, "fold_hostlist gave \"%s\", which does not expand: %s\n", folded.c_str(),
                 error.what());
    std::abort();
  }
  const std::set<std::string> before(hosts.begin(), hosts.end());
  const std::set<std::string> after(again.begin(), again.end());
  if (before != after) {
    std::fprintf(stderr, "\"%s\" folds to \"%s\", which expands to another set of names\n",
                 expression.c_str(), folded.c_str());
    std::abort();
  }
  return 0;
}
