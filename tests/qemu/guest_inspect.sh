#!/bin/sh
# Runs inside the QEMU guest (as /test.sh, under busybox sh) after /init created rxe0.
# Prints each tool's output as a section (guest_lib.sh): between ===BEGIN NAME=== and
# ===END NAME===, then its exit code as ===RC NAME=N===.

. /guest_lib.sh

section ibsetup /bin/ibsetup inspect --json
section ibv_devinfo /usr/bin/ibv_devinfo -v
section ibstat /usr/sbin/ibstat
section rdma-link /usr/sbin/rdma link show
