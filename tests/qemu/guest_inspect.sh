#!/bin/sh
# Runs inside the QEMU guest (as /test.sh, under busybox sh) after /init created rxe0.
# Prints each tool's output between ===BEGIN NAME=== and ===END NAME===, then its exit code
# as ===RC NAME=N===. Real tools are called by absolute path: busybox runs its own applets
# before $PATH. stderr goes to a separate section so that it cannot corrupt the JSON.

section() {
  name=$1
  shift
  echo "===BEGIN $name==="
  "$@" 2>/tmp/stderr
  rc=$?
  echo "===END $name==="
  echo "===RC $name=$rc==="
  if [ -s /tmp/stderr ]; then
    echo "===BEGIN $name-stderr==="
    cat /tmp/stderr
    echo "===END $name-stderr==="
  fi
}

section ibsetup /bin/ibsetup inspect --json
section ibv_devinfo /usr/bin/ibv_devinfo -v
section ibstat /usr/sbin/ibstat
section rdma-link /usr/sbin/rdma link show
