#!/bin/bash
# libibsetup and the ibsetup command load libibverbs and librdmacm on first use (src/os/rdma_dl.cpp)
# instead of linking them: no DT_NEEDED entry for either, and no undefined ibv_* or rdma_* symbol
# that a linked copy would have to provide.
# Usage: rdma_not_linked_test.sh LIBIBSETUP IBSETUP
set -euo pipefail
fail=0
for f in "$@"; do
  needed=$(readelf -d "$f" | grep -E 'NEEDED.*(libibverbs|librdmacm)' || true)
  if [ -n "$needed" ]; then
    echo "FAIL: $f links the RDMA libraries: $needed"
    fail=1
  fi
  undefined=$(nm -D --undefined-only "$f" | grep -E ' (ibv|rdma)_' || true)
  if [ -n "$undefined" ]; then
    echo "FAIL: $f leaves RDMA symbols undefined (add them to src/os/rdma_dl.cpp):"
    echo "$undefined"
    fail=1
  fi
done
[ "$fail" = 0 ] && echo "PASS: no RDMA library linked by $*"
exit "$fail"
