#!/bin/sh
# Runs inside the QEMU guest (as /test.sh, under busybox sh) after /init loaded the RDMA modules
# and created rxe0 on dummy0. Exercises the mpi check group on the real kernel stack, as root
# and as an unprivileged user (busybox su: root is exempt from RLIMIT_MEMLOCK when registering
# memory, through CAP_IPC_LOCK, and may open any device file); check_mpi_console.py on the host
# judges the output. Sections from guest_lib.sh (===BEGIN NAME===, ===END NAME===,
# ===RC NAME=N===).

. /guest_lib.sh

# The unprivileged user the job would run as.
echo "mpiuser:x:1000:1000:mpi job:/tmp:/bb/sh" >>/etc/passwd
echo "mpiuser:x:1000:" >>/etc/group

cat >/tmp/mpi.yaml <<'YAML'
version: 1
nodes:
  - hosts: guest
    hcas:
      - device: rxe0
        ports: [{port: 1}]
YAML
# The same node with an IPoIB interface declared: ib_ipoib is then needed too.
{
  cat /tmp/mpi.yaml
  echo "    interfaces:"
  echo "      - {name: ib0, device: rxe0, port: 1, ipv4: 10.77.0.0/24}"
} >/tmp/mpi-ipoib.yaml
chmod 0644 /tmp/mpi.yaml /tmp/mpi-ipoib.yaml

# Only the mpi group: the others are covered by the inspect and rdma guests.
only_mpi="--disable hca --disable pcie --disable port --disable ipoib --disable ip --disable rdma"

# A check of node guest in profile $2 as root with the memlock limit $1, and more options.
as_root() {
  (
    ulimit -l "$1" || exit 99
    profile=$2
    shift 2
    exec /bin/ibsetup check "$profile" --node guest $only_mpi "$@"
  )
}

# The same as mpiuser (the limit is set by root and inherited through su), in JSON.
as_user() {
  (
    ulimit -l "$1" || exit 99
    exec su -s /bb/sh mpiuser -c "echo memlock \$(ulimit -l) >&2; exec /bin/ibsetup check $2 --node guest --json $only_mpi"
  )
}

echo "guest: /dev/infiniband: $(ls -l /dev/infiniband | tr '\n' ';')"

# 1. Root, memlock unlimited: every mpi check passes (ib_ipoib included, /init loaded it).
section root as_root unlimited /tmp/mpi-ipoib.yaml --json

# 2. The job's user, memlock unlimited: passes as well (devtmpfs makes uverbs and rdma_cm 0666).
section user as_user unlimited /tmp/mpi.yaml

# 3. The job's user under a 64 KiB limit: mpi.memlock fails with its hint, and registering
# 64 MiB fails with a message, not a crash.
section user_memlock64 as_user 64 /tmp/mpi.yaml

# 4. uverbs0 readable by root only: mpi.devices fails for the user.
chmod 0600 /dev/infiniband/uverbs0
section user_uverbs0600 as_user unlimited /tmp/mpi.yaml
chmod 0666 /dev/infiniband/uverbs0

# 5. Missing modules: ib_umad unloaded, and ib_ipoib for the profile declaring IPoIB.
rmmod ib_umad || echo "guest: rmmod ib_umad failed"
rmmod ib_ipoib || echo "guest: rmmod ib_ipoib failed"
section nomodules as_root unlimited /tmp/mpi-ipoib.yaml --json

# 6. In NHC's format with registration disabled and the modules only warned, as a profile's
# checks.disable / checks.warn would; then the same as text.
section nhc as_root 64 /tmp/mpi.yaml --format nhc --disable mpi.reg_mr --warn mpi.modules
section text as_root 64 /tmp/mpi.yaml --disable mpi.reg_mr --warn mpi.modules
