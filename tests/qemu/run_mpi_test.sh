#!/usr/bin/env bash
# End-to-end test of the mpi check group on a real kernel RDMA stack (Soft-RoCE in a QEMU
# guest): memlock limit, device files, kernel modules and memory registration, as root and as
# an unprivileged user.
#
#   run_mpi_test.sh IBSETUP_BINARY [WORKDIR]
#
# See run_guest.sh for WORKDIR, caching and exit codes.
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec "$script_dir/run_guest.sh" "$script_dir/guest_mpi.sh" "$script_dir/check_mpi_console.py" "$@"
