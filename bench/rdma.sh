#!/bin/bash
# rdma.bandwidth and rdma.latency against perftest, on the one real RDMA stack there is here:
# Soft-RoCE (rxe0) in the QEMU guest of tests/qemu. In one guest boot, on the same device,
# with the same message size and duration (or iteration count), three rounds in turn:
#   ibsetup check --loopback --bandwidth --bw-size 65536 --bw-duration 2
#     vs ib_write_bw -d rxe0 -R -s 65536 -D 2 (server and client on rxe0, through the RDMA CM)
#   ibsetup check --loopback --latency --lat-size 2 --lat-iters 1000
#     vs ib_send_lat -d rxe0 -R -s 2 -n 1000 (its t_typical, the median, half a round trip)
# The guest script is tests/qemu/guest_perf.sh (which also runs qemu_perf_check's cases);
# bench/rdma_report.py turns its sections into ratios. Targets (issue 17): bandwidth at least
# 0.9 x ib_write_bw's, median latency at most 1.2 x ib_send_lat's. Soft-RoCE under software
# emulation measures the mechanism (the same verbs, the same kernel path), not HDR speed.
# Needs root (as tests/qemu), perftest, and a build. Usage: bench/rdma.sh [WORKDIR]
# (default ${TMPDIR:-/tmp}/ibsetup-bench-rdma; GUEST_CACHE=DIR shares the kernel download).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_require_root rdma.sh
[ -x "$bench_ibsetup" ] || {
  echo "bench: $bench_ibsetup is missing; run scripts/build.sh first" >&2
  exit 1
}
for t in ib_write_bw ib_send_lat; do
  command -v "$t" >/dev/null || {
    echo "bench: $t missing (apt-get install perftest)" >&2
    exit 1
  }
done
bench_machine_line
tests/qemu/run_guest.sh tests/qemu/guest_perf.sh bench/rdma_report.py "$bench_ibsetup" \
  "${1:-${TMPDIR:-/tmp}/ibsetup-bench-rdma}"
