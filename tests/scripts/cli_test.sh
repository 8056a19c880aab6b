#!/bin/bash
# Runs the built ibsetup binary as a user would and checks its output and exit codes.
set -u
bin=$1
src=$2
fail=0
pass=0
check() {  # check NAME EXPECTED_CODE PATTERN -- ARGS...
  local name=$1 want=$2 pattern=$3
  shift 4
  local out code
  out=$("$bin" "$@" 2>&1)
  code=$?
  if [ "$code" != "$want" ] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL $name: exit $code (want $want), output:"
    echo "$out" | head -20
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
}
check version 0 '^ibsetup [0-9]+\.[0-9]+\.[0-9]+$' -- --version
check help 0 'Exit codes:' -- --help
check no-subcommand 2 'Usage' --
check bad-option 2 'not expected|unknown|The following arguments' -- validate --frobnicate x
check validate-ok 0 'ok: 3 groups, 581 hosts' -- validate "$src/profiles/cluster-512.yaml"
check validate-missing 3 '^ibsetup: error: /nonexistent.yaml: cannot open the profile' -- validate /nonexistent.yaml
check validate-bad 3 'unknown-key.yaml:4:5: nodes\[0\].interfaec: unknown key' -- validate "$src/tests/data/profile/invalid/unknown-key.yaml"
check validate-json-bad 3 '"ok":false' -- validate --json "$src/tests/data/profile/invalid/unknown-key.yaml"
check validate-json-ok 0 '"ok":true,"groups":3' -- validate --json "$src/profiles/cluster-512.yaml"
check show-node 0 'ib0 +- +datagram' -- show "$src/profiles/lab.yaml" --node lab01
check show-json 0 '^\{"host":"lab02"' -- show --json "$src/profiles/lab.yaml" --node lab02
check show-unknown 3 "host 'nope' is not in any node group" -- show "$src/profiles/lab.yaml" --node nope
root=$(mktemp -d)
check render-create 0 'created  .*/etc/NetworkManager/system-connections/ibsetup-ib0.nmconnection' -- render "$src/profiles/lab.yaml" --node lab01 --root "$root"
check render-again 0 '^unchanged  .*ibsetup-ib0.8010.nmconnection' -- render "$src/profiles/lab.yaml" --node lab01 --root "$root"
check apply-offline-ifcfg 0 'created  .*/etc/sysconfig/network-scripts/ifcfg-ib0.8010' -- apply "$src/profiles/lab.yaml" --node lab01 --offline --root "$root" --format ifcfg --templates "$src/templates"
check render-hosts-json 0 '"path":"etc/hosts.ibsetup","result":"created"' -- render "$src/profiles/lab.yaml" --root "$root" --format hosts --json
check render-no-root 2 '--root DIR is required' -- render "$src/profiles/lab.yaml" --node lab01
rm -rf "$root"
echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
