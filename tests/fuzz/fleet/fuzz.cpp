// The fleet report's input: check::add_fleet_line over every line (clush output), then the
// summary and both renderings; and check::parse_check_json over the whole input.
#include "fuzz_common.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/fleet.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  // A few hosts' worth of lines; one check --json line is a few KiB.
  if (fuzz::too_large(size, size_t{256} << 10U)) {
    return 0;
  }
  namespace check = ibsetup::check;
  const std::string text = fuzz::as_string(data, size);
  try {
    bool reported_ok = false;
    (void)check::parse_check_json(text, &reported_ok);
  } catch (const ibsetup::Error&) {
    // InputError: not a check --json document.
  }
  check::FleetInput input;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      end = text.size();
    }
    check::add_fleet_line(input, text.substr(start, end - start));
    start = end + 1;
  }
  // One expected host from the input, one that is missing: both paths of the summary.
  std::vector<std::string> expected;
  if (!input.hosts.empty()) {
    expected = {input.hosts.begin()->first, "fuzz-absent-host"};
  }
  for (const auto& hosts : {std::vector<std::string>{}, expected}) {
    const check::FleetSummary summary = check::summarize_fleet(input, hosts);
    (void)check::fleet_to_text(summary);
    (void)check::fleet_to_json(summary);
  }
  return 0;
}
