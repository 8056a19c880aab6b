#!/bin/bash
# ibsetup report over what the real clush prints for a simulated fleet: clush's exec mode runs
# one command per host locally (no ssh), %h being the host. node01-04 are healthy, node05-06
# have a port DOWN, node07-08 cannot reach a peer, node09 has old firmware, node10 a lower
# rate, node11 crashes with garbage (a byte that is not UTF-8 among it), node12 hangs (clush -u
# times it out), node13 is in the profile but not asked, node14 is unreachable (ssh's message,
# exit 255). Exit 77 (skipped) without clush.
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v clush >/dev/null 2>&1; then
  echo "SKIP: clush (ClusterShell) is not installed"
  exit 77
fi
tmp=$(mktemp -d)
# Ends the simulated hosts that hang, by the pids they wrote: clush's timeout does not.
stop_hung() {
  local f
  for f in "$tmp"/*.pid; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
    rm -f "$f"
  done
}
trap 'stop_hung; rm -rf "$tmp"' EXIT

# The command clush runs on each host. With `ibsetup check` (main), the real one is this line,
# given a sysfs tree per host under sysfs/ and HCA/port expectations in cluster.yaml:
# check_cmd=("$bin" check "$here/cluster.yaml" --json --node %h --sysfs-root "$here/sysfs/%h" --no-peers)
check_cmd=("$here/fake_check.sh" %h "$here/hosts" "$tmp")

fail=0
pass=0
ok() { pass=$((pass + 1)); }
bad() {
  echo "FAIL $*"
  fail=$((fail + 1))
}

# clush [clush options...]: runs the fleet; stdout then stderr into $tmp/in, so that each
# host's lines come in a fixed order (clush interleaves the two streams as they arrive).
run_clush() {
  clush -R exec -u 3 "$@" "${check_cmd[@]}" >"$tmp/out" 2>"$tmp/err" </dev/null
  cat "$tmp/out" "$tmp/err" >"$tmp/in"
  stop_hung
}

# expect NAME WANT_CODE EXPECTED_FILE -- report args...: stdout must equal the file.
expect() {
  local name=$1 want=$2 file=$3
  shift 4
  local code
  "$bin" report "$@" >"$tmp/got" 2>"$tmp/stderr"
  code=$?
  if [ "$code" != "$want" ]; then
    bad "$name: exit $code, want $want"
    cat "$tmp/stderr"
  elif ! diff -u "$file" "$tmp/got"; then
    bad "$name: output differs (above)"
  else
    ok
  fi
}

run_clush -w 'node[01-12,14]'
expect prefixed-text 5 "$here/expected.txt" -- --profile "$here/cluster.yaml" "$tmp/in"
expect prefixed-json 5 "$here/expected.json" -- --json --profile "$here/cluster.yaml" <"$tmp/in"
# The document is JSON, UTF-8 included (node11's stray byte is U+FFFD).
"$bin" report --json --profile "$here/cluster.yaml" "$tmp/in" >"$tmp/got.json"
if python3 -c 'import json, sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))' \
  "$tmp/got.json"; then ok; else bad "report --json is not valid UTF-8 JSON"; fi
# --expect gives the same hosts as the profile.
expect expect-hostlist 5 "$here/expected.txt" -- --expect 'node[01-14]' "$tmp/in"

# clush -N: no prefixes. Results name their host; node11's and node14's output names none, so
# all that is left of them is clush's exit-code line: they did not answer.
run_clush -N -w 'node[01-12,14]'
"$bin" report --expect 'node[01-14]' "$tmp/in" >"$tmp/got"
code=$?
last=$(tail -n 1 "$tmp/got")
want='fleet: FAILED: 14 hosts: 4 passed, 6 failed, 0 invalid output, 4 did not answer'
if [ "$code" = 5 ] && [ "$last" = "$want" ] &&
  grep -qxF '  "Segmentation fault (core dumped)"' "$tmp/got" &&
  grep -qxF '  node11: "clush: node11: exited with exit code 3"' "$tmp/got" &&
  grep -qxF '  "ssh: connect to host node14 port 22: Connection refused"' "$tmp/got"; then
  ok
else
  bad "bare lines (-N): exit $code, output:"
  cat "$tmp/got"
fi

# A healthy part of the fleet: exit 0.
run_clush -w 'node[01-04]'
"$bin" report --expect 'node[01-04]' "$tmp/in" >"$tmp/got"
code=$?
if [ "$code" = 0 ] && [ "$(tail -n 1 "$tmp/got")" = \
  'fleet: ok: 4 hosts: 4 passed, 0 failed, 0 invalid output, 0 did not answer' ]; then
  ok
else
  bad "healthy: exit $code"
  cat "$tmp/got"
fi

# Bad command lines and inputs.
code_of() {
  "$bin" report "$@" </dev/null >/dev/null 2>&1
  echo $?
}
expect_code() {  # expect_code NAME WANT report args...
  local name=$1 want=$2 got
  shift 2
  got=$(code_of "$@")
  if [ "$got" = "$want" ]; then ok; else bad "$name: exit $got, want $want"; fi
}
expect_code bad-expect 2 --expect 'node[01-'
expect_code missing-input 4 /nonexistent/in
expect_code empty-input 5

echo "clush report: $pass passed, $fail failed"
[ "$fail" = 0 ]
