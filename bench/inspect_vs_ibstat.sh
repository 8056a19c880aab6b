#!/bin/bash
# Inventory speed: `ibsetup inspect --json` next to `ibstat`, both reading the same 8-HCA x 2-port
# sysfs tree (128-entry P_Key tables) mounted over /sys in a private mount namespace, interleaved
# by bench_spawn_timer. Three rounds in one run:
#   idle: the bench starts nothing else (other users of the machine show in the load line);
#   busy: a busy loop of the bench's own (`yes >/dev/null`) takes one core, as on a Slurm node
#         running a job; it is killed by its pid when the round ends or the bench fails;
#   busy, no netdevs (context): the same on a copy of the tree without class/net. The tree's
#         16 IPoIB netdevs are not the kernel's, so inspect reads them from sysfs, 11 files
#         each; on a node they come from one netlink dump, and ibstat reads none.
# Targets (issue 15): inspect / ibstat at most 0.8 idle and at most 1.0 busy. `ibstatus` (a shell
# script over the same files) runs afterwards for scale, with fewer runs.
# Needs root. Usage: bench/inspect_vs_ibstat.sh [RUNS]   (default 30; after scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
runs=${1:-$bench_default_runs}
bench_require_root inspect_vs_ibstat.sh
bench_require_built
bench_installed inspect_vs_ibstat.sh "$@"
work=$(mktemp -d)
spinner=
stop_spinner() {
  if [ -n "$spinner" ]; then
    kill "$spinner" 2>/dev/null || true
    wait "$spinner" 2>/dev/null || true
    spinner=
  fi
}
trap 'stop_spinner; rm -rf "$work"' EXIT
trap 'exit 1' HUP INT PIPE TERM # a fatal signal still runs the EXIT trap
python3 tests/fixtures/sysfs/make_fixtures.py --bench "$work/sys" 8
cp -a "$work/sys" "$work/sys-nonet"
find "$work/sys-nonet/class/net" -mindepth 1 -delete
ports=$(bench_in_tree "$work/sys" "$bench_ibsetup" inspect --json | grep -o '"phys_state"' | wc -l)

round() {
  bench_in_tree "$work/${2:-sys}" "$bench_timer" "$runs" --allow-fail \
    --samples "$work/$1.samples" \
    -- --label "ibsetup inspect --json" "$bench_ibsetup" inspect --json \
    -- --label ibstat ibstat >"$work/$1"
}

bench_machine_line
echo "tree: 8 HCAs, $ports ports (128-entry P_Key tables); $runs interleaved runs per round"
round idle
yes >/dev/null &
spinner=$!
round busy
round busy-nonet sys-nonet
stop_spinner
bench_in_tree "$work/sys" "$bench_timer" $((runs / 5 + 1)) --allow-fail \
  -- --label "ibstatus (shell script)" ibstatus >"$work/ibstatus"

for r in idle busy busy-nonet; do
  echo
  case $r in
  idle) echo "round idle: no load started by the bench" ;;
  busy) echo "round busy: one core spinning (yes >/dev/null, pid of this round only)" ;;
  *) echo "round busy-nonet: the same, on the tree without class/net (context)" ;;
  esac
  bench_table "$work/$r" "ibsetup inspect --json" ibstat
  bench_load_line "$work/$r" "inspect, $r"
done
echo
echo "for scale, $((runs / 5 + 1)) runs after the rounds:"
bench_table "$work/ibstatus"
echo
bench_compare "$work/idle" "inspect --json vs ibstat, 8 HCAs, idle" \
  "ibsetup inspect --json" ibstat at_most 0.8
bench_compare "$work/busy" "inspect --json vs ibstat, 8 HCAs, one core busy" \
  "ibsetup inspect --json" ibstat at_most 1.0
bench_compare "$work/busy-nonet" \
  "same, one core busy, tree without its 16 netdevs (context: what ibstat reads)" \
  "ibsetup inspect --json" ibstat context
bench_row_context "$work/ibstatus" "ibstatus on the same tree (context)" "ibstatus (shell script)" peer
