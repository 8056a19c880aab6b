#!/bin/bash
# The benches still run: each of apply_vs_ip, inspect_vs_ibstat, check_vs_nhc and
# profile_validate with two runs, from the source tree's build (bench/lib.sh; the first three
# install it into a temporary directory and measure that), must exit 0 and
# end with its table rows, each judged or context, none "failed", each judged one with its
# rounds (bench/lib.sh's bench_compare, from the timer's --samples). A bench is not a test of
# speed (nothing here looks at a time); this catches a bench broken by a change elsewhere, as
# when the mpi check group made check_vs_nhc fail on its fixture. NHC is used when its mirror
# is present (bench/check_vs_nhc.sh says where), otherwise its row says "not run".
# Needs root (namespaces, mounts); exits 77 otherwise.
set -uo pipefail
src=${1:?usage: bench_smoke.sh SOURCE_DIR}
[ "$(id -u)" = 0 ] || { echo "bench_smoke: needs root" >&2; exit 77; }
command -v ibstat >/dev/null || { echo "bench_smoke: needs ibstat" >&2; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
run() { # NAME ARGS...: runs bench/NAME, keeps its output
  local name=$1
  shift
  if ! (cd "$src" && "bench/$name" "$@") >"$out/$name.out" 2>&1; then
    echo "FAIL: bench/$name $* exited non-zero:"
    tail -20 "$out/$name.out"
    fail=1
    return
  fi
  local rows
  rows=$(grep -c '^row|' "$out/$name.out")
  if [ "$rows" -lt 1 ]; then
    echo "FAIL: bench/$name printed no row"
    fail=1
  elif grep '^row|' "$out/$name.out" | grep -q '|failed'; then
    echo "FAIL: bench/$name has a failed row:"
    grep '^row|' "$out/$name.out"
    fail=1
  elif grep '^row|' "$out/$name.out" | grep -vqE '\|(met|NOT met|-|not run)$'; then
    echo "FAIL: bench/$name has a row that is neither judged nor context:"
    grep '^row|' "$out/$name.out"
    fail=1
  elif grep '^row|' "$out/$name.out" | grep -E '\|(met|NOT met)$' | grep -vqF '(rounds '; then
    # Every judged ratio comes with its rounds: a bench whose timer lost --samples would not.
    echo "FAIL: bench/$name has a judged row without its rounds:"
    grep '^row|' "$out/$name.out"
    fail=1
  else
    echo "ok: bench/$name ($rows rows)"
  fi
}
run apply_vs_ip.sh 2
run inspect_vs_ibstat.sh 2
run check_vs_nhc.sh 2
run profile_validate.sh 200 2
# The judged rows carry their targets: a bench that stopped comparing would drop them.
for want in "apply_vs_ip.sh:<= 1.3" "apply_vs_ip.sh:<= 1.5" "inspect_vs_ibstat.sh:<= 0.8" \
  "inspect_vs_ibstat.sh:<= 1.0" "check_vs_nhc.sh:20x"; do
  f=${want%%:*}
  grep "^row|" "$out/$f.out" | grep -qF "${want#*:}" || {
    echo "FAIL: bench/$f has no row with target '${want#*:}'"
    fail=1
  }
done
# These three measure ibsetup as a package installs it (bench/lib.sh's bench_installed), not the
# build tree's program with its RUNPATH.
for f in apply_vs_ip.sh inspect_vs_ibstat.sh check_vs_nhc.sh; do
  grep -q '^ibsetup: installed (DESTDIR) as .*/sbin/ibsetup' "$out/$f.out" || {
    echo "FAIL: bench/$f did not measure an installed ibsetup"
    fail=1
  }
done
exit "$fail"
