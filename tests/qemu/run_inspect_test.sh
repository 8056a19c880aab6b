#!/usr/bin/env bash
# End-to-end test of `ibsetup inspect` on a real kernel RDMA stack (Soft-RoCE in a QEMU guest):
# compares its JSON with ibv_devinfo -v and ibstat run in the same guest.
#
#   run_inspect_test.sh IBSETUP_BINARY [WORKDIR]
#
# See run_guest.sh for WORKDIR, caching and exit codes.
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec "$script_dir/run_guest.sh" "$script_dir/guest_inspect.sh" "$script_dir/compare_inspect.py" "$@"
