#!/bin/bash
# The fleet path end to end: the real clush (exec mode, no ssh) runs the real
# `ibsetup check --json --node %h --sysfs-root TREE/%h` for twelve simulated hosts, and
# `ibsetup report` sums it up. Each host's tree is a copy of the hdr-2hca fixture with one
# fault: node01-04 healthy, node05-06 port 1 DOWN, node07-08 no subnet manager, node09 old
# firmware, node10 an EDR link, node11 a PCIe x8 link, node12 has no tree (check fails with an
# error, not a result); node13 is in the profile and not asked. Exit 77 without clush.
set -u
bin=$1 src=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
fleet_setup clush "clush (ClusterShell)"
for n in 01 02 03 04 05 06 07 08 09 10 11; do
  cp -a "$fixture" "$tmp/node$n"
done
for n in 05 06; do echo "1: DOWN" >"$tmp/node$n/$port/state"; echo "3: Disabled" >"$tmp/node$n/$port/phys_state"; done
for n in 07 08; do echo "0x0" >"$tmp/node$n/$port/sm_lid"; done
echo "20.28.1002" >"$tmp/node09/class/infiniband/mlx5_0/fw_ver"
echo "100 Gb/sec (4X EDR)" >"$tmp/node10/$port/rate"
echo "8" >"$tmp/node11/class/infiniband/mlx5_0/device/current_link_width"

clush -R exec -u 10 -w 'node[01-12]' "$bin" check "$here/check_cluster.yaml" --json --node %h \
  --sysfs-root "$tmp/%h" --no-peers >"$tmp/out" 2>"$tmp/err" </dev/null
cat "$tmp/out" "$tmp/err" >"$tmp/in"
expect "clush ran twelve checks, eleven printed a result" \
  "$(grep -c '^node[0-9]*: {"host"' "$tmp/out")" 11

"$bin" report --profile "$here/check_cluster.yaml" "$tmp/in" >"$tmp/raw"
expect "report: exit 5 (failures)" "$?" 5
sed "s|$tmp|TREE|g" "$tmp/raw" >"$tmp/report"
if [ -n "${IBSETUP_UPDATE_GOLDEN:-}" ]; then cp "$tmp/report" "$here/check_expected.txt"; fi
diff -u "$here/check_expected.txt" "$tmp/report" >"$tmp/diff"
expect "report: the summary (tests/fleet/check_expected.txt)" "$(cat "$tmp/diff")" ""
"$bin" report --json --profile "$here/check_cluster.yaml" "$tmp/in" >"$tmp/report.json"
expect "report --json: totals" "$(python3 -c "import json,sys; d=json.load(open('$tmp/report.json')); print(d['ok'], d['totals'])")" \
  "False {'hosts': 13, 'expected': 13, 'passed': 4, 'failed': 7, 'invalid': 1, 'no_answer': 1, 'unexpected': 0, 'unnamed_invalid': 0}"

clush -R exec -w 'node[01-04]' "$bin" check "$here/check_cluster.yaml" --json --node %h \
  --sysfs-root "$tmp/%h" --no-peers 2>&1 </dev/null | "$bin" report --expect 'node[01-04]' >"$tmp/ok"
expect "healthy part of the fleet: exit 0" "$?" 0
expect "healthy part of the fleet: summary" "$(tail -1 "$tmp/ok")" \
  "fleet: ok: 4 hosts: 4 passed, 0 failed, 0 invalid output, 0 did not answer"

# clush prints the names its group gives, here in full: each answers for the expected host
# of its short name, as --expect and the profile name them.
cat >"$tmp/short.sh" <<SCRIPT
#!/bin/sh
exec "$bin" check "$here/check_cluster.yaml" --json --node "\${1%%.*}" \\
  --sysfs-root "$tmp/\${1%%.*}" --no-peers
SCRIPT
chmod +x "$tmp/short.sh"
clush -R exec -w 'node[01-04].site' "$tmp/short.sh" %h </dev/null >"$tmp/full.in" 2>&1
expect "full names: clush prefixed them" "$(grep -c '^node0[1-4]\.site: {"host":"node0[1-4]"' "$tmp/full.in")" 4
"$bin" report --expect 'node[01-04]' "$tmp/full.in" >"$tmp/full"
expect "full names: exit 0" "$?" 0
expect "full names: summary" "$(tail -1 "$tmp/full")" \
  "fleet: ok: 4 hosts: 4 passed, 0 failed, 0 invalid output, 0 did not answer"

# clush -N, the same full names: a result names its host short (its own `host`), clush's
# exit-code line of a failing host names it in full. They are one host that failed, not a
# host that failed and one that did not answer.
clush -N -R exec -w 'node[01-06].site' "$tmp/short.sh" %h </dev/null >"$tmp/bare.in" 2>&1
expect "-N: two exit-code lines in full" \
  "$(grep -c '^clush: node0[56]\.site: exited with exit code 5$' "$tmp/bare.in")" 2
for e in 'node[01-06]' 'node[01-06].site'; do
  "$bin" report --expect "$e" "$tmp/bare.in" >"$tmp/bare"
  expect "-N, --expect $e: exit 5" "$?" 5
  expect "-N, --expect $e: summary" "$(tail -1 "$tmp/bare")" \
    "fleet: FAILED: 6 hosts: 4 passed, 2 failed, 0 invalid output, 0 did not answer"
  expect "-N, --expect $e: the failures" "$(grep -c "^  2 hosts  ${e%%\[*}\[05-06\]${e#*\]}  port.state" "$tmp/bare")" 1
done

echo "clush check: $pass passed, $fail failed"
[ "$fail" = 0 ]
