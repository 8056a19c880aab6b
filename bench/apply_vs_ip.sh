#!/bin/bash
# Apply speed: 64 interfaces (veth stand-ins in a network namespace), each with an MTU, an IPv4
# and an IPv6 address and brought up. Side by side in one run:
#   ibsetup apply (inventory, plan, apply, verify), the same changes as one `ip -batch` file,
#   and as one `ip` process per change (what shell scripts do);
#   a no-op re-apply next to one `ip -j addr show`.
# Everything runs through `ip netns exec` so each pays the same namespace entry. Needs root.
# Usage: bench/apply_vs_ip.sh [RUNS]   (after scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
ibsetup=${IBSETUP:-$(pwd)/build/src/ibsetup}  # IBSETUP=PATH: another build (A/B runs)
ns="ibbench$$"
work=$(mktemp -d)
trap 'ip netns del "$ns" 2>/dev/null; rm -rf "$work"' EXIT
n=64

{
  echo "version: 1"
  echo "nodes:"
  echo "  - hosts: b1"
  echo "    interfaces:"
  for ((i = 0; i < n; i++)); do
    echo "      - {name: ib$i, mtu: 2044, ipv4: 10.100.$i.0/24, ipv6: 'fd00:$i::/64'}"
  done
} >"$work/cluster.yaml"
for ((i = 0; i < n; i++)); do
  echo "link set dev ib$i mtu 2044"
  echo "address add 10.100.$i.1/24 dev ib$i"
  echo "address add fd00:$i::1/64 dev ib$i"
  echo "link set dev ib$i up"
done >"$work/batch"

fresh() {
  ip netns del "$ns" 2>/dev/null || true
  ip netns add "$ns"
  for ((i = 0; i < n; i += 2)); do
    echo "link add ib$i type veth peer name ib$((i + 1))"
  done | ip -n "$ns" -batch -
}
now_us() { echo $(($(date +%s%N) / 1000)); }
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {printf "%.1f", v[int((NR+1)/2)]/1000}'; }

a=() b=() c=() d=() e=()
for ((r = 0; r < runs; r++)); do
  fresh
  s=$(now_us)
  ip netns exec "$ns" "$ibsetup" apply -q "$work/cluster.yaml" --node b1 --lock-file "$work/lock"
  t=$(now_us); a+=($((t - s)))
  s=$(now_us)
  ip netns exec "$ns" "$ibsetup" apply -q "$work/cluster.yaml" --node b1 --lock-file "$work/lock"
  t=$(now_us); d+=($((t - s)))
  s=$(now_us)
  ip netns exec "$ns" ip -j addr show >/dev/null
  t=$(now_us); e+=($((t - s)))
  fresh
  s=$(now_us)
  ip netns exec "$ns" ip -batch "$work/batch"
  t=$(now_us); b+=($((t - s)))
  fresh
  s=$(now_us)
  while read -r line; do
    # shellcheck disable=SC2086
    ip netns exec "$ns" ip $line
  done <"$work/batch"
  t=$(now_us); c+=($((t - s)))
done
apply=$(median "${a[@]}") batch=$(median "${b[@]}") loop=$(median "${c[@]}")
noop=$(median "${d[@]}") show=$(median "${e[@]}")
echo "64 interfaces x (mtu, IPv4, IPv6, up) = 256 changes; median of $runs runs"
printf '%-44s %10s\n' "command" "ms"
printf '%-44s %10s\n' "ibsetup apply (with verification)" "$apply"
printf '%-44s %10s\n' "ip -batch (one process)" "$batch"
printf '%-44s %10s\n' "one ip process per change" "$loop"
printf '%-44s %10s\n' "ibsetup apply, no-op re-apply" "$noop"
printf '%-44s %10s\n' "ip -j addr show" "$show"
awk -v a="$apply" -v b="$batch" -v c="$loop" -v d="$noop" -v e="$show" 'BEGIN {
  printf "apply / ip -batch: %.2f   per-change loop / apply: %.1f   no-op / ip -j addr show: %.2f\n",
         a / b, c / a, d / e }'
