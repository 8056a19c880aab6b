#!/bin/bash
# A live inspect reads netdevs from one netlink link dump (issue 15); this compares it, field by
# field, with the sysfs walk on the real kernel, in a throw-away network namespace holding
# netdevs of many kinds and states: veth pairs up and down (carrier on and off), an ifb with
# another MTU, a macvlan on a veth named like a pkey child, a bridge, a vxlan, and a name of 15
# characters (this kernel has no dummy, bond or vlan modules).
# Needs root; exits 77 otherwise. Usage: netdev_oracle_test.sh NETDEV_ORACLE
set -uo pipefail
oracle=$1
if [ "$(id -u)" != 0 ]; then
  echo "netdev oracle: skipped: needs root"
  exit 77
fi
ns="ibnd$$"
work=$(mktemp -d)
trap 'ip netns del "$ns" 2>/dev/null; rm -rf "$work"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/expect.sh"

ip netns add "$ns"
ip -n "$ns" -batch - <<'BATCH'
link set lo up
link add ib0 type veth peer name ib1
link set ib0 up
link set ib1 up mtu 2044
link add ib2 type veth peer name ib3
link set ib2 up
link add ifb0 type ifb
link set ifb0 mtu 9000
link add link ib0 name ib0.8001 type macvlan
link set ib0.8001 up
link add br0 type bridge
link set br0 up
link add vx0 type vxlan id 5 dstport 4789
link add abcdefghijklmno type ifb
link set abcdefghijklmno up
BATCH
ip netns exec "$ns" "$oracle" netlink >"$work/netlink.json" || exit 1
ip netns exec "$ns" "$oracle" sysfs >"$work/sysfs.json" || exit 1
python3 - "$work/netlink.json" "$work/sysfs.json" >"$work/diff" <<'PY'
import json, sys
a, b = (json.load(open(p))["netdevs"] for p in sys.argv[1:3])
print(len(a), "netdevs")
for x, y in zip(a, b):  # in the same order, too
    if x != y:
        print("differs:", json.dumps(x), json.dumps(y))
if len(a) != len(b):
    print("counts differ:", len(a), len(b))
PY
expect "netlink and sysfs agree on every netdev" "$(cat "$work/diff")" "10 netdevs"
# The readings are not vacuous: states and MTUs the namespace was given show up.
summary=$(python3 -c '
import json, sys
d = {n["name"]: n for n in json.load(open(sys.argv[1]))["netdevs"]}
print(d["ib1"]["mtu"], d["ifb0"]["mtu"], d["ib3"]["admin_up"], d["ib3"]["carrier"],
      d["ib0"]["carrier"], d["ib2"]["carrier"], d["ib0.8001"]["operstate"])' "$work/netlink.json")
expect "MTUs, admin state and carrier as set" "$summary" "2044 9000 False None True False up"
echo "netdev oracle: $pass passed, $fail failed"
[ "$fail" = 0 ]
