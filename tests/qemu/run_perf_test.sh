#!/usr/bin/env bash
# End-to-end test of rdma.bandwidth and rdma.latency and the responder's perf sessions on a
# real kernel RDMA stack (Soft-RoCE in a QEMU guest): loopback and to a responder, thresholds
# under and over what the link does, dead peers within their deadline, the session limit.
# The same boot runs bench/rdma.sh's perftest comparison (its sections are not judged here).
#
#   run_perf_test.sh IBSETUP_BINARY [WORKDIR]
#
# See run_guest.sh for WORKDIR, caching and exit codes.
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec "$script_dir/run_guest.sh" "$script_dir/guest_perf.sh" "$script_dir/check_perf_console.py" "$@"
