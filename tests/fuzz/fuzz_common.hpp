// What every harness shares: the libFuzzer entry point's signature and the input as a string.
//
// A harness calls one parser of untrusted input with the bytes it is given. The exceptions the
// parser documents are expected outcomes and are caught; anything else escaping (another
// exception, a crash, a sanitizer report, a hang, unbounded memory) is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fuzz {

// Inputs above cap are skipped: the product caps them before the parser sees them (or they are
// far beyond what the parser is ever given), and time spent there finds nothing new.
inline bool too_large(size_t size, size_t cap)
{
  return size > cap;
}

inline std::string as_string(const uint8_t* data, size_t size)
{
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace fuzz
