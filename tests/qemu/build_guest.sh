#!/usr/bin/env bash
# Builds a QEMU guest (kernel + initramfs) with a real kernel RDMA stack (Soft-RoCE, rdma_rxe).
#
#   build_guest.sh OUTDIR BINARY...
#
# Writes OUTDIR/vmlinuz and OUTDIR/initrd.gz. Each BINARY is copied to /bin/<basename> in the
# guest together with every library it needs. The guest's /init loads the RDMA modules, creates
# rxe0 on dummy0 (192.168.77.1/24), runs /test.sh (copied from $GUEST_SCRIPT, default
# guest_inspect.sh beside this script; guest_lib.sh goes beside it as /guest_lib.sh), prints
# its output between the markers
#   ===GUEST BEGIN test.sh===   and   ===GUEST END test.sh rc=N===
# on the serial console and powers off.
#
# Caches in OUTDIR, or in $GUEST_CACHE when set (so that several guests share one download):
# the kernel .deb (debs/) and the kernel's needed modules (kernel-KVER/), so a rerun neither
# downloads nor unpacks the kernel again; only the initramfs is rebuilt. The cache is locked
# while the kernel part runs (two tests may build their guests at once).
#
# Environment: GUEST_SCRIPT (see above); GUEST_CACHE (see above); KERNEL_PACKAGE (default: the linux-image-*-amd64 that
# linux-image-amd64 depends on); GUEST_STRIP=0 keeps debug info in the copied binaries.
set -euo pipefail

usage() {
  echo "usage: $0 OUTDIR BINARY..." >&2
  exit 2
}
[[ $# -ge 2 ]] || usage

log() { echo "build_guest: $*" >&2; }
die() {
  echo "build_guest: error: $*" >&2
  exit 1
}

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$1"
outdir=$(cd "$1" && pwd)
shift
mkdir -p "${GUEST_CACHE:-$outdir}"
cache=$(cd "${GUEST_CACHE:-$outdir}" && pwd)
binaries=("$@")
guest_script=${GUEST_SCRIPT:-$script_dir/guest_inspect.sh}
[[ -f $guest_script ]] || die "guest script $guest_script not found"

# Modules the guest loads (with their dependencies from modules.dep, loaded first).
# crc32_generic is no hard dependency but rdma_rxe fails with ENOENT without it.
wanted_modules=(crc32_generic dummy rdma_rxe rdma_ucm ib_umad ib_uverbs ib_ipoib)

# Host tools copied into the guest: "host path|guest path". The host path falls back to a
# $PATH look-up (on Debian 12 rdma is /usr/bin/rdma). The guest merges /bin, /sbin, /lib into /usr.
host_tools=(
  "/usr/sbin/ibstat|/usr/sbin/ibstat"
  "/usr/bin/ibv_devinfo|/usr/bin/ibv_devinfo"
  "/sbin/rdma|/usr/sbin/rdma"
  "/sbin/ip|/usr/sbin/ip"
)

for tool in dpkg dpkg-deb depmod cpio gzip ldd apt-get apt-cache flock; do
  command -v "$tool" >/dev/null || die "$tool not found (see tests/qemu/README.md for packages)"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibsetup-guest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# ---------------------------------------------------------------------------------------------
# Kernel
# ---------------------------------------------------------------------------------------------
kernel_package() {
  if [[ -n ${KERNEL_PACKAGE:-} ]]; then
    echo "$KERNEL_PACKAGE"
    return
  fi
  local pkg
  pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
    sed -n 's/^ *Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -n1)
  if [[ -z $pkg ]]; then
    log "apt-cache knows no linux-image-amd64: running apt-get update"
    apt-get update -qq >&2 || true
    pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
      sed -n 's/^ *Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -n1)
  fi
  if [[ -z $pkg ]]; then
    # Offline with no package lists: fall back to a cached download.
    local cached
    cached=$(ls -1 "$cache"/debs/linux-image-*-amd64_*.deb 2>/dev/null | sort -V | tail -n1 || true)
    [[ -n $cached ]] || die "cannot find the kernel package linux-image-amd64 depends on"
    pkg=$(dpkg-deb -f "$cached" Package)
  fi
  echo "$pkg"
}

exec 8>"$cache/.kernel-lock"
flock 8
pkg=$(kernel_package)
mkdir -p "$cache/debs"
deb=$(ls -1 "$cache/debs/${pkg}"_*_amd64.deb 2>/dev/null | sort -V | tail -n1 || true)
if [[ -n $deb ]] && ! dpkg-deb -I "$deb" >/dev/null 2>&1; then
  log "discarding damaged $deb"
  rm -f "$deb"
  deb=
fi
if [[ -z $deb ]]; then
  log "downloading $pkg"
  mkdir -p "$tmp/dl"
  # apt drops privileges to _apt for downloads; let it write into the download folder.
  chmod 0755 "$tmp"
  chown _apt "$tmp/dl" 2>/dev/null || true
  (cd "$tmp/dl" && apt-get download -q "$pkg" >&2) || die "apt-get download $pkg failed"
  deb=$(ls -1 "$tmp/dl/${pkg}"_*_amd64.deb | head -n1)
  dpkg-deb -I "$deb" >/dev/null || die "downloaded $deb is damaged"
  mv "$deb" "$cache/debs/"
  deb="$cache/debs/$(basename "$deb")"
fi
kver=${pkg#linux-image-}
kdir="$cache/kernel-$kver"
# The cache key is the exact .deb (a security update keeps the package name).
deb_id="$(basename "$deb") $(stat -c %s "$deb")"

if [[ ! -f $kdir/.complete || $(cat "$kdir/.complete") != "$deb_id" ]]; then
  log "unpacking $(basename "$deb")"
  rm -rf "$kdir"
  mkdir -p "$tmp/kernel" "$kdir/modules"
  dpkg -x "$deb" "$tmp/kernel"
  [[ -d $tmp/kernel/lib/modules/$kver ]] || die "$deb has no lib/modules/$kver"
  depmod -b "$tmp/kernel" "$kver"
  cp "$tmp/kernel/boot/vmlinuz-$kver" "$kdir/vmlinuz"

  mdir="$tmp/kernel/lib/modules/$kver"
  declare -A mod_path=() mod_deps=() visited=()
  load_order=()
  while IFS= read -r line; do
    path=${line%%:*}
    file=${path##*/}
    name=${file%%.ko*}
    name=${name//-/_}
    mod_path[$name]=$path
    mod_deps[$name]=${line#*:}
  done <"$mdir/modules.dep"
  declare -A builtin=()
  if [[ -f $mdir/modules.builtin ]]; then
    while IFS= read -r path; do
      file=${path##*/}
      name=${file%%.ko*}
      builtin[${name//-/_}]=1
    done <"$mdir/modules.builtin"
  fi
  visit() {
    local name=$1 dep dep_name
    [[ -z ${visited[$name]:-} ]] || return 0
    visited[$name]=1
    for dep in ${mod_deps[$name]:-}; do
      dep_name=${dep##*/}
      dep_name=${dep_name%%.ko*}
      visit "${dep_name//-/_}"
    done
    load_order+=("$name")
  }
  for m in "${wanted_modules[@]}"; do
    if [[ -n ${mod_path[$m]:-} ]]; then
      visit "$m"
    elif [[ -n ${builtin[$m]:-} ]]; then
      log "module $m is built into $kver"
    else
      die "module $m not found in $kver"
    fi
  done
  for m in "${load_order[@]}"; do
    src="$mdir/${mod_path[$m]}"
    case $src in
      *.ko) cp "$src" "$kdir/modules/$m.ko" ;;
      *.ko.xz) xz -dc "$src" >"$kdir/modules/$m.ko" ;;
      *.ko.zst) zstd -qdc "$src" >"$kdir/modules/$m.ko" ;;
      *.ko.gz) gzip -dc "$src" >"$kdir/modules/$m.ko" ;;
      *) die "unknown module file $src" ;;
    esac
  done
  printf '%s\n' "${load_order[@]}" >"$kdir/load-order"
  rm -rf "$tmp/kernel"
  echo "$deb_id" >"$kdir/.complete"
  log "kernel $kver: modules ${load_order[*]}"
fi
flock -u 8

# ---------------------------------------------------------------------------------------------
# Initramfs
# ---------------------------------------------------------------------------------------------
root="$tmp/root"
mkdir -p "$root"/usr/{bin,sbin,lib,lib64} "$root"/{etc,proc,sys,dev,tmp,run,root,var}
for d in bin sbin lib lib64; do ln -s "usr/$d" "$root/$d"; done
chmod 1777 "$root/tmp"

busybox=
for b in /bin/busybox /usr/bin/busybox; do
  if [[ -x $b ]] && ! ldd "$b" >/dev/null 2>&1; then # static: ldd fails
    busybox=$b
    break
  fi
done
[[ -n $busybox ]] || die "no static busybox (apt-get install busybox-static)"
cp "$busybox" "$root/usr/bin/busybox"

strip_copy() {
  if [[ ${GUEST_STRIP:-1} != 0 ]] && command -v strip >/dev/null; then
    strip --strip-debug "$1" 2>/dev/null || true
  fi
}

declare -A copied_libs=()
copy_libs() { # every library ldd names for ELF file $1
  local out lib
  out=$(ldd "$1" 2>&1) || die "ldd $1 failed: $out"
  if grep -q 'not found' <<<"$out"; then
    die "ldd $1: a library is missing: $(grep 'not found' <<<"$out" | tr -s ' \t' ' ')"
  fi
  while read -r lib; do
    [[ -n $lib && -z ${copied_libs[$lib]:-} ]] || continue
    copied_libs[$lib]=1
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done < <(sed -n -e 's/^.*=> \(\/[^ ]*\) (0x.*$/\1/p' -e 's/^[[:space:]]*\(\/[^ ]*\) (0x.*$/\1/p' <<<"$out")
}

copy_elf() { # host file, guest path
  mkdir -p "$root$(dirname "$2")"
  cp -L "$1" "$root$2"
  chmod 0755 "$root$2"
  strip_copy "$root$2"
  copy_libs "$1"
}

for b in "${binaries[@]}"; do
  [[ -f $b ]] || die "binary $b not found"
  copy_elf "$b" "/usr/bin/$(basename "$b")"
done
for t in "${host_tools[@]}"; do
  host=${t%%|*}
  guest=${t#*|}
  if [[ ! -x $host ]]; then
    host=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH command -v "$(basename "$host")" || true)
  fi
  [[ -n $host && -x $host ]] || die "$(basename "$guest") not found on the host (see README.md)"
  copy_elf "$host" "$guest"
done

# perftest's ib_write_bw and ib_send_lat, the reference bench/rdma.sh compares ibsetup's
# rdma.bandwidth and rdma.latency with (package perftest). Optional: a guest without them skips
# that comparison.
for t in ib_write_bw ib_send_lat; do
  host=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH command -v "$t" || true)
  if [[ -n $host ]]; then
    copy_elf "$host" "/usr/bin/$t"
  else
    log "$t not found on the host (apt-get install perftest): the guest has none"
  fi
done

# libgcc_s is dlopened by pthread_exit/pthread_cancel at run time: ldd does not name it.
libgcc=$(ldconfig -p 2>/dev/null | sed -n 's/^.*libgcc_s\.so\.1 (libc6,x86-64) => //p' | head -n1)
[[ -n $libgcc ]] || libgcc=/lib/x86_64-linux-gnu/libgcc_s.so.1
[[ -f $libgcc ]] || die "libgcc_s.so.1 not found"
mkdir -p "$root$(dirname "$libgcc")"
cp -L "$libgcc" "$root$libgcc"

# libibverbs and librdmacm: ibsetup loads them when a command first uses RDMA
# (src/os/rdma_dl.cpp), so ldd does not name them either.
for soname in libibverbs.so.1 librdmacm.so.1; do
  lib=$(ldconfig -p 2>/dev/null | sed -n "s/^.*$soname (libc6,x86-64) => //p" | head -n1)
  [[ -n $lib ]] || lib=/usr/lib/x86_64-linux-gnu/$soname
  [[ -f $lib ]] || die "$soname not found (apt-get install libibverbs1 librdmacm1)"
  copy_elf "$lib" "$lib"
done

# The Soft-RoCE provider of libibverbs (dlopened, so ldd does not name it either).
[[ -f /etc/libibverbs.d/rxe.driver ]] || die "/etc/libibverbs.d/rxe.driver missing (apt-get install ibverbs-providers)"
mkdir -p "$root/etc/libibverbs.d"
cp /etc/libibverbs.d/rxe.driver "$root/etc/libibverbs.d/"
provider=$(ls -1 /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav*.so 2>/dev/null | sort -V | tail -n1 || true)
[[ -n $provider ]] || die "librxe-rdmav*.so missing (apt-get install ibverbs-providers)"
copy_elf "$provider" "$provider"

# Kernel modules, loaded in this order by /init.
mkdir -p "$root/lib/modules/guest"
cp "$kdir"/modules/*.ko "$root/lib/modules/guest/"
cp "$kdir/load-order" "$root/lib/modules/guest/load-order"

cp "$guest_script" "$root/test.sh"
chmod 0755 "$root/test.sh"
# What the guest scripts share (they source it).
cp "$script_dir/guest_lib.sh" "$root/guest_lib.sh"

cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
EOF
echo guest >"$root/etc/hostname"

cat >"$root/init" <<'EOF'
#!/bin/busybox sh
# Generated by tests/qemu/build_guest.sh. Debian's busybox runs its own applets before $PATH
# (its "ip" is no iproute2): real tools are called by absolute path.
/bin/busybox mkdir -p /proc /sys /dev /tmp /run /bb
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
/bin/busybox --install -s /bb
export PATH=/bb:/usr/sbin:/usr/bin HOME=/root
# Keep kernel messages below warnings off the console: they would interleave with the output.
echo 3 >/proc/sys/kernel/printk
hostname guest
/usr/sbin/ip link set lo up

echo "init: kernel $(uname -r)"
while read -r m; do
  insmod "/lib/modules/guest/$m.ko" || echo "init: insmod $m failed"
done </lib/modules/guest/load-order

[ -d /sys/class/net/dummy0 ] || /usr/sbin/ip link add dummy0 type dummy
/usr/sbin/ip link set dummy0 up
/usr/sbin/ip addr add 192.168.77.1/24 dev dummy0
/usr/sbin/rdma link add rxe0 type rxe netdev dummy0 || echo "init: rdma link add failed"
i=0
while [ $i -lt 100 ]; do
  case "$(cat /sys/class/infiniband/rxe0/ports/1/state 2>/dev/null)" in
    *ACTIVE*) break ;;
  esac
  sleep 0.1
  i=$((i + 1))
done
echo "init: rxe0 port 1 state: $(cat /sys/class/infiniband/rxe0/ports/1/state 2>/dev/null || echo missing)"
if [ ! -d /sys/class/infiniband/rxe0 ]; then
  echo "init: no rxe0; kernel log:"
  dmesg | tail -n 30
fi

echo "===GUEST BEGIN test.sh==="
timeout 240 sh /test.sh 2>&1
rc=$?
echo "===GUEST END test.sh rc=$rc==="
sync
poweroff -f
EOF
chmod 0755 "$root/init"
# The kernel opens /dev/console for /init before anything is mounted.
mknod -m 600 "$root/dev/console" c 5 1 2>/dev/null || true

(cd "$root" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet -R 0:0) |
  gzip -6 >"$tmp/initrd.gz"
mv "$tmp/initrd.gz" "$outdir/initrd.gz"
cp "$kdir/vmlinuz" "$tmp/vmlinuz"
mv "$tmp/vmlinuz" "$outdir/vmlinuz"
log "wrote $outdir/vmlinuz ($kver) and $outdir/initrd.gz ($(du -h "$outdir/initrd.gz" | cut -f1))"
