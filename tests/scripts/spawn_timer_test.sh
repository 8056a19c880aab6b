#!/bin/bash
# bench/spawn_timer.cpp: setups run before every sample of their command, commands interleave,
# failures stop the bench, and the output is one line per timed command plus a load line.
# Usage: spawn_timer_test.sh BENCH_SPAWN_TIMER
set -u
timer=$1
# shellcheck source=tests/scripts/expect.sh
. "$(dirname "$0")/expect.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run() {
  "$timer" "$@" >"$dir/out" 2>"$dir/err"
  echo $?
}

# rmdir fails unless its setup's mkdir ran just before it, every time (the warm-up too).
expect "setup before each sample" "$(run 5 -- --setup mkdir "$dir/x" -- --label rm rmdir "$dir/x" \
  -- /bin/true)" 0
expect "one line per timed command, labelled" "$(awk '{print $4, $5}' "$dir/out" | head -2 | xargs)" \
  "rm /bin/true"
expect "median within p10-p90" "$(awk 'NR <= 2 && ($2 > $1 || $1 > $3) {bad = 1} END {print bad + 0}' \
  "$dir/out")" 0
expect "load line" "$(grep -c '^load: loadavg .* -> .*; cpu busy [0-9]*% of [0-9]* CPUs' "$dir/out")" 1
# mkdir then rmdir of one directory succeed only if the two commands strictly alternate.
expect "interleaved" "$(run 4 -- mkdir "$dir/y" -- rmdir "$dir/y")" 0
expect "no setup, no fresh state" "$(run 2 -- rmdir "$dir/x")" 2
expect "failure named" "$(grep -c 'rmdir .* failed (exit 1)' "$dir/err")" 1
expect "failing setup stops it" "$(run 2 --allow-fail -- --setup false -- true)" 2
expect "failing setup named" "$(grep -c 'setup false failed' "$dir/err")" 1
expect "--allow-fail" "$(run 2 --allow-fail -- false)" 0
expect "trailing setup is a usage error" "$(run 2 -- true -- --setup true)" 2
expect "zero runs is a usage error" "$(run 0 -- true)" 2
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
