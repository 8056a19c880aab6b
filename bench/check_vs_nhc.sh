#!/bin/bash
# Pre-flight check speed, side by side on one fixture host (tests/fixtures/sysfs/hdr-2hca:
# 2 HDR HCAs, ib0/ib1) mounted over /sys in a private mount and network namespace:
#   ibsetup check (local checks: ABI, HCAs, firmware, PCIe, ports, IPoIB; no peers),
#   an NHC-style bash script doing the same sysfs reads and compares (check_hw_ib-like), and
#   ibstat + ip -j addr + a shell compare (what site scripts do).
# Needs root. Usage: bench/check_vs_nhc.sh [RUNS]   (after scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-50}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ibsetup=${IBSETUP:-$(pwd)/build/src/ibsetup}  # IBSETUP=PATH: another build (A/B runs)
timer=$(pwd)/build/bench/bench_spawn_timer
# The bench profile leaves addresses out: the namespace has no IPoIB netdevs to hold them.
grep -v 'ipv4:' tests/data/check/cluster.yaml >"$work/cluster.yaml"

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

unshare -m -n bash -s "$(pwd)/tests/fixtures/sysfs/hdr-2hca" "$ibsetup" "$runs" "$work" "$timer" <<'INNER'
set -euo pipefail
tree=$1 ibsetup=$2 runs=$3 work=$4 timer=$5
mount -t tmpfs ibsetup-bench /sys
cp -a "$tree"/. /sys/
"$ibsetup" check "$work/cluster.yaml" --node hdr01 >"$work/check.txt" || { cat "$work/check.txt"; exit 1; }
"$work/nhc_style.sh" || exit 1
"$work/ibstat_style.sh" || exit 1
# bench_spawn_timer runs the commands interleaved and times each spawn-to-exit; the last three
# lines are floors: no program started by exec, and no bash script, can take less here.
"$timer" "$runs" -- "$ibsetup" check "$work/cluster.yaml" --node hdr01 -- "$work/nhc_style.sh" \
  -- "$work/ibstat_style.sh" -- "$ibsetup" --version -- /bin/true -- bash -c : >"$work/times"
col() { awk -v n="$1" 'NR == n {print $1}' "$work/times"; }
ours=$(col 1) nhc=$(col 2) ibs=$(col 3)
checks=$(grep -c '^pass' "$work/check.txt")
echo "fixture hdr-2hca (2 HCAs, ib0/ib1), ibsetup: $checks checks passed; median of $runs runs (p10-p90)"
printf '%-44s %8s %16s\n' "command" "ms" "p10-p90"
i=0
for label in "ibsetup check (local, no peers)" "NHC-style bash script" \
  "ibstat + ip -j addr + shell compare" "floor: ibsetup --version" "floor: /bin/true" \
  "floor: bash -c :"; do
  i=$((i + 1))
  awk -v n="$i" -v l="$label" 'NR == n {printf "%-44s %8.2f %7.2f-%-8.2f\n", l, $1, $2, $3}' "$work/times"
done
awk -v a="$ours" -v b="$nhc" -v c="$ibs" 'BEGIN {
  printf "NHC-style / ibsetup: %.1fx   ibstat script / ibsetup: %.1fx\n", b / a, c / a }'
INNER
