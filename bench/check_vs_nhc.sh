#!/bin/bash
# Pre-flight check speed, side by side on one fixture host (tests/fixtures/sysfs/hdr-2hca:
# 2 HDR HCAs, ib0/ib1) mounted over /sys in a private mount and network namespace:
#   ibsetup check (local checks: ABI, HCAs, firmware, PCIe, ports, IPoIB; no peers, no mpi), against
#   the real LBNL NHC (github.com/mej/nhc: the `nhc` driver with common.nhc and lbnl_hw.nhc)
#   running `check_hw_ib 200 mlx5_N:1` for both ports, as Slurm's HealthCheckProgram would, but
#   with its own config directory, no resource manager, no marking offline, a temporary log and
#   no syslog (logger is masked in the namespace: NHC calls it only when a check fails).
# Context rows: NHC with every upstream script loaded (what a default install sources), NHC
# without its watchdog (-t 0), an NHC-style bash script doing the same sysfs reads and compares
# as ibsetup's checks, ibstat + ip -j addr + a shell compare, and floors (no program started by
# exec, and no bash script, can take less here).
# Before timing, the bench checks that ibsetup and NHC both pass on the tree and both fail once
# mlx5_1 port 1 is no longer ACTIVE, so that NHC really checks what is timed.
# NHC is never part of this repository. It comes from NHC_SRC=DIR (a checkout) or is extracted
# from the git directory NHC_MIRROR (default /work/.mirror/mej+nhc/repo) into a temporary
# directory; with neither, the NHC rows are skipped with a note and the rest still runs.
# Target (issue 15): ibsetup check at least 20 times faster than NHC's check_hw_ib.
# Needs root. Usage: bench/check_vs_nhc.sh [RUNS]   (default 30; after scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
runs=${1:-$bench_default_runs}
bench_require_root check_vs_nhc.sh
bench_require_built
bench_installed check_vs_nhc.sh "$@"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The bench profile leaves addresses out: the namespace has no IPoIB netdevs to hold them.
grep -v 'ipv4:' tests/data/check/cluster.yaml >"$work/cluster.yaml"

nhc_src=
nhc_mirror=${NHC_MIRROR:-/work/.mirror/mej+nhc/repo}
if [ -n "${NHC_SRC:-}" ]; then
  [ -x "$NHC_SRC/nhc" ] || { echo "bench: NHC_SRC=$NHC_SRC has no executable nhc" >&2; exit 1; }
  nhc_src=$NHC_SRC
  nhc_version=$(git -C "$nhc_src" describe --tags --always 2>/dev/null || echo "version unknown")
elif git --git-dir="$nhc_mirror" rev-parse --verify -q HEAD >/dev/null 2>&1; then
  nhc_src=$work/nhc-src
  mkdir "$nhc_src"
  git --git-dir="$nhc_mirror" archive HEAD | tar -x -C "$nhc_src"
  nhc_version="$(git --git-dir="$nhc_mirror" describe --tags --always) from $nhc_mirror"
else
  echo "NHC not found: set NHC_SRC=DIR to a checkout of https://github.com/mej/nhc" \
    "(git clone https://github.com/mej/nhc DIR) or NHC_MIRROR=GITDIR; skipping the NHC rows"
fi
if [ -n "$nhc_src" ]; then
  # Two config directories: the scripts check_hw_ib needs, and every upstream script.
  for d in min all; do
    mkdir -p "$work/nhc-$d/scripts"
    for p in 0 1; do echo "* || check_hw_ib 200 mlx5_$p:1"; done >"$work/nhc-$d/nhc.conf"
  done
  cp "$nhc_src/scripts/common.nhc" "$nhc_src/scripts/lbnl_hw.nhc" "$work/nhc-min/scripts/"
  cp "$nhc_src"/scripts/*.nhc "$work/nhc-all/scripts/"
fi

cat >"$work/nhc_style.sh" <<'NHC'
#!/bin/bash
# What an NHC check_hw_ib / check_hw_eth style script does for this node, in bash.
fail() { echo "ERROR:  nhc:  Health check failed:  $*"; exit 1; }
ver_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -1)" = "$2" ]; }
for hca in mlx5_0 mlx5_1; do
  d=/sys/class/infiniband/$hca
  [ -d "$d" ] || fail "$hca missing"
  read -r fw <"$d/fw_ver"; ver_ge "$fw" 20.31.1014 || fail "$hca firmware $fw"
  read -r w <"$d/device/current_link_width"; read -r mw <"$d/device/max_link_width"
  [ "$w" -ge "$mw" ] || fail "$hca PCIe x$w"
  read -r s _ <"$d/device/current_link_speed"; read -r ms _ <"$d/device/max_link_speed"
  [ "${s%.*}" -ge "${ms%.*}" ] || fail "$hca PCIe $s GT/s"
  p=$d/ports/1
  read -r _ state <"$p/state"; [ "$state" = ACTIVE ] || fail "$hca/1 $state"
  read -r _ phys <"$p/phys_state"; [ "$phys" = LinkUp ] || fail "$hca/1 $phys"
  read -r rate _ <"$p/rate"; [ "$rate" -ge 200 ] || fail "$hca/1 rate $rate"
  read -r layer <"$p/link_layer"; [ "$layer" = InfiniBand ] || fail "$hca/1 $layer"
  read -r sm <"$p/sm_lid"; [ "$((sm))" -ne 0 ] || fail "$hca/1 no SM"
  read -r lid <"$p/lid"; [ "$((lid))" -ne 0 ] || fail "$hca/1 no LID"
done
[ -f /sys/class/infiniband_verbs/abi_version ] || fail "no verbs ABI"
[ -f /sys/class/infiniband_mad/abi_version ] || fail "no MAD ABI"
for ib in ib0 ib1; do
  n=/sys/class/net/$ib
  [ -d "$n" ] || fail "$ib missing"
  read -r c <"$n/carrier"; [ "$c" = 1 ] || fail "$ib no carrier"
  read -r m <"$n/mode"; [ "$m" = datagram ] || fail "$ib mode $m"
  read -r mtu <"$n/mtu"; [ "$ib" != ib0 ] || [ "$mtu" = 4092 ] || fail "$ib mtu $mtu"
done
NHC
cat >"$work/ibstat_style.sh" <<'IBS'
#!/bin/bash
# ibstat + ip -j addr + a shell compare.
out=$(ibstat)
[ "$(grep -c 'State: Active' <<<"$out")" = 2 ] || { echo "ERROR: port not active"; exit 1; }
[ "$(grep -c 'Physical state: LinkUp' <<<"$out")" = 2 ] || { echo "ERROR: link down"; exit 1; }
[ "$(grep -c 'Rate: 200' <<<"$out")" = 2 ] || { echo "ERROR: rate"; exit 1; }
grep -q 'Firmware version: 20.31.1014' <<<"$out" || { echo "ERROR: firmware"; exit 1; }
grep -q 'SM lid: 0$' <<<"$out" && { echo "ERROR: no SM"; exit 1; }
addrs=$(ip -j addr show)
for ib in ib0 ib1; do
  [ -d /sys/class/net/$ib ] || { echo "ERROR: $ib missing"; exit 1; }
done
: "$addrs"
IBS
chmod +x "$work"/*.sh

bench_machine_line
[ -z "$nhc_src" ] || echo "nhc: mej/nhc $nhc_version, run from $nhc_src"
unshare -m -n bash -s "$(pwd)/tests/fixtures/sysfs/hdr-2hca" "$bench_ibsetup" "$runs" "$work" \
  "$bench_timer" "$nhc_src" <<'INNER'
set -euo pipefail
tree=$1 ibsetup=$2 runs=$3 work=$4 timer=$5 nhc_src=$6
mount -t tmpfs ibsetup-bench /sys
cp -a "$tree"/. /sys/
# stdin is this script: every command here reads /dev/null instead.
# NHC's side effects stay in this mount namespace: no syslog, no site configuration.
for f in /usr/bin/logger /bin/logger; do
  [ ! -e "$f" ] || mount --bind /bin/true "$f"
done
for f in /etc/default/nhc /etc/sysconfig/nhc; do
  [ ! -e "$f" ] || mount --bind /dev/null "$f"
done
# The mpi group (memlock, uverbs and rdma_cm devices, modules, ibv_reg_mr) checks what NHC's
# check_hw_ib does not, and needs a live RDMA stack the fixture cannot give: it is disabled.
check=("$ibsetup" check "$work/cluster.yaml" --node hdr01 --disable mpi)
nhc_argv() { # CONFIG-DIR [OPTION...]: sets nhc_cmd
  local d=$1
  shift
  nhc_cmd=("$nhc_src/nhc" -D "$d" -c "$d/nhc.conf" -l "$work/nhc.log" "$@" MARK_OFFLINE=0)
}
state=/sys/class/infiniband/mlx5_1/ports/1/state

"${check[@]}" </dev/null >"$work/check.txt" || { cat "$work/check.txt"; exit 1; }
"$work/nhc_style.sh" </dev/null || exit 1
"$work/ibstat_style.sh" </dev/null || exit 1
nhc_groups=()
if [ -n "$nhc_src" ]; then
  for d in min all; do
    nhc_argv "$work/nhc-$d"
    "${nhc_cmd[@]}" </dev/null || { cat "$work/nhc.log"; echo "bench: nhc fails on the tree" >&2; exit 1; }
  done
  ! grep -q ERROR "$work/nhc.log" || { cat "$work/nhc.log"; exit 1; }
  echo "2: INIT" >"$state"
  for d in min all; do
    : >"$work/nhc.log"
    nhc_argv "$work/nhc-$d"
    if "${nhc_cmd[@]}" </dev/null >"$work/nhc-fail.out"; then
      echo "bench: nhc passes with mlx5_1 port 1 INIT; it does not check what is timed" >&2
      exit 1
    fi
    grep -q 'check_hw_ib:  No IB port mlx5_1:1 is ACTIVE' "$work/nhc.log" || {
      cat "$work/nhc.log"
      exit 1
    }
  done
  rc=0
  "${check[@]}" </dev/null >"$work/check-bad.txt" || rc=$?
  [ "$rc" = 5 ] || { echo "bench: ibsetup check exited $rc with a port INIT" >&2; exit 1; }
  echo "4: ACTIVE" >"$state"
  echo "verified: NHC and ibsetup check pass on the tree and fail with mlx5_1 port 1 INIT;" \
    "NHC said: $(cat "$work/nhc-fail.out")"
  : >"$work/nhc.log"
  nhc_argv "$work/nhc-min"
  nhc_groups+=(-- --label "LBNL NHC check_hw_ib" "${nhc_cmd[@]}")
  nhc_argv "$work/nhc-all"
  nhc_groups+=(-- --label "NHC, all upstream scripts loaded" "${nhc_cmd[@]}")
  nhc_argv "$work/nhc-min" -t 0
  nhc_groups+=(-- --label "NHC without its watchdog (-t 0)" "${nhc_cmd[@]}")
fi
"$timer" "$runs" --samples "$work/times.samples" \
  -- --label "ibsetup check (local, no peers)" "${check[@]}" "${nhc_groups[@]}" \
  -- --label "NHC-style bash script" "$work/nhc_style.sh" \
  -- --label "ibstat + ip -j addr + shell compare" "$work/ibstat_style.sh" \
  -- --label "floor: ibsetup --version" "$ibsetup" --version \
  -- --label "floor: /bin/true" /bin/true -- --label "floor: bash -c :" bash -c : >"$work/times"
if [ -n "$nhc_src" ] && grep -q ERROR "$work/nhc.log"; then
  cat "$work/nhc.log"
  exit 1
fi
echo "fixture hdr-2hca (2 HCAs, ib0/ib1): ibsetup $(grep -c '^pass' "$work/check.txt") checks" \
  "passed${nhc_src:+; NHC: check_hw_ib on 2 ports}; $runs interleaved runs"
INNER
bench_table "$work/times"
bench_load_line "$work/times" check
echo
ours="ibsetup check (local, no peers)"
if [ -n "$nhc_src" ]; then
  bench_compare "$work/times" "check (local) vs LBNL NHC check_hw_ib, hdr-2hca" \
    "$ours" "LBNL NHC check_hw_ib" faster 20
  bench_compare "$work/times" "check vs NHC with every upstream script loaded (context)" \
    "$ours" "NHC, all upstream scripts loaded" context_faster
  bench_compare "$work/times" "check vs NHC without its watchdog, -t 0 (context)" \
    "$ours" "NHC without its watchdog (-t 0)" context_faster
else
  echo "row|check (local) vs LBNL NHC check_hw_ib, hdr-2hca|-|NHC not available: set NHC_SRC|-|>= 20x faster|not run"
fi
bench_compare "$work/times" "check vs NHC-style bash script (context)" "$ours" \
  "NHC-style bash script" context_faster
bench_compare "$work/times" "check vs ibstat + ip -j addr + shell compare (context)" "$ours" \
  "ibstat + ip -j addr + shell compare" context_faster
bench_row_context "$work/times" "check bench, floor: ibsetup --version" "floor: ibsetup --version" ours
for f in "floor: /bin/true" "floor: bash -c :"; do
  bench_row_context "$work/times" "check bench, $f" "$f" peer
done
