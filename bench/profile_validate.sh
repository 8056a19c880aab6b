#!/bin/bash
# Profile validation speed: `ibsetup validate` on a generated 10,000-host profile, next to a
# bare yaml-cpp parse of the same file (the floor for any yaml-cpp based tool), in one run.
# Usage: bench/profile_validate.sh [HOSTS] [RUNS]   (after scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
hosts=${1:-10000}
runs=${2:-15}
out=bench/out
mkdir -p "$out"
python3 bench/gen_profile.py "$hosts" 5 >"$out/cluster-$hosts.yaml"
file="$out/cluster-$hosts.yaml"
build/src/ibsetup validate "$file"

# median wall time in milliseconds of RUNS runs of a command
median_ms() {
  local times=() i s e
  for ((i = 0; i < runs; i++)); do
    s=$(date +%s%N)
    "$@" >/dev/null
    e=$(date +%s%N)
    times+=($(((e - s) / 1000)))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}'
}

parse=$(median_ms build/bench/bench_yaml_parse "$file")
validate=$(median_ms build/src/ibsetup validate -q "$file")
size=$(wc -c <"$file")
echo
echo "profile: $hosts hosts, 5 groups, 4 interfaces per host, $((hosts / 20)) host overrides, $size bytes"
printf '%-34s %10s\n' "what (median of $runs runs)" "ms"
printf '%-34s %10s\n' "bare yaml-cpp parse" "$parse"
printf '%-34s %10s\n' "ibsetup validate" "$validate"
awk -v a="$validate" -v b="$parse" 'BEGIN {printf "ratio validate / parse: %.2f\n", a / b}'
