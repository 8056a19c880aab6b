#!/bin/bash
# ibsetup check's IP connectivity to peers over the real kernel, in throw-away network
# namespaces (docs/facts.md, test tier 3): node pa reaches pb over ib0 <-> ib0 (veth
# stand-ins); pc does not exist; pb's ib1 address is reachable from pa only through the wrong rail (ib0),
# which a plain ping accepts and ibsetup check must not. Needs root; exits 77 otherwise.
# Usage: netns_check_test.sh IBSETUP
set -uo pipefail
ibsetup=$1
if [ "$(id -u)" != 0 ]; then
  echo "netns check: skipped: needs root"
  exit 77
fi
tag="ibck$$"
nsa="${tag}a" nsb="${tag}b" nsc="${tag}c"
work=$(mktemp -d)
cleanup() {
  for ns in "$nsa" "$nsb" "$nsc"; do ip netns del "$ns" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/expect.sh"

cat >"$work/cluster.yaml" <<'YAML'
version: 1
nodes:
  - hosts: "p[a-d]"
    interfaces:
      - {name: ib0, ipv4: 10.77.0.0/16}
      - {name: ib1, ipv4: 10.78.0.0/16}
    checks:
      peers: [pb, pc]
      peer_timeout_ms: 700
YAML
sed -i 's/p\[a-d\]/pa,pb,pc,pd/' "$work/cluster.yaml"
for ns in "$nsa" "$nsb" "$nsc"; do ip netns add "$ns"; done
ip -n "$nsa" link add ib0 type veth peer name ib0 netns "$nsb"
ip -n "$nsa" link add ib1 type veth peer name ib1 netns "$nsc"
for ns in "$nsa" "$nsb" "$nsc"; do ip -n "$ns" link set lo up; done
ip -n "$nsa" link set ib0 up && ip -n "$nsa" link set ib1 up
ip -n "$nsb" link set ib0 up && ip -n "$nsc" link set ib1 up
ip -n "$nsa" addr add 10.77.0.1/16 dev ib0
ip -n "$nsb" addr add 10.77.0.2/16 dev ib0
# The wrong-rail mistake: pb answers for its ib1 address on ib0, and pa routes 10.78/16 via ib0.
ip -n "$nsb" addr add 10.78.0.2/16 dev ib0
ip -n "$nsa" route add 10.78.0.0/16 dev ib0

peers() {
  python3 -c "import json,sys
for c in json.load(sys.stdin)['checks']:
    if c['id'] == 'ip.peer': print(c['status'], c['message'].split(' replied in')[0])"
}
start=$(date +%s%N)
out=$(ip netns exec "$nsa" "$ibsetup" check "$work/cluster.yaml" --node pa --json --disable ipoib)
rc=$?
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
expect "a failing peer fails the check (exit 5)" "$rc" 5
expect "pb via ib0 passes; pc fails; pb via ib1 (wrong rail) fails" "$(peers <<<"$out" | sort)" \
"fail pb: no echo reply from 10.78.0.2 via ib1 within 700 ms
fail pc: no echo reply from 10.77.0.3 via ib0 within 700 ms
fail pc: no echo reply from 10.78.0.3 via ib1 within 700 ms
pass pb: 10.77.0.2 via ib0"
# The probes run in parallel: three 700 ms deadlines cost one (bound, not a benchmark).
expect "unreachable peers fail within their deadline (${elapsed_ms} ms < 2500)" \
  "$((elapsed_ms < 2500))" 1
expect "a plain ping accepts the wrong rail" \
  "$(ip netns exec "$nsa" ping -c 1 -W 1 10.78.0.2 >/dev/null 2>&1 && echo replied)" replied

# --timeout bounds the whole run even when the peer deadline is longer.
start=$(date +%s%N)
ip netns exec "$nsa" "$ibsetup" check "$work/cluster.yaml" --node pa --json --disable ipoib \
  --peer-timeout-ms 20000 --timeout 1.5 >"$work/t.json"
rc=$?
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
expect "--timeout 1.5: exit 5" "$rc" 5
expect "--timeout 1.5: done in ${elapsed_ms} ms < 3000" "$((elapsed_ms < 3000))" 1

# Only the reachable peer, correctly cabled on both rails (fresh namespaces): the check passes.
sed -i 's/peers: \[pb, pc\]/peers: [pb]/' "$work/cluster.yaml"
for ns in "$nsa" "$nsb" "$nsc"; do ip netns del "$ns"; ip netns add "$ns"; done
ip -n "$nsa" link add ib0 type veth peer name ib0 netns "$nsb"
ip -n "$nsa" link add ib1 type veth peer name ib1 netns "$nsc"
ip -n "$nsa" link set ib0 up && ip -n "$nsa" link set ib1 up
ip -n "$nsb" link set ib0 up && ip -n "$nsc" link set ib1 up
ip -n "$nsa" addr add 10.77.0.1/16 dev ib0 && ip -n "$nsb" addr add 10.77.0.2/16 dev ib0
ip -n "$nsa" addr add 10.78.0.1/16 dev ib1 && ip -n "$nsc" addr add 10.78.0.2/16 dev ib1
out=$(ip netns exec "$nsa" "$ibsetup" check "$work/cluster.yaml" --node pa --json --disable ipoib)
expect "reachable peer on both rails: exit 0" "$?" 0
expect "reachable peer on both rails: both pass" "$(peers <<<"$out" | sort)" \
"pass pb: 10.77.0.2 via ib0
pass pb: 10.78.0.2 via ib1"
out=$(ip netns exec "$nsa" "$ibsetup" check "$work/cluster.yaml" --node pa --format nhc --disable ipoib)
expect "NHC format: nothing printed when healthy" "$out" ""

echo "netns check: $pass passed, $fail failed"
[ "$fail" = 0 ]
