// What libibsetup exports. The library is built with -fvisibility=hidden and
// -fvisibility-inlines-hidden, so nothing is visible to other programs unless it says so:
// - every public header (include/ibsetup/) wraps its declarations in
//   `#pragma GCC visibility push(default)` ... `pop`, so its functions, classes, vtables and
//   type_info (which exceptions need across the library boundary) are exported;
// - IBSETUP_EXPORT marks a single declaration outside those headers that another part of the
//   project needs (the CLI and the NetworkManager plugin link the shared library).
// The linker version script (src/libibsetup.map.in) then gives every exported ibsetup:: symbol
// the version node IBSETUP_1.0 and keeps everything else local; scripts/abi compares the
// result with the baseline in abi/ (README, "Library").
#pragma once

#if defined(__GNUC__)
#define IBSETUP_EXPORT __attribute__((visibility("default")))
#else
#define IBSETUP_EXPORT
#endif
