#!/bin/bash
# The check command's own output rules: the profile's warnings on stderr as plan and apply
# print them (left out with -q), a report unchanged by them, and no rdma-check command (check
# runs the RDMA checks).
# Usage: check_cli_test.sh IBSETUP SOURCE_DIR
set -uo pipefail
ibsetup=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/expect.sh"
healthy=$src/tests/fixtures/sysfs/hdr-2hca
# A pkey child without the full-membership bit: the profile loads with one warning.
cp "$src/tests/data/check/cluster.yaml" "$work/cluster.yaml"
echo "      - {parent: ib0, pkey: 0x0001}" >>"$work/cluster.yaml"
line=$(grep -n 'pkey: 0x0001' "$work/cluster.yaml" | cut -d: -f1)

"$ibsetup" check "$work/cluster.yaml" --node hdr01 --sysfs-root "$healthy" >"$work/out" \
  2>"$work/err"
expect "warning: on stderr, in the profile's format" "$(cat "$work/err")" \
  "$work/cluster.yaml:$line:29: warning: nodes[0].interfaces[2].pkey: P_Key 0x0001 lacks the full-membership bit 0x8000; using 0x8001 as the kernel does"
expect "warning: not in the report" "$(grep -c 'full-membership' "$work/out")" 0
"$ibsetup" plan "$work/cluster.yaml" --node hdr01 --sysfs-root "$healthy" --no-firmware \
  >/dev/null 2>"$work/plan.err"
expect "warning: as plan prints it" "$(grep 'warning:' "$work/plan.err")" "$(cat "$work/err")"

for q in -q --quiet; do
  "$ibsetup" check "$work/cluster.yaml" --node hdr01 --sysfs-root "$healthy" "$q" \
    >"$work/out.q" 2>"$work/err"
  expect "$q: no warning" "$(cat "$work/err")" ""
  expect "$q: the same report" "$(diff "$work/out" "$work/out.q" && echo same)" same
done

"$ibsetup" check "$work/cluster.yaml" --node hdr01 --sysfs-root "$healthy" --json \
  >"$work/out" 2>"$work/err"
expect "--json: stdout is the report alone" \
  "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["host"])' <"$work/out")" hdr01
expect "--json: warning on stderr" "$(grep -c 'warning:' "$work/err")" 1

# The fleet recipe merges stderr into the lines `report` reads (clush ... 2>&1): the warning
# there is not a host's invalid output (the host fails: ib0.8001 does not exist in the tree).
summary=$("$ibsetup" check "$work/cluster.yaml" --node hdr01 --sysfs-root "$healthy" --json 2>&1 |
  sed 's/^/hdr01: /' | "$ibsetup" report | tail -1)
expect "--json 2>&1 | report: the warning is no invalid output" "$summary" \
  "fleet: FAILED: 1 host: 0 passed, 1 failed, 0 invalid output, 0 did not answer"

"$ibsetup" rdma-check "$work/cluster.yaml" --node hdr01 >/dev/null 2>&1
expect "rdma-check is gone: usage error" "$?" 2

echo "check_cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
