#!/bin/bash
# Apply speed: 64 interfaces (veth stand-ins in a network namespace of the bench's own), each
# given an MTU, an IPv4 and an IPv6 address and brought up. Interleaved by bench_spawn_timer,
# which runs inside the namespace (`ip netns exec` once, not per sample):
#   ibsetup apply (inventory, plan, apply, verification), default backend choice (auto) and
#   --backend netlink, against the same changes as one `ip -batch` file; each sample starts from
#   fresh links (an untimed setup deletes and re-creates the veth pairs);
#   a no-op re-apply (setup: fresh links, then one apply) against `ip -j addr show` on the same
#   applied state.
# Afterwards, for scale, one `ip` process per change (what shell scripts do), with fewer runs.
# The auto backend looks for NetworkManager on the system bus; the bench points
# DBUS_SYSTEM_BUS_ADDRESS at a socket that does not exist, so that a NetworkManager running on
# the host is never asked (auto then picks netlink, after trying, which is the cost measured).
# Before timing, the bench checks that apply and `ip -batch` leave the same state.
# Targets (issue 15): apply / ip -batch at most 1.3, no-op / ip -j addr show at most 1.5.
# Needs root. Usage: bench/apply_vs_ip.sh [RUNS]   (default 30; after scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
runs=${1:-$bench_default_runs}
bench_require_root apply_vs_ip.sh
bench_require_built
bench_installed apply_vs_ip.sh "$@"
ns="ibbench$$"
work=$(mktemp -d)
trap 'ip netns del "$ns" 2>/dev/null; rm -rf "$work"' EXIT
trap 'exit 1' HUP INT PIPE TERM # a fatal signal still runs the EXIT trap
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$work/no-such-bus"
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
for ((i = 0; i < n; i += 2)); do
  echo "link add ib$i type veth peer name ib$((i + 1))"
done >"$work/create"
# Deleting one end of a veth pair deletes both.
{
  for ((i = 0; i < n; i += 2)); do echo "link del ib$i"; done
  cat "$work/create"
} >"$work/reset"
cat >"$work/loop.sh" <<'LOOP'
while read -r line; do
  # shellcheck disable=SC2086
  ip $line
done <"$1"
LOOP

ip netns add "$ns"
ip -n "$ns" -batch "$work/create"
in_ns() { ip netns exec "$ns" "$@"; }
apply=("$bench_ibsetup" apply -q "$work/cluster.yaml" --node b1 --lock-file "$work/lock")
reset=(-- --setup ip -batch "$work/reset")

# The same changes: the state apply leaves must be the state ip -batch leaves.
state() { in_ns ip -br addr show | grep -v '^lo ' | sed 's/ fe80::[^ ]*//' | sort; }
in_ns ip -batch "$work/reset"
in_ns "$bench_ibsetup" apply "$work/cluster.yaml" --node b1 --lock-file "$work/lock" \
  >/dev/null 2>"$work/apply.err" || {
  cat "$work/apply.err" >&2
  exit 1
}
auto=$(sed -n 's/^ibsetup: backend //p' "$work/apply.err")
case $auto in
netlink:*) ;;
*)
  echo "bench: the auto backend chose '$auto', not netlink" >&2
  exit 1
  ;;
esac
state >"$work/state.apply"
in_ns ip -batch "$work/reset"
in_ns ip -batch "$work/batch"
state >"$work/state.batch"
diff -u "$work/state.batch" "$work/state.apply" || {
  echo "bench: ibsetup apply and ip -batch left different states (above)" >&2
  exit 1
}

bench_machine_line
echo "$n interfaces x (mtu, IPv4, IPv6, up) = $((n * 4)) changes; $runs interleaved runs"
echo "auto backend: $auto"
in_ns "$bench_timer" "$runs" --samples "$work/times.samples" \
  "${reset[@]}" -- --label "ibsetup apply (auto: netlink)" "${apply[@]}" \
  "${reset[@]}" -- --label "ibsetup apply --backend netlink" "${apply[@]}" --backend netlink \
  "${reset[@]}" -- --label "ip -batch (one process)" ip -batch "$work/batch" \
  "${reset[@]}" -- --setup "${apply[@]}" -- --label "ibsetup apply, no-op re-apply" "${apply[@]}" \
  "${reset[@]}" -- --setup "${apply[@]}" \
  -- --label "ibsetup apply --backend netlink, no-op" "${apply[@]}" --backend netlink \
  "${reset[@]}" -- --setup "${apply[@]}" -- --label "ip -j addr show" ip -j addr show \
  >"$work/times"
loop_runs=$((runs / 10 > 3 ? runs / 10 : 3))
in_ns "$bench_timer" "$loop_runs" "${reset[@]}" -- --label "one ip process per change" \
  bash "$work/loop.sh" "$work/batch" >"$work/loop"

bench_table "$work/times"
bench_load_line "$work/times" apply
echo "for scale, $loop_runs runs afterwards:"
bench_table "$work/loop"
bench_load_line "$work/loop" "apply, ip per change"
echo
bench_compare "$work/times" "apply, 64 interfaces (auto backend) vs ip -batch" \
  "ibsetup apply (auto: netlink)" "ip -batch (one process)" at_most 1.3
bench_compare "$work/times" "apply --backend netlink, 64 interfaces vs ip -batch" \
  "ibsetup apply --backend netlink" "ip -batch (one process)" at_most 1.3
bench_compare "$work/times" "no-op re-apply (auto backend) vs ip -j addr show" \
  "ibsetup apply, no-op re-apply" "ip -j addr show" at_most 1.5
bench_compare "$work/times" "no-op re-apply --backend netlink vs ip -j addr show" \
  "ibsetup apply --backend netlink, no-op" "ip -j addr show" at_most 1.5
bench_row_context "$work/loop" "apply, 64 interfaces: one ip process per change (context)" \
  "one ip process per change" peer
