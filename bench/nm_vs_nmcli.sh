#!/bin/bash
# NetworkManager backend speed: 32 IPoIB profiles, ib0 and 31 pkey children (datagram mode,
# MTU, IPv4), stored as
# NetworkManager profiles without activation, against a private NetworkManager
# (tests/nm/nm_harness.sh). Side by side in one run:
#   ibsetup apply --backend networkmanager --no-activate (one process: survey, checkpoint,
#   32 adds, read-back verification, checkpoint destroyed), and the 32
#   `nmcli connection add` calls a provisioning script would run.
# Profiles are deleted between runs (not timed). Needs root.
# Usage: bench/nm_vs_nmcli.sh [RUNS]   (after scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
ibsetup=${IBSETUP:-$(pwd)/build/src/ibsetup}  # IBSETUP=PATH: another build (A/B runs)
# shellcheck source=../tests/nm/nm_harness.sh
. tests/nm/nm_harness.sh
work=$(mktemp -d)
trap 'nm_stop; rm -rf "$work"' EXIT
n=32

{
  echo "version: 1"
  echo "cluster: bench"
  echo "nodes:"
  echo "  - hosts: b1"
  echo "    interfaces:"
  echo "      - {name: ib0, mode: datagram, ipv4: 10.100.0.0/16}"
  for ((i = 1; i < n; i++)); do
    printf '      - {parent: ib0, pkey: 0x80%02x, mode: datagram, mtu: 2044, ipv4: 10.%d.0.0/16}\n' "$i" $((100 + i))
  done
} >"$work/cluster.yaml"
nmcli_adds() {
  local i pkey
  nmcli connection add type infiniband con-name script-ib0 ifname ib0 \
    infiniband.transport-mode datagram ipv4.method manual ipv4.addresses 10.100.0.1/16 \
    ipv6.method disabled >/dev/null
  for ((i = 1; i < n; i++)); do
    pkey=$(printf '80%02x' "$i")
    nmcli connection add type infiniband con-name "script-ib0.$pkey" ifname "ib0.$pkey" \
      infiniband.parent ib0 infiniband.p-key "0x$pkey" infiniband.transport-mode datagram \
      infiniband.mtu 2044 ipv4.method manual ipv4.addresses "10.$((100 + i)).0.1/16" \
      ipv6.method disabled >/dev/null
  done
}
clear_profiles() {
  local uuids
  uuids=$(nmcli -t -f UUID,TYPE connection show | awk -F: '$2 == "infiniband" {print $1}')
  if [ -n "$uuids" ]; then
    # shellcheck disable=SC2086
    nmcli connection delete $uuids >/dev/null
  fi
}
now_us() { echo $(($(date +%s%N) / 1000)); }
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {printf "%.1f", v[int((NR+1)/2)]/1000}'; }

nm_start "$work/conns"
a=() b=() c=()
for ((r = 0; r < runs; r++)); do
  clear_profiles
  s=$(now_us)
  "$ibsetup" apply -q "$work/cluster.yaml" --node b1 --backend networkmanager --no-activate \
    --lock-file "$work/lock"
  t=$(now_us); a+=($((t - s)))
  s=$(now_us)
  "$ibsetup" apply -q "$work/cluster.yaml" --node b1 --backend networkmanager --no-activate \
    --lock-file "$work/lock"
  t=$(now_us); c+=($((t - s)))
  clear_profiles
  s=$(now_us)
  nmcli_adds
  t=$(now_us); b+=($((t - s)))
done
count=$(nmcli -t -f TYPE connection show | grep -c infiniband)
[ "$count" = "$n" ] || { echo "bench: expected $n profiles, NM holds $count" >&2; exit 1; }
apply=$(median "${a[@]}") adds=$(median "${b[@]}") noop=$(median "${c[@]}")
echo "$n IPoIB profiles stored (not activated) in a private NetworkManager; median of $runs runs"
printf '%-52s %10s\n' "command" "ms"
printf '%-52s %10s\n' "ibsetup apply --no-activate (checkpoint, verified)" "$apply"
printf '%-52s %10s\n' "$n x nmcli connection add" "$adds"
printf '%-52s %10s\n' "ibsetup apply --no-activate, no-op re-apply" "$noop"
awk -v a="$apply" -v b="$adds" 'BEGIN { printf "nmcli adds / ibsetup apply: %.1fx\n", b / a }'
