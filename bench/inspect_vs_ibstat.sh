#!/bin/bash
# Inventory speed: `ibsetup inspect --json` next to `ibstat` (and `ibstatus`), all reading the
# same 8-HCA x 2-port sysfs tree mounted over /sys in one private mount namespace.
# Needs root. Usage: bench/inspect_vs_ibstat.sh [RUNS]   (after scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-50}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
python3 tests/fixtures/sysfs/make_fixtures.py --bench "$out/sys" 8
ibsetup=${IBSETUP:-$(pwd)/build/src/ibsetup}  # IBSETUP=PATH: another build (A/B runs)
timer=$(pwd)/build/bench/bench_spawn_timer

unshare -m bash -s "$out/sys" "$ibsetup" "$runs" "$timer" "$out" <<'INNER'
set -euo pipefail
tree=$1 ibsetup=$2 runs=$3 timer=$4 out=$5
mount -t tmpfs ibsetup-bench /sys
cp -a "$tree"/. /sys/
# bench_spawn_timer runs inspect and ibstat interleaved and times each spawn-to-exit; ibstatus
# (a slow script, for scale) runs on its own afterwards.
"$timer" "$runs" --allow-fail -- "$ibsetup" inspect --json -- ibstat >"$out/times"
"$timer" $((runs / 5 + 1)) --allow-fail -- ibstatus >>"$out/times"
ours=$(awk 'NR == 1 {print $1}' "$out/times")
ibstat=$(awk 'NR == 2 {print $1}' "$out/times")
ibstatus=$(awk 'NR == 3 {print $1}' "$out/times")
ports=$("$ibsetup" inspect --json | grep -o "phys_state" | wc -l)
echo "tree: 8 HCAs, $ports ports (128-entry P_Key tables), median of $runs runs (p10-p90)"
printf '%-40s %8s %16s\n' "command" "ms" "p10-p90"
awk '{printf "%-40s %8.2f %7.2f-%-8.2f\n", ($4 ~ /ibsetup$/ ? "ibsetup inspect --json" : $4), $1, $2, $3}' "$out/times"
awk -v a="$ours" -v b="$ibstat" 'BEGIN {printf "ratio ibsetup / ibstat: %.2f\n", a / b}'
INNER
