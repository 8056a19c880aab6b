#!/usr/bin/env bash
# End-to-end test of the RDMA checks and `ibsetup responder` on a real kernel RDMA stack
# (Soft-RoCE in a QEMU guest): device open and port query, address and route resolution, an
# unreachable peer failing within its deadline, and an RC exchange with the responder.
#
#   run_rdma_test.sh IBSETUP_BINARY [WORKDIR]
#
# See run_guest.sh for WORKDIR, caching and exit codes.
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec "$script_dir/run_guest.sh" "$script_dir/guest_rdma.sh" "$script_dir/check_rdma_console.py" "$@"
