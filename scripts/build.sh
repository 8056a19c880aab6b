#!/bin/bash
# Configures and builds ibsetup into build/ (developer mode: warnings are errors).
set -euo pipefail
cd "$(dirname "$0")/.."
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIBSETUP_WERROR=ON >/dev/null
cmake --build build -j "$(nproc)"
