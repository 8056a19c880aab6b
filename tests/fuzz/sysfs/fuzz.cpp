// The sysfs value parsers (inventory/parse.hpp): every attribute file's content goes through one
// of them, so each gets the same bytes.
#include "fuzz_common.hpp"

#include "inventory/parse.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

void require(bool condition, const char* what, const std::string& input)
{
  if (!condition) {
    std::fprintf(stderr, "%s for input of %zu bytes\n", what, input.size());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  // sysfs attributes are at most a page; the reader caps what it reads.
  if (fuzz::too_large(size, 4096)) {
    return 0;
  }
  namespace inv = ibsetup::inventory;
  const std::string text = fuzz::as_string(data, size);
  (void)inv::parse_port_state(text);
  (void)inv::parse_phys_state(text);
  if (const auto rate = inv::parse_rate(text)) {
    // A rate goes into JSON as a number: it has to be a finite one.
    require(std::isfinite(rate->gbps), "parse_rate gave a non-finite rate", text);
  }
  (void)inv::parse_hex_int(text);
  (void)inv::parse_decimal_int(text);
  if (const auto guid = inv::parse_guid(text)) {
    require(guid->size() == 18, "parse_guid gave a GUID that is not 0x + 16 digits", text);
  }
  if (const auto guid = inv::guid_of_gid(text)) {
    require(guid->size() == 18, "guid_of_gid gave a GUID that is not 0x + 16 digits", text);
  }
  if (const auto guid = inv::guid_of_ipoib_address(text)) {
    require(guid->size() == 18, "guid_of_ipoib_address gave a GUID that is not 0x + 16 digits",
            text);
  }
  if (const auto speed = inv::parse_pci_speed(text)) {
    require(std::isfinite(*speed), "parse_pci_speed gave a non-finite speed", text);
  }
  if (const auto mask = inv::parse_cap_mask(text)) {
    require(mask->size() == 10, "parse_cap_mask gave a mask that is not 0x + 8 digits", text);
  }
  (void)inv::parse_pkey(text);
  return 0;
}
