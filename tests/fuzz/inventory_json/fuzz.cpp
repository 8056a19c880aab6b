// The inventory JSON reader: inventory::host_from_json (golden tests, fleet reports), and the
// round trip through host_to_json.
#include "fuzz_common.hpp"

#include <ibsetup/inventory.hpp>
#include <ibsetup/error.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  // inspect --json of a large host is tens of KiB.
  if (fuzz::too_large(size, size_t{256} << 10U)) {
    return 0;
  }
  namespace inv = ibsetup::inventory;
  std::string written;
  try {
    written = inv::host_to_json(inv::host_from_json(fuzz::as_string(data, size)));
  } catch (const ibsetup::InputError&) {
    return 0;  // the documented outcome for a document without the documented shape
  }
  // What host_to_json writes, host_from_json reads back, to the same document.
  try {
    const std::string again = inv::host_to_json(inv::host_from_json(written));
    if (again != written) {
      std::fprintf(stderr, "round trip changed the document:\n%s\n---\n%s\n", written.c_str(),
                   again.c_str());
      std::abort();
    }
  } catch (const ibsetup::InputError& error) {
    std::fprintf(stderr, "host_from_json rejects host_to_json's output: %s\n%s\n", error.what(),
                 written.c_str());
    std::abort();
  }
  return 0;
}
