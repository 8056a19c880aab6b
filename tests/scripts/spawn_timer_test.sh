#!/bin/bash
# bench/spawn_timer.cpp: setups run before every sample of their command, commands interleave,
# failures stop the bench, and the output is one line per timed command plus a load line; with
# --samples, every sample too, which bench/lib.sh pairs round by round (checked here as well).
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
# --samples: every sample, one line per timed command (LABEL, a tab, RUNS times), setups none.
# Without --allow-fail the failing command stops the run (not a usage error) and leaves the file
# empty, so that no bench pairs samples of a run that did not finish.
expect "--samples" "$(run 3 --samples "$dir/s" -- --label "a b" true -- --setup true -- false \
  --allow-fail)" 2
expect "--samples parsed: the command ran and failed" "$(grep -c 'false --allow-fail failed' \
  "$dir/err")" 1
expect "--samples: a stopped run leaves the file empty" "$(wc -c <"$dir/s")" 0
expect "--samples, then --allow-fail" "$(run 3 --samples "$dir/s" --allow-fail -- --label "a b" \
  true -- --setup true -- false)" 0
expect "samples: one line per timed command" "$(cut -f1 "$dir/s" | xargs -d '\n' echo)" "a b false"
expect "samples: RUNS each" "$(awk -F '\t' '{print split($2, x, " ")}' "$dir/s" | xargs)" "3 3"
# (within rounding: the file has three decimals, the table two)
median=$(awk 'NR == 1 {print $1}' "$dir/out")
expect "samples: the median is the printed one" \
  "$(awk -F '\t' -v m="$median" 'NR == 1 {split($2, x, " ")
    for (i = 1; i <= 3; i++) for (j = i + 1; j <= 3; j++)
      if (x[j] < x[i]) {t = x[i]; x[i] = x[j]; x[j] = t}
    d = x[2] - m; print (d < 0 ? -d : d) <= 0.006 ? "yes" : x[2] " vs " m}' "$dir/s")" yes
expect "samples file that cannot be written" \
  "$(run 2 --samples "$dir/no/such" -- mkdir "$dir/ran")" 2
expect "its error" "$(grep -c "$dir/no/such" "$dir/err")" 1
expect "... before any run" "$([ -e "$dir/ran" ] && echo ran || echo none)" none
expect "a label with a tab is a usage error" "$(run 2 -- --label "$(printf 'a\tb')" true)" 2
expect "... said so" "$(grep -c 'label may not hold a tab' "$dir/err")" 1

# bench/lib.sh's bench_pairs and bench_compare on samples with known ratios: round i of A takes
# i ms, B always 2 ms, so A/B is 0.5 1 1.5 2 2.5 (median 1.5, p10 0.5, p90 2.5) and B/A
# 2 1 0.67 0.5 0.4 (median 0.67), while the medians' ratio is 3/2.
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/../../bench/lib.sh"
printf '3.00 1.00 5.00 A\n2.00 2.00 2.00 B\n' >"$dir/t"
printf 'A\t1 2 3 4 5\nB\t2 2 2 2 2\n' >"$dir/t.samples"
expect "pairs: A/B" "$(bench_pairs "$dir/t.samples" A B at_most)" "1.500000 0.500000 2.500000"
expect "pairs: B/A when faster" "$(bench_pairs "$dir/t.samples" A B faster | cut -d' ' -f1)" \
  "0.666667"
expect "pairs: nothing for a missing label" "$(bench_pairs "$dir/t.samples" A C at_most)" ""
expect "pairs: nothing without samples" "$(bench_pairs "$dir/none" A B at_most)" ""
printf 'A\t1 2 3\nB\t2 2\nC\t1 0 3\n' >"$dir/u.samples"
expect "pairs: nothing for unequal counts" "$(bench_pairs "$dir/u.samples" A B at_most)" ""
expect "pairs: nothing with a zero sample" "$(bench_pairs "$dir/u.samples" A C at_most)" ""
expect "compare: rounds beside the medians' ratio, verdict on the latter" \
  "$(bench_compare "$dir/t" x A B at_most 1.4 | grep '^row|')" \
  "row|x|3.00 ms (1.00-5.00)|B 2.00 ms (2.00-2.00)|1.50 (rounds 1.50, 0.50-2.50)|<= 1.4|NOT met"
expect "compare: faster" \
  "$(bench_compare "$dir/t" y A B faster 0.5 | grep '^row|' | cut -d'|' -f5,7)" \
  "0.7x faster (rounds 0.7x, 0.4-2.0x)|met"
rm "$dir/t.samples"
expect "compare: no samples, no rounds" "$(bench_compare "$dir/t" x A B at_most 2 | grep '^row|')" \
  "row|x|3.00 ms (1.00-5.00)|B 2.00 ms (2.00-2.00)|1.50|<= 2|met"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
