#!/bin/bash
# Profile validation speed: `ibsetup validate` on a generated 10,000-host profile, next to a
# bare yaml-cpp parse of the same file (the floor for any yaml-cpp based tool), interleaved by
# bench_spawn_timer. No target: the ratio is context for the other benches.
# The profile is kept in bench/out/ (ignored by git) for profilers.
# Usage: bench/profile_validate.sh [HOSTS] [RUNS]   (default 10000 and 30; after scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
hosts=${1:-10000}
runs=${2:-$bench_default_runs}
bench_require_built
parser=$(pwd)/build/bench/bench_yaml_parse
out=bench/out
mkdir -p "$out"
file="$out/cluster-$hosts.yaml"
python3 bench/gen_profile.py "$hosts" 5 >"$file"
"$bench_ibsetup" validate -q "$file"
size=$(wc -c <"$file")
"$bench_timer" "$runs" --samples "$out/times.samples" \
  -- --label "ibsetup validate" "$bench_ibsetup" validate -q "$file" \
  -- --label "bare yaml-cpp parse" "$parser" "$file" >"$out/times"

bench_machine_line
echo "profile: $hosts hosts, 5 groups, 4 interfaces per host, $((hosts / 20)) host overrides," \
  "$size bytes; $runs interleaved runs"
bench_table "$out/times"
bench_load_line "$out/times" validate
echo
bench_compare "$out/times" "validate a $hosts-host profile vs a bare yaml-cpp parse (context)" \
  "ibsetup validate" "bare yaml-cpp parse" context
