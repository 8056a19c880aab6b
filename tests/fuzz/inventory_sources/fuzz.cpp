// The inventory sources of `partitions --inventories` and `render --format udev`: the text
// decided by its content (inspect --json lines or an ibnetdiscover topology), and the same
// text read as a topology. Whatever the input, every host kept has a valid name and every
// port GUID the normalised form.
#include "fuzz_common.hpp"

#include "partitions/source_parse.hpp"

#include <ibsetup/hostlist.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

void check(const ibsetup::partitions::Inventories& inv)
{
  for (const auto& [name, host] : inv.hosts) {
    if (name != host.host || !ibsetup::is_valid_hostname(name)) {
      std::fprintf(stderr, "kept a host with a bad name\n");
      std::abort();
    }
    for (const auto& p : host.ports) {
      if (p.guid.size() != 18 || p.guid.compare(0, 2, "0x") != 0 ||
          ibsetup::partitions::normalize_guid(p.guid) != p.guid) {
        std::fprintf(stderr, "kept a GUID that is not normalised: %s\n", p.guid.c_str());
        std::abort();
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  // A few hosts' inspect --json lines, or a topology of a few dozen nodes.
  if (fuzz::too_large(size, size_t{256} << 10U)) {
    return 0;
  }
  namespace partitions = ibsetup::partitions;
  partitions::SourceLimits limits;
  limits.max_line = 64U << 10U;  // smaller than the input cap: the long-line path is reached
  const std::string text = fuzz::as_string(data, size);
  check(partitions::parse_source_text(text, "fuzz", limits));
  check(partitions::parse_source_text("vendid=0x2c9\n" + text, "fuzz", limits));
  return 0;
}
