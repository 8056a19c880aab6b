// mstconfig's output (stdout and stderr of one run): firmware::parse_mstconfig and the
// lookups firmware.cpp makes on the result.
#include "fuzz_common.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/firmware.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  // The process runner caps what it captures; real outputs are a few KiB.
  if (fuzz::too_large(size, size_t{64} << 10U)) {
    return 0;
  }
  namespace firmware = ibsetup::firmware;
  try {
    const firmware::MstconfigOutput output = firmware::parse_mstconfig(fuzz::as_string(data, size));
    for (const auto& [name, values] : output.parameters) {
      (void)values;
      for (const std::string& column : output.columns) {
        if (const auto value = output.value(name, column)) {
          (void)firmware::parse_link_type(*value);
        }
      }
      (void)output.value(name);
    }
    // What query() asks for, present or not.
    for (const char* name : {"LINK_TYPE_P1", "LINK_TYPE_P2"}) {
      for (const char* column : {"Default", "Current", "Next Boot", "New", "Nonexistent"}) {
        if (const auto value = output.value(name, column)) {
          (void)firmware::parse_link_type(*value);
        }
      }
    }
  } catch (const ibsetup::Error&) {
    // ParseError: a line mstconfig does not print.
  }
  return 0;
}
