#!/usr/bin/env bash
# Boots a QEMU guest with a real kernel RDMA stack (Soft-RoCE) that runs GUEST_SCRIPT with the
# given ibsetup binary, then hands the console log to CHECKER (a Python script, run as
# `python3 CHECKER CONSOLE_LOG`), whose exit code becomes this script's.
#
#   run_guest.sh GUEST_SCRIPT CHECKER IBSETUP_BINARY [WORKDIR]
#
# WORKDIR (default ${TMPDIR:-/tmp}/ibsetup-qemu) holds the guest kernel and initramfs and keeps
# the last console log (console.log); the kernel package and modules are cached there too, or in
# $GUEST_CACHE when set (shared by several guests). The guest is rebuilt only when an input
# changed (the binary, the guest scripts, the host tools or their libraries, the kernel
# package). Exit codes: 0 the checker passed, 1 it failed or the guest failed, 77 a host tool
# this test needs is missing (skipped), 2 usage.
set -euo pipefail

if [[ $# -lt 3 || $# -gt 4 ]]; then
  echo "usage: $0 GUEST_SCRIPT CHECKER IBSETUP_BINARY [WORKDIR]" >&2
  exit 2
fi
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
guest_script=$(readlink -f "$1")
checker=$(readlink -f "$2")
binary=$(readlink -f "$3")
workdir=${4:-${TMPDIR:-/tmp}/ibsetup-qemu}
[[ -x $binary ]] || {
  echo "qemu: $3 is no executable" >&2
  exit 2
}
[[ -f $guest_script && -f $checker ]] || {
  echo "qemu: $1 or $2 not found" >&2
  exit 2
}

missing=()
for tool in qemu-system-x86_64 python3 cpio depmod dpkg-deb apt-get flock timeout \
  ibstat ibv_devinfo rdma ip; do
  PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH command -v "$tool" >/dev/null || missing+=("$tool")
done
[[ -x /bin/busybox || -x /usr/bin/busybox ]] || missing+=(busybox)
ls /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav*.so >/dev/null 2>&1 || missing+=(librxe)
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "qemu: skipped: missing ${missing[*]} (install the packages in tests/qemu/README.md)"
  exit 77
fi

mkdir -p "$workdir"
workdir=$(cd "$workdir" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibsetup-qemu-run.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# One run at a time per WORKDIR.
exec 9>"$workdir/.lock"
flock 9

export GUEST_SCRIPT=$guest_script

# GUEST_EXTRA_BINARIES: more programs for the guest's /bin (the perf guest's test client).
read -r -a extra <<<"${GUEST_EXTRA_BINARIES:-}"

# The guest runs the binary as /bin/ibsetup.
if [[ $(basename "$binary") != ibsetup ]]; then
  mkdir -p "$tmp/bin"
  ln -s "$binary" "$tmp/bin/ibsetup"
  binary="$tmp/bin/ibsetup"
fi

# Everything that goes into the guest: a change in any of it rebuilds the initramfs.
inputs() {
  local f files=("$binary" "${extra[@]}" "$script_dir/build_guest.sh" "$script_dir/guest_lib.sh"
    "$guest_script" /etc/libibverbs.d/rxe.driver)
  for f in /usr/sbin/ibstat /usr/bin/ibv_devinfo /usr/sbin/rdma /usr/bin/rdma /usr/sbin/ip \
    /usr/bin/busybox /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav*.so \
    /usr/bin/ib_write_bw /usr/bin/ib_send_lat /usr/lib/x86_64-linux-gnu/libibverbs.so.1 \
    /usr/lib/x86_64-linux-gnu/librdmacm.so.1; do
    [[ -e $f ]] && files+=("$f")
  done
  for f in "${files[@]}"; do
    [[ -e $f ]] || continue
    sha256sum "$(readlink -f "$f")"
    # (ldd fails on the static busybox and on rxe.driver: they have no libraries)
    { ldd "$f" 2>/dev/null || true; } | sed -n 's/^.*=> \(\/[^ ]*\) (0x.*$/\1/p' |
      while read -r lib; do sha256sum "$(readlink -f "$lib")"; done
  done | sort -u
  apt-cache depends linux-image-amd64 2>/dev/null | grep -E '^ *Depends: linux-image-[0-9]' || true
  echo "KERNEL_PACKAGE=${KERNEL_PACKAGE:-} GUEST_STRIP=${GUEST_STRIP:-1}"
}
inputs >"$tmp/inputs"

start=$(date +%s)
if [[ -f $workdir/vmlinuz && -f $workdir/initrd.gz && -f $workdir/.inputs ]] &&
  cmp -s "$tmp/inputs" "$workdir/.inputs"; then
  echo "qemu: reusing the guest in $workdir"
else
  rm -f "$workdir/.inputs"
  echo "qemu: building the guest in $workdir"
  "$script_dir/build_guest.sh" "$workdir" "$binary" "${extra[@]}"
  cp "$tmp/inputs" "$workdir/.inputs"
fi
built=$(date +%s)

echo "qemu: booting the guest (software emulation, about 20 s)"
rc=0
timeout 300 qemu-system-x86_64 -accel tcg -cpu max -m 1024 -smp 2 \
  -kernel "$workdir/vmlinuz" -initrd "$workdir/initrd.gz" \
  -append "console=ttyS0 quiet panic=-1" -nographic -no-reboot -nic none \
  </dev/null >"$tmp/console.log" 2>&1 || rc=$?
cp "$tmp/console.log" "$workdir/console.log"
done_at=$(date +%s)
echo "qemu: guest ran $((done_at - built)) s (exit $rc; build $((built - start)) s); console in $workdir/console.log"
if [[ $rc -eq 124 ]]; then
  echo "qemu: the guest did not power off within 300 s"
fi

python3 "$checker" "$tmp/console.log"
