#!/bin/bash
# Runs every bench in one go and ends with one markdown table in the README's format, followed
# by the machine line and each bench's load line. Each bench's own output is shown as it runs;
# the table is built from its `row|` lines (bench/lib.sh). A bench that fails is a row saying
# so, and the others still run. nm_vs_nmcli.sh runs only where its private NetworkManager can
# (NetworkManager, nmcli and dbus-daemon installed); check_vs_nhc.sh finds NHC as it documents
# (NHC_SRC, NHC_MIRROR).
# Needs root. Usage: bench/all.sh [RUNS]   (default 30 per bench; after scripts/build.sh)
# Takes several minutes with the default runs on a 2-core machine.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=bench/lib.sh
. bench/lib.sh
runs=${1:-$bench_default_runs}
bench_require_root all.sh
bench_require_built
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

benches=(apply_vs_ip.sh inspect_vs_ibstat.sh check_vs_nhc.sh profile_validate.sh)
if command -v NetworkManager >/dev/null && command -v nmcli >/dev/null &&
  command -v dbus-daemon >/dev/null; then
  benches+=(nm_vs_nmcli.sh)
else
  skipped="nm_vs_nmcli.sh (needs NetworkManager, nmcli and dbus-daemon)"
fi
# rdma.sh boots the QEMU guest of tests/qemu (a few minutes) and needs perftest.
if command -v qemu-system-x86_64 >/dev/null && command -v ib_write_bw >/dev/null; then
  benches+=(rdma.sh)
else
  skipped="${skipped:+$skipped; }rdma.sh (needs qemu-system-x86_64 and perftest)"
fi

start=$(date -u '+%Y-%m-%d %H:%M UTC')
for b in "${benches[@]}"; do
  echo "=== bench/$b"
  args=("$runs")
  [ "$b" = profile_validate.sh ] && args=(10000 "$runs")
  [ "$b" = rdma.sh ] && args=() # three rounds in one guest boot, not RUNS
  bench/"$b" "${args[@]}" 2>&1 | tee "$work/$b.out"
  rc=${PIPESTATUS[0]}
  if [ "$rc" != 0 ]; then
    echo "row|bench/$b|failed (exit $rc; its output is above)|-|-|-|NOT met" >>"$work/$b.out"
  fi
  echo
done

echo "## Benchmarks ($start, $runs interleaved runs each; git $(git describe --always --dirty 2>/dev/null || echo '?'))"
echo
echo "| benchmark | ibsetup (median, p10-p90) | peer | ratio | target | met |"
echo "|---|---|---|---|---|---|"
for b in "${benches[@]}"; do
  grep '^row|' "$work/$b.out" | sed 's/^row|//; s/|/ | /g; s/^/| /; s/$/ |/'
done
[ -z "${skipped:-}" ] || echo "| ${skipped} | not run | - | - | - | - |"
echo
bench_machine_line
for b in "${benches[@]}"; do
  grep '^load:' "$work/$b.out" || true
done
