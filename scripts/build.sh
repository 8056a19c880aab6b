#!/bin/bash
# Configures and builds ibsetup into build/ (developer mode: warnings are errors).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake_args=()
command -v ninja >/dev/null 2>&1 && cmake_args=(-G Ninja)
# ccache, when installed, makes rebuilds in several work trees cheap; it changes no output.
command -v ccache >/dev/null 2>&1 && cmake_args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build "${cmake_args[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIBSETUP_WERROR=ON >/dev/null
cmake --build build -j "$(nproc)"
