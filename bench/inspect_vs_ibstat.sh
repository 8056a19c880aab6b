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
ibsetup=$(pwd)/build/src/ibsetup

unshare -m bash -s "$out/sys" "$ibsetup" "$runs" <<'INNER'
set -euo pipefail
tree=$1 ibsetup=$2 runs=$3
mount -t tmpfs ibsetup-bench /sys
cp -a "$tree"/. /sys/
# Interleaved runs (A B C A B C ...) so that a noisy neighbour hits every command alike.
now_us() { echo $(($(date +%s%N) / 1000)); }
a=() b=() c=()
for ((i = 0; i < runs; i++)); do
  s=$(now_us); "$ibsetup" inspect --json >/dev/null 2>&1 || true; e=$(now_us); a+=($((e - s)))
  s=$(now_us); ibstat >/dev/null 2>&1 || true; e=$(now_us); b+=($((e - s)))
  if ((i % 5 == 0)); then s=$(now_us); ibstatus >/dev/null 2>&1 || true; e=$(now_us); c+=($((e - s))); fi
done
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {printf "%.2f", v[int((NR+1)/2)]/1000}'; }
ours=$(median "${a[@]}")
ibstat=$(median "${b[@]}")
ibstatus=$(median "${c[@]}")
ports=$("$ibsetup" inspect --json | grep -o "phys_state" | wc -l)
echo "tree: 8 HCAs, $ports ports (128-entry P_Key tables), median of $runs runs"
printf '%-40s %8s\n' "command" "ms"
printf '%-40s %8s\n' "ibsetup inspect --json" "$ours"
printf '%-40s %8s\n' "ibstat" "$ibstat"
printf '%-40s %8s\n' "ibstatus" "$ibstatus"
awk -v a="$ours" -v b="$ibstat" 'BEGIN {printf "ratio ibsetup / ibstat: %.2f\n", a / b}'
INNER
