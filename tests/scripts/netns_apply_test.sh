#!/bin/bash
# Apply over the real kernel netlink, in throw-away network namespaces where veth pairs named
# like IPoIB interfaces stand in for ib0/ib1 (docs/facts.md, test tier 3). Needs root; exits 77
# otherwise.
# Usage: netns_apply_test.sh IBSETUP
set -uo pipefail
ibsetup=$1
if [ "$(id -u)" != 0 ]; then
  echo "netns: skipped: needs root"
  exit 77
fi
tag="ibst$$"
nsa="${tag}a" nsb="${tag}b"
work=$(mktemp -d)
chmod 755 "$work"  # the non-root case must be able to read the profile
pass=0 fail=0
cleanup() {
  ip netns del "$nsa" 2>/dev/null
  ip netns del "$nsb" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; shift; printf '     %s\n' "$@"; }
expect() {  # expect NAME ACTUAL EXPECTED
  if [ "$2" == "$3" ]; then ok "$1"; else bad "$1" "expected: $3" "actual:   $2"; fi
}
in_a() { ip netns exec "$nsa" "$@"; }
apply_a() { in_a "$ibsetup" apply "$work/cluster.yaml" --node n1 --lock-file "$work/lock" "$@"; }
fresh() {  # two namespaces joined by ib0 <-> ib0, plus ib1 <-> ib9 and an undeclared eth9 in A
  ip netns del "$nsa" 2>/dev/null
  ip netns del "$nsb" 2>/dev/null
  ip netns add "$nsa" && ip netns add "$nsb"
  ip -n "$nsa" link add ib0 type veth peer name ib0 netns "$nsb"
  ip -n "$nsa" link add ib1 type veth peer name ib9
  ip -n "$nsa" link add eth9 type veth peer name eth8
  ip -n "$nsa" addr add 192.0.2.9/24 dev eth9
}
snapshot() { echo "$(in_a ip -j addr show)$(in_a ip -j link show)"; }
# schema NAME SCHEMA JSON: JSON conforms to docs/schema/SCHEMA.schema.json (python3 jsonschema
# needed; without it tests/schema/schema_test.sh skips and so does this).
src=$(cd "$(dirname "$0")/../.." && pwd)
schema() {
  python3 -c 'from jsonschema import Draft7Validator' 2>/dev/null || return 0
  expect "$1: conforms to $2.schema.json" \
    "$(python3 "$src/tests/schema/validate_json.py" "$src/docs/schema/$2.schema.json" - <<<"$3" 2>&1)" ""
}

cat >"$work/cluster.yaml" <<'YAML'
version: 1
nodes:
  - hosts: "n[1-2]"
    interfaces:
      - {name: ib0, mtu: 2044, ipv4: 10.77.0.0/24}
      - {name: ib1, mtu: 4092, ipv4: 10.78.0.0/24, ipv6: "fd00:78::/64"}
YAML
sed -e '/ib1/d' "$work/cluster.yaml" >"$work/n2.yaml"
chmod 644 "$work"/*.yaml

# 0. The plan's warnings (veths are not IPoIB) go to standard error as `ibsetup: warning:`,
#    with plan and apply --dry-run as with apply, and -q silences them; they used to be in
#    the plan on standard output, with no prefix, whatever -q said.
fresh
warn='ibsetup: warning: ib0: not an IPoIB interface; only its MTU, addresses and state are managed'
for cmd in plan "apply --dry-run --lock-file $work/lock"; do
  # shellcheck disable=SC2086 # cmd is the subcommand and its flags
  in_a "$ibsetup" $cmd "$work/cluster.yaml" --node n1 --no-firmware >"$work/w.out" 2>"$work/w.err"
  name=${cmd%% --lock-file*}
  expect "$name: the warning on stderr" "$(grep -c -xF "$warn" "$work/w.err")" 1
  expect "$name: no warning on stdout" "$(grep -c 'warning' "$work/w.out")" 0
  expect "$name: the plan on stdout" "$(grep -c '^plan for n1: ' "$work/w.out")" 1
  # shellcheck disable=SC2086
  in_a "$ibsetup" $cmd "$work/cluster.yaml" --node n1 --no-firmware -q >"$work/w.out" 2>"$work/w.err"
  expect "$name -q: no warning anywhere" "$(cat "$work/w.out" "$work/w.err" | grep -c 'warning')" 0
done
in_a "$ibsetup" plan "$work/cluster.yaml" --node n1 --no-firmware --json -q >"$work/w.out"
expect "plan --json -q: the warnings stay in the JSON" \
  "$(grep -o '"warnings":\["ib0: not an IPoIB interface' "$work/w.out")" '"warnings":["ib0: not an IPoIB interface'
schema "plan --json -q" plan "$(cat "$work/w.out")"

# 1. apply sets MTU, addresses and link state for real.
fresh
out=$(apply_a 2>&1); rc=$?
expect "apply exits 0" "$rc" 0
expect "ib0 mtu" "$(in_a ip -j link show ib0 | grep -o '"mtu":[0-9]*')" '"mtu":2044'
expect "ib1 mtu" "$(in_a ip -j link show ib1 | grep -o '"mtu":[0-9]*')" '"mtu":4092'
expect "ib0 address" "$(in_a ip -j -4 addr show ib0 | grep -o '"local":"[^"]*","prefixlen":[0-9]*')" '"local":"10.77.0.1","prefixlen":24'
expect "ib1 ipv6 address" "$(in_a ip -j -6 addr show ib1 scope global | grep -o '"local":"fd00:78::1"')" '"local":"fd00:78::1"'
expect "ib0 admin up" "$(in_a ip -j link show ib0 | grep -o '"flags":\[[^]]*UP[^]]*\]' | grep -c UP)" 1

# 2. re-apply: 0 changes, and not one netlink change message (watched with ip monitor).
# `ip -n`, not in_a: a function in the background is a subshell, whose pid `kill` would end
# while the monitor it started lived on (it did, one per run, holding the namespace).
ip -n "$nsa" monitor link address >"$work/monitor" 2>&1 &
mon=$!
sleep 0.3
out=$(apply_a --json 2>/dev/null); rc=$?
sleep 0.3
kill "$mon" 2>/dev/null; wait "$mon" 2>/dev/null
expect "the monitor is gone with its pid" "$(ip netns pids "$nsa")" ""
expect "re-apply exits 0" "$rc" 0
expect "re-apply reports 0 changes" "$(grep -o '"changes":[0-9]*' <<<"$out")" '"changes":0'
expect "re-apply sends no change message" "$(cat "$work/monitor")" ""
schema "re-apply --json" apply "$out"
schema "apply --dry-run --json" apply "$(apply_a --dry-run --json --no-firmware 2>/dev/null)"

# 3. an extra address on a declared interface goes; one on an undeclared interface stays.
in_a ip addr add 10.99.0.5/24 dev ib0
out=$(apply_a 2>&1); rc=$?
expect "extra address apply exits 0" "$rc" 0
expect "extra address on ib0 removed" "$(in_a ip -j addr show ib0 | grep -c 10.99.0.5)" 0
expect "address on undeclared eth9 kept" "$(in_a ip -j addr show eth9 | grep -c 192.0.2.9)" 1
grep -q -- "- 10.99.0.5/24 on ib0" <<<"$out" && ok "removal reported" || bad "removal reported" "$out"

# 4. a failure mid-apply (the kernel refuses the IPv6 address) rolls everything back:
#    ip -j addr and ip -j link are byte-for-byte what they were.
fresh
in_a sysctl -q -w net.ipv6.conf.ib1.disable_ipv6=1
before=$(snapshot)
out=$(apply_a 2>&1); rc=$?
after=$(snapshot)
expect "failed apply exits 7" "$rc" 7
expect "state after rollback is byte-for-byte the state before" "$after" "$before"
grep -q "ib1: add fd00:78::1/64: the kernel refused" <<<"$out" && ok "failure names the refused step" || bad "failure names the refused step" "$out"
grep -q "rollback: ib0 mtu back to 1500: ok" <<<"$out" && ok "rollback steps are reported" || bad "rollback steps are reported" "$out"
fresh
in_a sysctl -q -w net.ipv6.conf.ib1.disable_ipv6=1
out=$(apply_a --json 2>/dev/null)
expect "failed apply --json: the report says why" "$(grep -c '"ok":false.*"rollback":\["' <<<"$out")" 1
schema "failed apply --json" apply "$out"
fresh
out=$(apply_a --json 2>/dev/null)
expect "apply --json: the changes made" "$(grep -c '"ok":true,"changes":[1-9]' <<<"$out")" 1
schema "apply --json" apply "$out"

# 5. SIGTERM mid-apply rolls back too.
fresh
before=$(snapshot)
ip netns exec "$nsa" "$ibsetup" apply --step-delay-ms 400 "$work/cluster.yaml" --node n1 \
  --lock-file "$work/lock" >"$work/term.out" 2>&1 &
pid=$!
for _ in $(seq 50); do grep -q "  ok" "$work/term.out" && break; sleep 0.1; done
kill -TERM "$pid"
wait "$pid"; rc=$?
after=$(snapshot)
expect "SIGTERM: exit 7" "$rc" 7
expect "SIGTERM: state restored" "$after" "$before"
grep -q "interrupted" "$work/term.out" && ok "SIGTERM: reported as interrupted" || bad "SIGTERM: reported as interrupted" "$(cat "$work/term.out")"

# 6. two concurrent applies: the second fails at once, naming the holder; --wait waits.
fresh
ip netns exec "$nsa" "$ibsetup" apply --step-delay-ms 300 "$work/cluster.yaml" --node n1 \
  --lock-file "$work/lock" >/dev/null 2>&1 &
first=$!
for _ in $(seq 100); do grep -qx "$first" "$work/lock" 2>/dev/null && break; sleep 0.05; done
out=$(apply_a 2>&1); rc=$?
expect "second apply exits 8 (busy)" "$rc" 8
grep -q "another ibsetup run (apply or firmware --apply, pid $first) holds $work/lock" <<<"$out" && ok "busy message names the holder" || bad "busy message names the holder" "$out"
out=$(apply_a --wait 30 2>&1); rc=$?
expect "with --wait the second apply succeeds" "$rc" 0
wait "$first"

# 7. IPoIB-only actions on this kernel fail clearly, before anything changes.
fresh
cat >"$work/child.yaml" <<'YAML'
version: 1
nodes:
  - hosts: n1
    interfaces:
      - {name: ib0, mode: datagram}
      - {parent: ib0, pkey: 0x8001}
YAML
before=$(snapshot)
out=$(in_a "$ibsetup" apply "$work/child.yaml" --node n1 --lock-file "$work/lock" 2>&1); rc=$?
expect "IPoIB-only actions: exit 3" "$rc" 3
grep -q "ib0: mode datagram asked, but setting a mode needs an IPoIB interface" <<<"$out" && ok "mode on veth: clear error" || bad "mode on veth: clear error" "$out"
grep -q "ib0.8001: cannot create pkey child: parent ib0 is not an IPoIB interface" <<<"$out" && ok "child on veth: clear error" || bad "child on veth: clear error" "$out"
expect "IPoIB-only actions: nothing changed" "$(snapshot)" "$before"

# 8. non-root: a clear error naming the capability, before any change.
out=$(in_a setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$ibsetup" apply "$work/cluster.yaml" --node n1 --lock-file "$work/lock" 2>&1); rc=$?
expect "non-root: exit 4" "$rc" 4
grep -q "CAP_NET_ADMIN" <<<"$out" && ok "non-root: names CAP_NET_ADMIN" || bad "non-root: names CAP_NET_ADMIN" "$out"

# 9. IP connectivity over what ibsetup configured: n1 in A pings n2 in B.
fresh
apply_a >/dev/null 2>&1
out=$(ip netns exec "$nsb" "$ibsetup" apply "$work/n2.yaml" --node n2 --lock-file "$work/lock" 2>&1)
expect "apply on n2 exits 0" "$?" 0
if in_a ping -c 1 -W 2 10.77.0.2 >/dev/null 2>&1; then
  ok "ping n1 -> n2 over ib0"
else
  bad "ping n1 -> n2 over ib0" "$out" "$(in_a ip -br addr)" "$(ip -n "$nsb" -br addr)"
fi

# 10. libnl-3 is loaded by the first change (src/os/nl_dl.hpp). A no-op apply does not load it;
# without it (an empty file over the library, in a private mount namespace) a change fails
# before anything changes, naming the library and its package.
fresh
apply_a >/dev/null 2>&1
out=$(in_a env LD_DEBUG=files "$ibsetup" apply "$work/cluster.yaml" --node n1 --lock-file \
  "$work/lock" 2>&1)
expect "no-op apply exits 0" "$?" 0
grep -q 'file=libnl-3' <<<"$out" && bad "no-op apply does not load libnl-3" "$out" ||
  ok "no-op apply does not load libnl-3"
libnl=$(ldconfig -p | awk '$1 == "libnl-3.so.200" {print $NF; exit}')
if [ -n "$libnl" ] && command -v unshare >/dev/null; then
  fresh
  before=$(snapshot)
  out=$(unshare -m sh -c 'mount --bind /dev/null "$(realpath "$1")" && shift && exec "$@"' sh \
    "$libnl" ip netns exec "$nsa" "$ibsetup" apply "$work/cluster.yaml" --node n1 \
    --lock-file "$work/lock" 2>&1)
  expect "without libnl-3: apply exits 4" "$?" 4
  grep -q 'netlink: libnl-3.so.200 cannot be loaded (libnl3 on Rocky 8, libnl-3-200 on Debian)' \
    <<<"$out" && grep -q '(nothing was changed)' <<<"$out" &&
    ok "without libnl-3: names the library and its package" ||
    bad "without libnl-3: names the library and its package" "$out"
  expect "without libnl-3: nothing changed" "$(snapshot)" "$before"
else
  bad "libnl-3.so.200 is in ldconfig's cache and unshare is installed" "$libnl"
fi

# 11. Secondary IPv4 addresses: the kernel deletes them with their primary. The wanted address
# is a secondary of one that goes, next to another secondary that goes: apply converges, a
# re-apply changes nothing, and a failed apply puts all three back in their order.
secondaries() {
  fresh
  in_a ip addr add 10.77.0.50/24 dev ib0
  in_a ip addr add 10.77.0.60/24 dev ib0
  in_a ip addr add 10.77.0.1/24 dev ib0
}
ipv4_of() { in_a ip -j -4 addr show "$1" | grep -o '"local":"[^"]*"' | tr '\n' ' '; }
secondaries
out=$(apply_a 2>&1); rc=$?
expect "secondaries: apply exits 0" "$rc" 0
expect "secondaries: ib0 has the wanted address alone" "$(ipv4_of ib0)" '"local":"10.77.0.1" '
out=$(apply_a --json 2>/dev/null)
expect "secondaries: re-apply reports 0 changes" "$(grep -o '"changes":[0-9]*' <<<"$out")" '"changes":0'
secondaries
in_a sysctl -q -w net.ipv6.conf.ib1.disable_ipv6=1
before=$(snapshot)
out=$(apply_a 2>&1); rc=$?
expect "secondaries: failed apply exits 7" "$rc" 7
expect "secondaries: rollback restores the addresses in their order" "$(snapshot)" "$before"
grep -q "FAILED" <<<"$(grep rollback <<<"$out")" &&
  bad "secondaries: every rollback step succeeds" "$out" ||
  ok "secondaries: every rollback step succeeds"

# 12. An MTU below 1280 would make the kernel drop IPv6 from the interface, addresses the
# profile does not manage included: refused before any change.
fresh
in_a ip addr add fd00:99::5/64 dev ib0 nodad
sed -e 's/mtu: 2044/mtu: 1000/' "$work/cluster.yaml" >"$work/low-mtu.yaml"
before=$(snapshot)
out=$(in_a "$ibsetup" apply "$work/low-mtu.yaml" --node n1 --lock-file "$work/lock" 2>&1); rc=$?
expect "mtu below 1280 with an IPv6 address: exit 3" "$rc" 3
has_v6=$(in_a ip -j -6 addr show ib0 | grep -c 'fd00:99::5')
expect "mtu below 1280: the IPv6 address stays" "$has_v6" 1
expect "mtu below 1280: nothing changed" "$(snapshot)" "$before"
grep -q "ib0: mtu 1000 is below 1280, the IPv6 minimum: the kernel would remove fd00:99::5/64" <<<"$out" &&
  ok "mtu below 1280: the error names the address" ||
  bad "mtu below 1280: the error names the address" "$out"

# 12b. Without an IPv6 address the lower MTU goes ahead, but the plan warns: the kernel's IPv6
# state of the interface (disable_ipv6, accept_ra) comes back as the defaults when the MTU
# rises again, a rollback's included, so a rollback cannot restore it.
fresh
out=$(in_a "$ibsetup" plan "$work/low-mtu.yaml" --node n1 2>&1)
grep -q "ib0: mtu 1000 is below 1280, the IPv6 minimum: the kernel takes IPv6 off ib0" <<<"$out" &&
  ok "mtu below 1280 without IPv6 addresses: warned" ||
  bad "mtu below 1280 without IPv6 addresses: warned" "$out"

# 13. Undoing "up" takes the link down, which flushes its IPv6 addresses: the rollback puts
# them back. ib1 is down with the wanted fd00:78::1/64 and an extra fd00:99::5/64 (which
# apply removes); SIGTERM once ib1 is up.
fresh
in_a ip addr add fd00:99::5/64 dev ib1 nodad
in_a ip addr add fd00:78::1/64 dev ib1 nodad
v6_of() { in_a ip -j -6 addr show ib1 scope global | grep -o '"local":"[^"]*"' | sort | tr '\n' ' '; }
v6_before=$(v6_of)
ip netns exec "$nsa" "$ibsetup" apply --step-delay-ms 600 "$work/cluster.yaml" --node n1 \
  --lock-file "$work/lock" >"$work/up.out" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "ib1 up.*ok" "$work/up.out" && break; sleep 0.1; done
kill -TERM "$pid"
wait "$pid"; rc=$?
expect "undo up: exit 7" "$rc" 7
expect "undo up: ib1's IPv6 addresses are back" "$(v6_of)" "$v6_before"
grep -q "FAILED" <<<"$(grep rollback "$work/up.out")" &&
  bad "undo up: every rollback step succeeds" "$(cat "$work/up.out")" ||
  ok "undo up: every rollback step succeeds"

# 14. A point-to-point address on a declared interface (`peer`, by a VPN or by hand): the kernel
# finds it only by its peer, so the delete is refused. ibsetup does not delete it by its peer
# (a rollback could not restore the peer): the error says what it is and how to remove it, and
# nothing is changed.
fresh
apply_a >/dev/null 2>&1
in_a ip addr add 10.99.0.7 peer 10.99.0.8 dev ib0
before=$(snapshot)
out=$(apply_a 2>&1); rc=$?
expect "peer address: apply exits 7" "$rc" 7
grep -qF "ib0: remove 10.99.0.7/32: the kernel refused: Cannot assign requested address (a point-to-point address with peer 10.99.0.8, which ibsetup does not remove since a rollback could not restore its peer; remove it with: ip address del 10.99.0.7 peer 10.99.0.8/32 dev ib0)" <<<"$out" &&
  ok "peer address: the error names the peer and the command" ||
  bad "peer address: the error names the peer and the command" "$out"
expect "peer address: nothing changed" "$(snapshot)" "$before"
in_a ip address del 10.99.0.7 peer 10.99.0.8/32 dev ib0
expect "peer address: the command given removes it" "$(in_a ip -j addr show ib0 | grep -c 10.99.0.7)" 0

echo "netns: $pass passed, $fail failed"
[ "$fail" = 0 ]
