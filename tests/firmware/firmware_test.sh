#!/bin/bash
# ibsetup's firmware link-type step against the fake mstconfig (tests/firmware/fake_mstconfig)
# over the sysfs fixtures: show, apply, re-apply, pending reboot, timeout, failures.
# Usage: firmware_test.sh IBSETUP SOURCE_DIR
set -u
bin=$1
src=$2
fixtures=$src/tests/fixtures/sysfs
work=$(mktemp -d)
fail=0
pass=0
trap 'if [ "$fail" = 0 ]; then rm -rf "$work"; else echo "kept $work"; fi' EXIT

ok() { pass=$((pass + 1)); }
bad() {
  echo "FAIL $1"
  [ $# -gt 1 ] && echo "$2" | head -30
  fail=$((fail + 1))
}
expect_code() { [ "$2" = "$3" ] && ok || bad "$1: exit $2, want $3" "$out"; }
expect_grep() { grep -qE -- "$2" <<<"$3" && ok || bad "$1: no /$2/" "$3"; }
expect_no_grep() { grep -qE -- "$2" <<<"$3" && bad "$1: unexpected /$2/" "$3" || ok; }

# ibsetup gives mstconfig a clean environment, so the fake's settings are baked into a wrapper.
# fake [VAR=VALUE...]: writes $work/mstconfig for this scenario and resets its log.
fake() {
  {
    echo '#!/bin/sh'
    echo "env > '$work/env.log'"
    echo "export FAKE_MSTCONFIG_STATE='$work/state' FAKE_MSTCONFIG_LOG='$work/log'"
    for kv in "$@"; do echo "export $kv"; done
    echo "exec python3 '$src/tests/firmware/fake_mstconfig' \"\$@\""
  } >"$work/mstconfig"
  chmod +x "$work/mstconfig"
  rm -f "$work/log" "$work/env.log" "$work/state/.after-set"
}
# state PCI P1 [P2]: the device's next-boot link types.
state() {
  mkdir -p "$work/state"
  local pci=$1
  shift
  : >"$work/state/$pci"
  local n=1
  for t in "$@"; do
    echo "LINK_TYPE_P$n=$t" >>"$work/state/$pci"
    n=$((n + 1))
  done
}
log() { cat "$work/log" 2>/dev/null; }
# Where the reboot marker goes (--reboot-marker, a hidden option for tests).
marker_file=$work/run/reboot-required
export LEAK_CHECK=must-not-reach-mstconfig
fw() {
  "$bin" firmware "$@" --mstconfig "$work/mstconfig" --lock-file "$work/lock" \
    --reboot-marker "${fw_marker:-$marker_file}" 2>&1
}

cp "$src/tests/data/firmware/two.yaml" "$src/tests/data/firmware/vpi.yaml" "$work/"
cat >"$work/eth.yaml" <<'EOF'
version: 1
nodes:
  - hosts: "e1"
    hcas:
      - device: mlx5_0
        link_type: ib
        ports:
          - {port: 2, link_type: eth}
    interfaces:
      - {name: ib0, device: mlx5_0, port: 1}
      - {name: ib1, device: mlx5_0, port: 2}
EOF
cp "$src/tests/data/firmware/none.yaml" "$work/"
two=(--node n1 --sysfs-root "$fixtures/hdr-2hca")
vpi=(--node v1 --sysfs-root "$fixtures/vpi-eth-port")

# 1. show: one port differs; only queries run, one per HCA, naming the host's ports.
fake
state 0000:3b:00.0 ETH
state 0000:86:00.0 IB
out=$(fw "$work/two.yaml" "${two[@]}"); code=$?
expect_code "show" "$code" 0
expect_grep "show: the change" '~ mlx5_0 port 1 \(0000:3b:00.0\): next boot ETH -> IB, running InfiniBand' "$out"
expect_grep "show: unchanged port" '^    mlx5_1 port 1 \(0000:86:00.0\): IB, running InfiniBand' "$out"
expect_grep "show: queries" '^argv: -d 0000:3b:00.0 query LINK_TYPE_P1$' "$(log)"
expect_no_grep "show: no set" 'set' "$(log)"
env_seen=$(grep -v '^PWD=' "$work/env.log" | sort | tr '\n' ' ')
[ "$env_seen" = "LC_ALL=C PATH=/usr/sbin:/usr/bin:/sbin:/bin " ] && ok || bad "clean environment" "$env_seen"
out=$(fw "$work/two.yaml" "${two[@]}" --json)
expect_grep "show --json" '^\{"host":"n1","declared":true,"queried":true,"devices":\[\{"device":"mlx5_0","pci":"0000:3b:00.0","ports":\[\{"port":1,"desired":"ib","next_boot":"eth","running":"InfiniBand","change":true,"reboot_pending":true\}\]\}' "$out"
expect_grep "show --json counts" '"changes":1,"reboot_required":true,"applied":false,"done":\[\],"failure":null' "$out"

# 2. apply: only the differing port is set (with -y), then queried again; the running port
#    already is InfiniBand, so no reboot is owed.
rm -f "$work/log"
out=$(fw "$work/two.yaml" "${two[@]}" --apply); code=$?
expect_code "apply" "$code" 0
expect_grep "apply: set" '^argv: -y -d 0000:3b:00.0 set LINK_TYPE_P1=1$' "$(log)"
expect_no_grep "apply: nothing set on mlx5_1" 'set.*0000:86:00.0' "$(log)"
[ "$(grep -c '^argv: -d 0000:3b:00.0 query' "$work/log")" = 2 ] && ok || bad "apply: confirmed by a second query" "$(log)"
expect_grep "apply: report" 'set mlx5_0 port 1 \(0000:3b:00.0\) LINK_TYPE_P1 ETH -> IB \(confirmed' "$out"
expect_grep "apply: state" 'LINK_TYPE_P1=IB' "$(cat "$work/state/0000:3b:00.0")"
[ ! -e "$marker_file" ] && ok || bad "apply: no marker when no reboot is owed"

# 3. re-apply: 0 changes, no set.
rm -f "$work/log"
out=$(fw "$work/two.yaml" "${two[@]}" --apply --json); code=$?
expect_code "re-apply" "$code" 0
expect_grep "re-apply: 0 changes" '"changes":0,"reboot_required":false,"applied":true,"done":\[\]' "$out"
expect_no_grep "re-apply: no set" 'set' "$(log)"

# 4. pending reboot: port 2 runs Ethernet; setting it to IB owes a reboot (exit 9, marker).
fake
state 0000:5e:00.0 IB ETH
out=$(fw "$work/vpi.yaml" "${vpi[@]}" --apply); code=$?
expect_code "reboot" "$code" 9
expect_grep "reboot: set only port 2" '^argv: -y -d 0000:5e:00.0 set LINK_TYPE_P2=1$' "$(log)"
expect_grep "reboot: message" 'reboot required' "$out"
marker=$(cat "$marker_file" 2>/dev/null)
expect_grep "reboot: marker lists the device" '^mlx5_0 0000:5e:00.0 LINK_TYPE_P2=IB \(running Ethernet\)$' "$marker"
expect_grep "reboot: marker header" '^# Managed by ibsetup' "$marker"
[ "$(stat -c %a "$marker_file")" = 644 ] && ok || bad "reboot: marker mode"
# Again: the change is already pending; reported, not re-applied.
rm -f "$work/log"
out=$(fw "$work/vpi.yaml" "${vpi[@]}" --apply); code=$?
expect_code "pending" "$code" 9
expect_no_grep "pending: no set" 'set' "$(log)"
expect_grep "pending: reported" '! mlx5_0 port 2 \(0000:5e:00.0\): next boot IB, running Ethernet: pending, reboot required' "$out"
out=$(fw "$work/vpi.yaml" "${vpi[@]}" --json); code=$?
expect_code "pending show exits 0" "$code" 0
expect_grep "pending show --json" '"reboot_required":true' "$out"
# The line of a device this run does not look at (another profile's HCA; here the VPI card's)
# stays until the host reboots and empties /run: a run with a profile that declares other
# HCAs used to remove it. Once nothing is owed, a stale marker is removed.
fake
state 0000:3b:00.0 IB
state 0000:86:00.0 IB
out=$(fw "$work/two.yaml" "${two[@]}" --apply); code=$?
expect_code "in sync" "$code" 0
expect_grep "in sync: another device's line kept" '^mlx5_0 0000:5e:00.0 LINK_TYPE_P2=IB \(running Ethernet\)$' \
  "$(cat "$marker_file" 2>&1)"
printf '%s\n%s\n%s\n' "$(head -1 "$marker_file")" '# Firmware link types change.' \
  'mlx5_0 0000:3b:00.0 LINK_TYPE_P1=ETH (running InfiniBand)' >"$marker_file"
out=$(fw "$work/two.yaml" "${two[@]}" --apply); code=$?
expect_code "in sync again" "$code" 0
[ ! -e "$marker_file" ] && ok || bad "stale marker removed" "$(cat "$marker_file")"
# A file at the marker's path that ibsetup did not write is left alone.
echo "site notes" >"$marker_file"
out=$(fw "$work/two.yaml" "${two[@]}" --apply); code=$?
expect_code "foreign file at the marker path: in sync" "$code" 0
[ "$(cat "$marker_file")" = "site notes" ] && ok || bad "foreign file at the marker path removed"
rm -f "$marker_file"
# The marker's directory may be reached through a symlink (/var/run -> /run).
mkdir -p "$work/real-run" && ln -s real-run "$work/var-run"
fake
state 0000:5e:00.0 IB ETH
out=$(fw_marker=$work/var-run/ibsetup/reboot-required fw "$work/vpi.yaml" "${vpi[@]}" --apply); code=$?
expect_code "marker through a symlinked directory: reboot" "$code" 9
expect_grep "marker through a symlinked directory: written" 'LINK_TYPE_P2=IB' "$(cat "$work/real-run/ibsetup/reboot-required" 2>/dev/null)"
# A marker path that is a symlink is refused, but the set is made by then: the report still
# says what was done, and the exit is 4 with the marker named.
ln -s "$work/elsewhere" "$work/link-marker"
fake
state 0000:5e:00.0 IB ETH
out=$(fw_marker=$work/link-marker fw "$work/vpi.yaml" "${vpi[@]}" --apply --json); code=$?
expect_code "marker is a symlink: exit 4" "$code" 4
expect_grep "marker is a symlink: the report is printed" '"done":\[\{"device":"mlx5_0","pci":"0000:5e:00.0","port":2' "$out"
expect_grep "marker is a symlink: named in the failure" 'the reboot marker: .*link-marker' "$out"
[ ! -e "$work/elsewhere" ] && ok || bad "marker is a symlink: its target was written"
fake
state 0000:3b:00.0 IB
state 0000:86:00.0 IB

# 5. timeout: a hung mstconfig is killed (its whole process group) and reported.
fake FAKE_MSTCONFIG_HANG=query
start=$(date +%s)
out=$(fw "$work/two.yaml" "${two[@]}" --apply --mstconfig-timeout-ms 1000); code=$?
elapsed=$(($(date +%s) - start))
expect_code "timeout" "$code" 4
expect_grep "timeout: reported" 'query LINK_TYPE_P1 did not finish within 1 s and was killed' "$out"
[ "$elapsed" -lt 20 ] && ok || bad "timeout: took ${elapsed}s"
expect_no_grep "timeout: nothing set" 'set' "$(log)"
fake FAKE_MSTCONFIG_HANG=set
state 0000:3b:00.0 ETH
out=$(fw "$work/two.yaml" "${two[@]}" --apply --mstconfig-timeout-ms 1000); code=$?
expect_code "timeout in set" "$code" 4
expect_grep "timeout in set: reported" 'mlx5_0 \(0000:3b:00.0\): .*set LINK_TYPE_P1=1 did not finish within 1 s and was killed; no change was confirmed' "$out"
# SIGTERM (Slurm, systemd, an Ansible timeout) or a dropped ssh session while mstconfig hangs:
# mstconfig runs in its own process group, which `kill PID` does not reach, so ibsetup kills it
# before it dies of the signal: a query at once, a set (a write not to cut short) once its
# timeout is up. (Not SIGINT: a background job of a script ignores it.)
for case in TERM:query HUP:query TERM:set; do
  sig=${case%:*}
  fake FAKE_MSTCONFIG_HANG="${case#*:}"
  state 0000:3b:00.0 ETH
  "$bin" firmware "$work/two.yaml" "${two[@]}" --apply --mstconfig "$work/mstconfig" \
    --mstconfig-timeout-ms 5000 --lock-file "$work/lock" --reboot-marker "$marker_file" \
    >"$work/signal.out" 2>&1 &
  ib=$!
  hung=""
  for _ in $(seq 200); do
    hung=$(sed -n 's/^hang pid: //p' "$work/log" 2>/dev/null)
    [ -n "$hung" ] && break
    sleep 0.05
  done
  kill -s "$sig" "$ib"
  if [ "${case#*:}" = set ]; then
    sleep 0.5
    kill -0 "$hung" 2>/dev/null && ok || bad "SIG$sig during a set: mstconfig was not let finish"
  fi
  wait "$ib"
  code=$?
  expect_code "SIG$sig while mstconfig hangs in $case: ibsetup ends by it" "$code" $((128 + $(kill -l "$sig")))
  # Said before the end: a query cut short, or the set's report.
  if [ "${case#*:}" = query ]; then
    expect_grep "SIG$sig while mstconfig hangs in $case: said" \
      '^ibsetup: error: .*mstconfig was stopped: this process received signal' "$(cat "$work/signal.out")"
  else
    expect_grep "SIG$sig while mstconfig hangs in $case: the report" \
      'set LINK_TYPE_P1=1 did not finish within 5 s' "$(cat "$work/signal.out")"
  fi
  if [ -z "$hung" ]; then
    bad "SIG$sig while mstconfig hangs in $case: the fake never hung" "$(log)"
  elif kill -0 "$hung" 2>/dev/null; then
    bad "SIG$sig while mstconfig hangs in $case: mstconfig (pid $hung) outlived ibsetup"
    kill -KILL "$hung"
  else
    ok
  fi
done

# SIGTERM while a slow set writes the first of two cards: the set finishes, the second query
# confirms it, the marker names it, the second card is left as it is, and only then does the
# signal end ibsetup. It used to die right after the set: a changed card and no marker.
sed 's/link_type: ib/link_type: eth/' "$work/two.yaml" >"$work/two-eth.yaml"
# slow_set_sigterm STDOUT [ARG...]: both cards IB, a set that takes 2 s, SIGTERM once the first
# set has begun; ibsetup's stdout goes to STDOUT, its stderr to $work/signal.out, its exit
# status to $code.
slow_set_sigterm() {
  local stdout=$1
  shift
  fake FAKE_MSTCONFIG_SLOW_SET=2
  state 0000:3b:00.0 IB
  state 0000:86:00.0 IB
  rm -f "$marker_file"
  "$bin" firmware "$work/two-eth.yaml" "${two[@]}" --apply "$@" --mstconfig "$work/mstconfig" \
    --lock-file "$work/lock" --reboot-marker "$marker_file" >"$stdout" 2>"$work/signal.out" &
  local ib=$!
  for _ in $(seq 200); do
    grep -q '^set pid: ' "$work/log" 2>/dev/null && break
    sleep 0.05
  done
  kill -s TERM "$ib"
  wait "$ib"
  code=$?
}
slow_set_sigterm "$work/signal.stdout"
expect_code "SIGTERM in a slow set: ibsetup ends by it" "$code" 143
expect_grep "SIGTERM in a slow set: the set finished" '^set done$' "$(log)"
expect_grep "SIGTERM in a slow set: confirmed by a second query" \
  'set done.argv: -d 0000:3b:00.0 query LINK_TYPE_P1' "$(log | tr '\n' '.')"
expect_grep "SIGTERM in a slow set: the first card changed" 'LINK_TYPE_P1=ETH' \
  "$(cat "$work/state/0000:3b:00.0")"
expect_grep "SIGTERM in a slow set: the second card left" 'LINK_TYPE_P1=IB' \
  "$(cat "$work/state/0000:86:00.0")"
expect_grep "SIGTERM in a slow set: the marker names the change" 'mlx5_0 0000:3b:00.0 LINK_TYPE_P1=ETH' \
  "$(cat "$marker_file" 2>&1)"
expect_no_grep "SIGTERM in a slow set: the marker does not name the card left" '0000:86:00.0' \
  "$(cat "$marker_file" 2>&1)"
# The report reaches standard output before the signal ends ibsetup (it used to die without
# one), and the error names the card left.
expect_grep "SIGTERM in a slow set: the report" \
  '^  failed: mlx5_1 \(0000:86:00.0\): not set: interrupted \(SIGTERM\)$' "$(cat "$work/signal.stdout")"
expect_grep "SIGTERM in a slow set: the report's change" \
  '^  set mlx5_0 port 1 \(0000:3b:00.0\) LINK_TYPE_P1 IB -> ETH \(confirmed' "$(cat "$work/signal.stdout")"
expect_grep "SIGTERM in a slow set: the error" \
  '^ibsetup: error: firmware: mlx5_1 \(0000:86:00.0\): not set: interrupted \(SIGTERM\); the changes listed above were made' \
  "$(cat "$work/signal.out")"
# The same with a standard output that cannot be written: the lost report is said on standard
# error before the signal ends ibsetup.
slow_set_sigterm /dev/full --json
expect_code "SIGTERM in a slow set, output lost: ibsetup ends by it" "$code" 143
expect_grep "SIGTERM in a slow set, output lost: said" \
  '^ibsetup: error: cannot write to standard output: No space left on device' "$(cat "$work/signal.out")"
rm -f "$marker_file"

# SIGTERM while `firmware --apply --wait` waits for the lock another run holds: nothing is
# queried or set, an error says so, and the signal then ends ibsetup (it used to end it
# without a word).
holds_open() { # PID FILE: whether PID has FILE open
  local fd
  for fd in "/proc/$1/fd/"*; do
    [ "$(readlink "$fd" 2>/dev/null)" = "$2" ] && return 0
  done
  return 1
}
# lock_wait_sigterm NAME [PREFIX...]: the case above, ibsetup run under PREFIX (the signal goes
# to ibsetup itself, the last process of the chain PREFIX starts).
lock_wait_sigterm() {
  local name=$1
  shift
  fake
  state 0000:3b:00.0 ETH
  : >"$work/lock"
  (
    exec 9>"$work/lock"
    flock 9
    echo "$BASHPID" >&9
    exec sleep 30
  ) &
  local holder=$!
  for _ in $(seq 250); do flock -n "$work/lock" true || break; sleep 0.02; done
  "$@" "$bin" firmware "$work/two.yaml" "${two[@]}" --apply --wait 30 \
    --mstconfig "$work/mstconfig" --lock-file "$work/lock" --reboot-marker "$marker_file" \
    >"$work/signal.out" 2>&1 &
  local runner=$! ib=$!
  for _ in $(seq 500); do
    while [ -n "$(pgrep -P "$ib")" ]; do ib=$(pgrep -P "$ib" | head -1); done
    holds_open "$ib" "$work/lock" && break
    sleep 0.02
  done
  kill -s TERM "$ib"
  wait "$runner"
  code=$?
  kill "$holder"
  wait "$holder" 2>/dev/null
  out=$(cat "$work/signal.out")
  expect_code "$name: ibsetup ends by it" "$code" 143
  expect_grep "$name: said" \
    "^ibsetup: error: stopped while waiting for $work/lock \\(held by pid $holder\\); nothing was changed$" "$out"
  expect_no_grep "$name: mstconfig not run" '.' "$(log)"
  expect_grep "$name: the card left" 'LINK_TYPE_P1=ETH' "$(cat "$work/state/0000:3b:00.0")"
}
lock_wait_sigterm "SIGTERM waiting for the lock"
# The first process of a PID namespace (a container's init) does not die of a signal it raises
# itself: ibsetup then exits 143 all the same, as a process ended by it (it used to exit 7).
if unshare --pid --fork true 2>/dev/null; then
  lock_wait_sigterm "SIGTERM waiting for the lock, ibsetup as PID 1" unshare --pid --fork
else
  echo "skip: unshare --pid does not work here"
fi

# The confirming query fails after mstconfig accepted a set: the card most likely changed, so
# the marker counts it (it used to list nothing, and removed an earlier marker).
fake FAKE_MSTCONFIG_FAIL_AFTER_SET=1
state 0000:3b:00.0 IB
state 0000:86:00.0 IB
out=$(fw "$work/two-eth.yaml" "${two[@]}" --apply); code=$?
expect_code "lost confirmation" "$code" 4
expect_grep "lost confirmation: said" 'querying it again failed: .*; the reboot marker counts the change as made' "$out"
expect_grep "lost confirmation: the marker lists it" '^mlx5_0 0000:3b:00.0 LINK_TYPE_P1=ETH \(running InfiniBand\)$' \
  "$(cat "$marker_file" 2>&1)"
rm -f "$marker_file"
# A set that wrote port 2 and not port 1: port 2 is recorded and marked, and port 1 is the
# failure (the first port's mismatch used to end the card before port 2 was read).
# vpi.yaml with port 1 Ethernet and ib0 on port 2.
sed -e '0,/link_type: ib/s//link_type: eth/' -e 's/port: 1}$/port: 2}/' "$work/vpi.yaml" \
  >"$work/vpi-mixed.yaml"
fake FAKE_MSTCONFIG_IGNORE_SET=LINK_TYPE_P1
state 0000:5e:00.0 IB ETH
out=$(fw "$work/vpi-mixed.yaml" "${vpi[@]}" --apply --json); code=$?
expect_code "half a set" "$code" 4
expect_grep "half a set: port 1 is the failure" 'port 1: mstconfig accepted ETH but the next boot still shows IB' "$out"
expect_grep "half a set: port 2 recorded" '"done":\[\{[^]]*"port":2' "$out"
expect_grep "half a set: port 2 marked" '^mlx5_0 0000:5e:00.0 LINK_TYPE_P2=IB \(running Ethernet\)$' \
  "$(cat "$marker_file" 2>&1)"
rm -f "$marker_file"

# 6. failure mid-way over two HCAs: the first change is reported as done and stays.
fake FAKE_MSTCONFIG_FAIL=set:0000:86:00.0
state 0000:3b:00.0 ETH
state 0000:86:00.0 ETH
out=$(fw "$work/two.yaml" "${two[@]}" --apply); code=$?
expect_code "mid-way" "$code" 4
expect_grep "mid-way: first done" 'set mlx5_0 port 1 \(0000:3b:00.0\) LINK_TYPE_P1 ETH -> IB \(confirmed' "$out"
expect_grep "mid-way: failure named" 'error: firmware: mlx5_1 \(0000:86:00.0\): mstconfig cannot open the device 0000:86:00.0: -E- Failed to open the device \(exit status 3\).*the changes listed above were made and stay' "$out"
expect_grep "mid-way: first really set" 'LINK_TYPE_P1=IB' "$(cat "$work/state/0000:3b:00.0")"
state 0000:3b:00.0 ETH
out=$("$bin" firmware "$work/two.yaml" "${two[@]}" --apply --json --mstconfig "$work/mstconfig" --lock-file "$work/lock" --reboot-marker "$marker_file" 2>/dev/null)
expect_grep "mid-way --json" '"done":\[\{"device":"mlx5_0","pci":"0000:3b:00.0","port":1,"from":"eth","to":"ib"\}\],"failure":"mlx5_1 \(0000:86:00.0\): mstconfig cannot open' "$out"
# A query failure on the second HCA stops everything before the first is set.
fake FAKE_MSTCONFIG_FAIL=query:0000:86:00.0
state 0000:3b:00.0 ETH
out=$(fw "$work/two.yaml" "${two[@]}" --apply); code=$?
expect_code "query all first" "$code" 4
expect_no_grep "query all first: nothing set" 'set' "$(log)"
# A set that mstconfig says it did but the next query does not show is not reported as done.
fake FAKE_MSTCONFIG_IGNORE_SET=1
state 0000:86:00.0 IB
out=$(fw "$work/two.yaml" "${two[@]}" --apply); code=$?
expect_code "unconfirmed" "$code" 4
expect_grep "unconfirmed: reported" 'mstconfig accepted IB but the next boot still shows ETH' "$out"

# 7. specific errors.
out=$("$bin" firmware "$work/two.yaml" "${two[@]}" --mstconfig "$work/no-such-mstconfig" 2>&1); code=$?
expect_code "not installed" "$code" 4
expect_grep "not installed: names the package" 'mstflint' "$out"
expect_grep "not installed: says it is missing" 'no-such-mstconfig: No such file or directory \(--mstconfig\)' "$out"
# A path that is there but is no program says which (it said "no such executable").
touch "$work/not-a-program"
chmod 644 "$work/not-a-program"
out=$("$bin" firmware "$work/two.yaml" "${two[@]}" --mstconfig "$work/not-a-program" 2>&1); code=$?
expect_code "not executable" "$code" 4
expect_grep "not executable: says so" 'not-a-program: is not executable \(--mstconfig\)' "$out"
out=$("$bin" firmware "$work/two.yaml" "${two[@]}" --mstconfig "$work" 2>&1); code=$?
expect_code "a directory" "$code" 4
expect_grep "a directory: says so" ': is a directory, not a program \(--mstconfig\)' "$out"
fake
rm -rf "$work/state"
state 0000:86:00.0 IB
out=$(fw "$work/two.yaml" "${two[@]}"); code=$?
expect_code "cannot open" "$code" 4
expect_grep "cannot open" 'mstconfig cannot open the device 0000:3b:00.0: -E- Failed to open the device \(exit status 3\); is there' "$out"
fake FAKE_MSTCONFIG_SEMAPHORE=1
out=$(fw "$work/two.yaml" "${two[@]}"); code=$?
expect_code "secure boot" "$code" 4
expect_grep "secure boot hint" 'Failed to open the device.*Secure Boot' "$out"
fake
echo unsupported >"$work/state/0000:3b:00.0"
out=$(fw "$work/two.yaml" "${two[@]}"); code=$?
expect_code "unsupported" "$code" 4
expect_grep "unsupported" 'mstconfig does not support the adapter at 0000:3b:00.0: -E- Unsupported device' "$out"
echo "SRIOV_EN=True" >"$work/state/0000:3b:00.0"
out=$(fw "$work/two.yaml" "${two[@]}"); code=$?
expect_code "fixed link type" "$code" 4
expect_grep "fixed link type" 'link type is fixed on this adapter: 0000:3b:00.0' "$out"
state 0000:3b:00.0 IB
fake FAKE_MSTCONFIG_FORMAT=garbage
out=$(fw "$work/two.yaml" "${two[@]}"); code=$?
expect_code "unparseable" "$code" 4
expect_grep "unparseable: quotes the line" "not understood: 'Konfiguration ungueltig: LINK_TYPE_P1 \?\?\?'" "$out"
fake FAKE_MSTCONFIG_FORMAT=garbage-error
out=$(fw "$work/two.yaml" "${two[@]}"); code=$?
expect_code "unparseable and failed" "$code" 4
expect_grep "unparseable and failed: keeps mstconfig's own error" '\(exit status 1\): -E- Failed to query device: Resource temporarily unavailable; ' "$out"
# Ambiguous answers are not trusted: about another adapter, or a parameter listed twice.
fake FAKE_MSTCONFIG_FORMAT=other-device
out=$(fw "$work/two.yaml" "${two[@]}"); code=$?
expect_code "answer about another device" "$code" 4
expect_grep "answer about another device: named" 'mstconfig answered for device 0000:99:00.0, not 0000:3b:00.0; not trusted' "$out"
fake FAKE_MSTCONFIG_FORMAT=repeated
out=$(fw "$work/two.yaml" "${two[@]}"); code=$?
expect_code "parameter listed twice" "$code" 4
expect_grep "parameter listed twice: the line quoted" "not understood: '         LINK_TYPE_P1 .*ETH\(2\)" "$out"
# Nothing at all with exit status 0 says nothing about the card: not "fixed link type".
# LINK_TYPE listed, but no Next Boot column: not a "fixed link type" (it used to say so).
fake FAKE_MSTCONFIG_FORMAT=current-only
out=$(fw "$work/two.yaml" "${two[@]}"); code=$?
expect_code "no Next Boot column" "$code" 4
expect_grep "no Next Boot column: says so" 'listed LINK_TYPE but no Next Boot column \(columns: Default, Current\); not trusted' "$out"
expect_no_grep "no Next Boot column: not called fixed" 'is fixed' "$out"
fake FAKE_MSTCONFIG_FORMAT=silent
out=$(fw "$work/two.yaml" "${two[@]}"); code=$?
expect_code "silent query" "$code" 4
expect_grep "silent query: not trusted" '0000:3b:00.0 query LINK_TYPE_P1: mstconfig exited 0 but printed no configuration \(no output\); not trusted' "$out"
expect_no_grep "silent query: not called fixed" 'fixed on this adapter' "$out"
fake
out=$(fw "$work/two.yaml" --node n1 --sysfs-root "$fixtures/hfi1-mlx4-mlx5-class-only"); code=$?
expect_code "no pci" "$code" 4
expect_grep "no pci" 'mlx5_0 has no PCI address' "$out"
out=$(fw "$work/two.yaml" --node n1 --sysfs-root "$fixtures/mlx4-connectx3"); code=$?
expect_code "hca not on host" "$code" 3
expect_grep "hca not on host" "HCA mlx5_0 is not on this host" "$out"

# 8. the output formats of other mstflint/MFT versions.
for format in mft-old sysfs tabs extended grep; do
  fake FAKE_MSTCONFIG_FORMAT=$format
  state 0000:3b:00.0 ETH
  state 0000:86:00.0 IB
  out=$(fw "$work/two.yaml" "${two[@]}" --json); code=$?
  expect_code "format $format" "$code" 0
  expect_grep "format $format" '"changes":1,' "$out"
done

# 9. no link_type in the profile: mstconfig is never run.
fake
out=$(fw "$work/none.yaml" "${two[@]}"); code=$?
expect_code "no link_type" "$code" 0
expect_grep "no link_type" 'declares no link_type for n1' "$out"
[ ! -e "$work/log" ] && ok || bad "no link_type: mstconfig was run"

# 10. IPoIB declared on a port that is or will be Ethernet.
state 0000:5e:00.0 IB ETH
out=$(fw "$work/eth.yaml" --node e1 --sysfs-root "$fixtures/vpi-eth-port"); code=$?
expect_grep "eth warning" 'warning: ib1: IPoIB is declared on mlx5_0 port 2, whose link type the profile sets to eth' "$out"
state 0000:5e:00.0 ETH ETH
out=$(fw "$work/vpi.yaml" "${vpi[@]}")
expect_grep "eth next boot warning" 'warning: ib0: IPoIB is declared on mlx5_0 port 1, whose link type is ETH in the firmware for the next boot' "$out"
# The warning goes to standard error through the one printer of warnings, which -q silences;
# plan --json, which has no firmware section, carries it in its warnings (it explains exit 6).
out=$("$bin" firmware "$work/vpi.yaml" "${vpi[@]}" --mstconfig "$work/mstconfig" 2>/dev/null)
expect_no_grep "eth next boot warning: not on stdout" 'warning' "$out"
out=$(fw "$work/vpi.yaml" "${vpi[@]}" -q)
expect_no_grep "eth next boot warning: -q silences it" 'warning' "$out"
out=$("$bin" plan "$work/vpi.yaml" "${vpi[@]}" --mstconfig "$work/mstconfig" --json -q 2>&1)
expect_grep "eth next boot warning: in plan --json" '"warnings":\["ib0: IPoIB is declared on mlx5_0 port 1, whose link type is ETH in the firmware for the next boot' "$out"
out=$(fw "$work/vpi.yaml" "${vpi[@]}" --apply)
expect_grep "eth next boot warning, set: the port is set" 'set mlx5_0 port 1 \(0000:5e:00.0\) LINK_TYPE_P1 ETH -> IB' "$out"
expect_no_grep "eth next boot warning, set: gone" 'whose link type is ETH in the firmware' "$out"

# 11. plan shows the firmware part; --detailed-exitcode counts it; --no-firmware skips it.
state 0000:3b:00.0 ETH
state 0000:86:00.0 IB
out=$("$bin" plan "$work/two.yaml" "${two[@]}" --mstconfig "$work/mstconfig" --detailed-exitcode 2>&1); code=$?
expect_code "plan" "$code" 6
expect_grep "plan: firmware section" '~ mlx5_0 port 1 \(0000:3b:00.0\): next boot ETH -> IB' "$out"
# The plan lost (a full disk): 6 ("changes pending") would read as news, so 4 says it was lost.
lost=$("$bin" plan "$work/two.yaml" "${two[@]}" --mstconfig "$work/mstconfig" --detailed-exitcode 2>&1 >/dev/full); code=$?
expect_code "plan to a full disk" "$code" 4
expect_grep "plan to a full disk: said" '^ibsetup: error: cannot write to standard output' "$lost"
out=$("$bin" plan "$work/two.yaml" "${two[@]}" --mstconfig "$work/mstconfig" --no-firmware 2>&1)
expect_no_grep "plan --no-firmware" 'firmware' "$out"
out=$("$bin" plan "$work/two.yaml" "${two[@]}" 2>&1)
expect_grep "plan on a captured tree: not queried" 'next boot not queried' "$out"
out=$("$bin" firmware "$work/two.yaml" "${two[@]}" 2>&1); code=$?
expect_code "firmware on a tree needs --mstconfig" "$code" 2
out=$("$bin" apply "$work/two.yaml" --node n1 --dry-run --no-firmware 2>&1)
expect_grep "apply --no-firmware" 'firmware link types: skipped \(--no-firmware\)' "$out"
# A dry run on this machine (no such HCA) reports the firmware part as unknown and goes on.
out=$("$bin" apply "$work/two.yaml" --node n1 --dry-run --mstconfig "$work/mstconfig" 2>&1)
expect_grep "apply --dry-run" 'firmware link types: not known: .*HCA mlx5_0 is not on this host' "$out"
expect_grep "apply --dry-run goes on" '^plan for n1' "$out"
out=$("$bin" apply "$work/two.yaml" --node n1 --dry-run --json --mstconfig "$work/mstconfig" 2>&1)
expect_grep "apply --dry-run --json: the firmware object, not queried" '^\{"host":"n1","declared":true,"queried":false,' "$out"
expect_grep "apply --dry-run --json: why, in its warnings" '"warnings":\["firmware link types: not known: .*HCA mlx5_0 is not on this host' "$out"
expect_grep "apply --dry-run --json: why, on stderr" 'warning: firmware link types: not known: .*HCA mlx5_0 is not on this host' "$out"

# 12. One dual-port card whose ports are two PCI functions (mlx5_0 at 0000:3b:00.0, mlx5_1 at
#     0000:3b:00.1, one sysfs port each): mlx5_1's port is the card's LINK_TYPE_P2, and the
#     card is queried and set once, through its function 0.
cat >"$work/dual.yaml" <<'EOF2'
version: 1
nodes:
  - hosts: "d1"
    hcas:
      - {device: mlx5_0, link_type: ib}
      - {device: mlx5_1, link_type: eth}
    interfaces:
      - {name: ib0, device: mlx5_0, port: 1}
EOF2
cat >"$work/second.yaml" <<'EOF2'
version: 1
nodes:
  - hosts: "d1"
    hcas:
      - {device: mlx5_1, link_type: eth}
    interfaces:
      - {name: ib0, device: mlx5_0, port: 1}
EOF2
cat >"$work/both-ib.yaml" <<'EOF2'
version: 1
nodes:
  - hosts: "d1"
    hcas:
      - {device: mlx5_0, link_type: ib}
      - {device: mlx5_1, link_type: ib}
    interfaces:
      - {name: ib0, device: mlx5_0, port: 1}
EOF2
cat >"$work/conflict.yaml" <<'EOF2'
version: 1
nodes:
  - hosts: "d1"
    hcas:
      - {device: mlx5_1, link_type: ib}
      - {pci: "0000:3b:00.1", link_type: eth}
    interfaces:
      - {name: ib0, device: mlx5_0, port: 1}
EOF2
dual=(--node d1 --sysfs-root "$fixtures/cx6-dual-function")
card=$work/state/0000:3b:00.0
fake
rm -rf "$work/state" "$marker_file"
state 0000:3b:00.0 IB IB
out=$(fw "$work/dual.yaml" "${dual[@]}"); code=$?
expect_code "dual: show" "$code" 0
[ "$(log | grep '^argv:')" = "argv: -d 0000:3b:00.0 query LINK_TYPE_P1 LINK_TYPE_P2" ] && ok || bad "dual: one query for the card" "$(log)"
expect_grep "dual: mlx5_1 is P2" '~ mlx5_1 port 1 \(0000:3b:00.1, physical port 2\): next boot IB -> ETH, running InfiniBand  \(mstconfig set LINK_TYPE_P2=2\)' "$out"
expect_grep "dual: mlx5_0 is P1" '^    mlx5_0 port 1 \(0000:3b:00.0\): IB, running InfiniBand' "$out"
out=$(fw "$work/dual.yaml" "${dual[@]}" --json)
expect_grep "dual: --json" '"devices":\[\{"device":"mlx5_0","pci":"0000:3b:00.0","ports":\[\{"port":1,"desired":"ib","next_boot":"ib",.*\{"device":"mlx5_1","pci":"0000:3b:00.1","ports":\[\{"port":1,"physical_port":2,"desired":"eth","next_boot":"ib",' "$out"
rm -f "$work/log"
out=$(fw "$work/dual.yaml" "${dual[@]}" --apply); code=$?
expect_code "dual: apply owes a reboot" "$code" 9
[ "$(log | grep -c '^argv: -y')" = 1 ] && ok || bad "dual: one set" "$(log)"
expect_grep "dual: set P2 through function 0" '^argv: -y -d 0000:3b:00.0 set LINK_TYPE_P2=2$' "$(log)"
[ "$(grep -c '^argv: -d 0000:3b:00.0 query LINK_TYPE_P1 LINK_TYPE_P2$' "$work/log")" = 2 ] && ok || bad "dual: confirmed" "$(log)"
expect_grep "dual: firmware P1 untouched" '^LINK_TYPE_P1=IB$' "$(cat "$card")"
expect_grep "dual: firmware P2 set" '^LINK_TYPE_P2=ETH$' "$(cat "$card")"
expect_grep "dual: report" 'set mlx5_1 port 1 \(0000:3b:00.1\) LINK_TYPE_P2 IB -> ETH \(confirmed' "$out"
expect_grep "dual: marker" '^mlx5_1 0000:3b:00.1 LINK_TYPE_P2=ETH \(port 1, running InfiniBand\)$' "$(cat "$marker_file" 2>/dev/null)"
# Only mlx5_1 declared: its own address would have been P1, mlx5_0's port.
fake
rm -f "$marker_file"
state 0000:3b:00.0 IB IB
out=$(fw "$work/second.yaml" "${dual[@]}" --apply --json); code=$?
expect_code "second function alone" "$code" 9
[ "$(log | grep '^argv:' | tr '\n' ';')" = "argv: -d 0000:3b:00.0 query LINK_TYPE_P2;argv: -y -d 0000:3b:00.0 set LINK_TYPE_P2=2;argv: -d 0000:3b:00.0 query LINK_TYPE_P2;" ] && ok || bad "second function alone: runs" "$(log)"
expect_grep "second function alone: P1 untouched" '^LINK_TYPE_P1=IB$' "$(cat "$card")"
expect_grep "second function alone: --json done" '"done":\[\{"device":"mlx5_1","pci":"0000:3b:00.1","port":1,"physical_port":2,"from":"ib","to":"eth"\}\]' "$out"
# Both functions differ: one set names both ports; both HCAs run InfiniBand, so no reboot.
fake
state 0000:3b:00.0 ETH ETH
out=$(fw "$work/both-ib.yaml" "${dual[@]}" --apply); code=$?
expect_code "both functions" "$code" 0
[ "$(log | grep -c '^argv: -y')" = 1 ] && ok || bad "both functions: one set" "$(log)"
expect_grep "both functions: set" '^argv: -y -d 0000:3b:00.0 set LINK_TYPE_P1=1 LINK_TYPE_P2=1$' "$(log)"
expect_grep "both functions: state" 'LINK_TYPE_P1=IB' "$(cat "$card")"
expect_grep "both functions: state P2" 'LINK_TYPE_P2=IB' "$(cat "$card")"
expect_grep "both functions: report mlx5_0" 'set mlx5_0 port 1 \(0000:3b:00.0\) LINK_TYPE_P1 ETH -> IB' "$out"
expect_grep "both functions: report mlx5_1" 'set mlx5_1 port 1 \(0000:3b:00.1\) LINK_TYPE_P2 ETH -> IB' "$out"
[ ! -e "$marker_file" ] && ok || bad "both functions: no marker"
# Two declarations of one physical port that disagree: refused before mstconfig runs.
fake
out=$(fw "$work/conflict.yaml" "${dual[@]}" --apply); code=$?
expect_code "conflict" "$code" 3
expect_grep "conflict: named" 'mlx5_1 port 1 \(eth\) and nodes\[0\]\.hcas\[0\]: mlx5_1 port 1 \(ib\) are the same physical port, LINK_TYPE_P2 of the card at 0000:3b:00.0' "$out"
[ ! -e "$work/log" ] && ok || bad "conflict: mstconfig was run" "$(log)"
# A failure names the card and the HCAs it covers.
fake FAKE_MSTCONFIG_FAIL=set:0000:3b:00.0
state 0000:3b:00.0 IB IB
out=$(fw "$work/second.yaml" "${dual[@]}" --apply); code=$?
expect_code "dual: set fails" "$code" 4
expect_grep "dual: failure names the card" 'error: firmware: card 0000:3b:00.0 \(mlx5_1 0000:3b:00.1\): mstconfig cannot open the device 0000:3b:00.0' "$out"
# The fake is one device per card, as the firmware is: function 1 sees what function 0 set.
out=$("$work/mstconfig" -d 0000:3b:00.1 query LINK_TYPE_P1 2>&1)
expect_grep "fake: functions share the card" 'LINK_TYPE_P1 +IB\(1\)' "$out"
rm -f "$marker_file"

# 13. apply's own firmware step (not through `firmware --apply`): apply reads the live /sys, so
#     a fixture is mounted over /sys in a private mount namespace, with a fresh network
#     namespace whose links must be the same afterwards (root only; CI runs as root).
# in_fixture TREE ARGS...: runs `ibsetup apply ARGS` there; prints its output, then "links: N".
in_fixture() {
  local tree=$1
  shift
  unshare -m -n bash -c '
    mount -t tmpfs ibsetup-test /sys && cp -a "$1"/. /sys/ || exit 99
    before=$(ip -o link | md5sum)
    shift
    "$@" 2>&1
    rc=$?
    [ "$(ip -o link | md5sum)" = "$before" ] && echo "links: unchanged" || echo "links: CHANGED"
    exit $rc' in_fixture "$tree" "$@"
}
if [ "$(id -u)" = 0 ] && unshare -m -n true 2>/dev/null; then
  apply_fw=("$bin" apply "$work/vpi.yaml" --node v1 --mstconfig "$work/mstconfig"
    --lock-file "$work/lock" --reboot-marker "$marker_file")
  # The port that runs Ethernet is set to IB: exit 9 before any interface is touched.
  fake
  rm -rf "$work/state" "$marker_file"
  state 0000:5e:00.0 IB ETH
  out=$(in_fixture "$fixtures/vpi-eth-port" "${apply_fw[@]}"); code=$?
  expect_code "apply: firmware reboot" "$code" 9
  expect_grep "apply: set port 2" '^argv: -y -d 0000:5e:00.0 set LINK_TYPE_P2=1$' "$(log)"
  expect_grep "apply: says why it stops" 'reboot required' "$out"
  expect_no_grep "apply: no interface step" 'applying [0-9]+ changes|changes applied' "$out"
  expect_grep "apply: links untouched" '^links: unchanged$' "$out"
  expect_grep "apply: marker" 'LINK_TYPE_P2=IB \(running Ethernet\)' "$(cat "$marker_file" 2>/dev/null)"
  # Interrupted before the set: a link type set after apply was told to stop is a change no
  # rollback undoes, made by a run that then exits 7 ("rolled back"). SIGTERM while the query
  # runs (apply's own handler notes it, so the step must ask apply) and a standard output
  # whose reader is gone before the start (--json writes nothing until the end): nothing is
  # set, exit 7, and the firmware report reaches standard error.
  fake FAKE_MSTCONFIG_SLOW_QUERY=1
  state 0000:5e:00.0 IB ETH
  in_fixture "$fixtures/vpi-eth-port" "${apply_fw[@]}" >"$work/term.out" &
  runner=$!
  for _ in $(seq 200); do grep -q '^query pid: ' "$work/log" 2>/dev/null && break; sleep 0.05; done
  query=$(sed -n 's/^query pid: //p' "$work/log" | head -1)
  apply_pid=$(ps -o ppid= -p "${query:-0}" | tr -d ' ')
  [ -n "$apply_pid" ] && kill -TERM "$apply_pid"
  wait "$runner"
  code=$?
  out=$(cat "$work/term.out")
  expect_code "apply, SIGTERM during the query: exit 7" "$code" 7
  expect_no_grep "apply, SIGTERM during the query: nothing set" 'set' "$(log)"
  expect_grep "apply, SIGTERM during the query: said" 'not set: interrupted' "$out"
  expect_grep "apply, SIGTERM during the query: links untouched" '^links: unchanged$' "$out"
  fake
  state 0000:5e:00.0 IB ETH
  out=$(in_fixture "$fixtures/vpi-eth-port" python3 -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
sys.exit(subprocess.call(sys.argv[1:], stdout=w))' "${apply_fw[@]}" --json)
  code=$?
  expect_code "apply --json, reader gone: exit 7" "$code" 7
  expect_no_grep "apply --json, reader gone: nothing set" 'set' "$(log)"
  expect_grep "apply --json, reader gone: the firmware report on stderr" \
    '^\{"host":"v1".*"failure":"[^"]*: not set: interrupted"' "$out"
  # mstconfig fails: exit 4, nothing set, no interface step.
  fake FAKE_MSTCONFIG_FAIL=query:0000:5e:00.0
  out=$(in_fixture "$fixtures/vpi-eth-port" "${apply_fw[@]}"); code=$?
  expect_code "apply: firmware failure" "$code" 4
  expect_grep "apply: failure named" 'mstconfig cannot open the device 0000:5e:00.0' "$out"
  expect_no_grep "apply: failure, no set" 'set' "$(log)"
  expect_grep "apply: failure, links untouched" '^links: unchanged$' "$out"
  # A dry run with --json prints what the step found before the plan, as apply prints what it
  # set: a preview (Ansible's check mode) sees the link type that would change.
  fake
  state 0000:5e:00.0 IB ETH
  out=$(in_fixture "$fixtures/vpi-eth-port" "${apply_fw[@]}" --dry-run --json); code=$?
  expect_grep "apply --dry-run --json: the firmware object first" \
    '^\{"host":"v1","declared":true,"queried":true,.*"port":2,"desired":"ib","next_boot":"eth","running":"Ethernet","change":true.*"changes":1,' \
    "$(grep -m1 '^{' <<<"$out")"
  expect_no_grep "apply --dry-run --json: nothing set" 'set' "$(log)"
  # --no-firmware: mstconfig is never run and apply goes on to the interfaces.
  fake
  out=$(in_fixture "$fixtures/vpi-eth-port" "${apply_fw[@]}" --no-firmware); code=$?
  [ ! -e "$work/log" ] && ok || bad "apply --no-firmware: mstconfig was run" "$(log)"
  expect_grep "apply --no-firmware: says so" 'firmware link types: skipped \(--no-firmware\)' "$out"
  # In sync (port 2 stays Ethernet): queried, nothing set, no reboot owed, and apply goes on
  # to the interfaces.
  state 0000:5e:00.0 IB ETH
  out=$(in_fixture "$fixtures/vpi-eth-port" "$bin" apply "$work/eth.yaml" --node e1 \
    --mstconfig "$work/mstconfig" --lock-file "$work/lock" --reboot-marker "$marker_file"); code=$?
  expect_no_grep "apply in sync: no set" 'set' "$(log)"
  expect_grep "apply in sync: queried" '^argv: -d 0000:5e:00.0 query' "$(log)"
  expect_grep "apply in sync: 0 firmware changes" '^firmware link types on e1: 0 changes made$' "$out"
  # ib1 sits on the Ethernet port, so the interface plan refuses (exit 3), changing nothing.
  expect_grep "apply in sync: went on to the interfaces" '^plan for e1' "$out"
  expect_code "apply in sync: the plan's own verdict" "$code" 3
  [ ! -e "$marker_file" ] && ok || bad "apply in sync: stale marker removed"
else
  echo "SKIP apply's firmware step: needs root and unshare"
fi

# A link layer the kernel's sysfs gives as text ibsetup does not know cannot add a line to the
# reboot marker (it went in raw: a forged device line), and is null in --json as documented.
cp -a "$fixtures/vpi-eth-port" "$work/odd-tree"
ll=$(find "$work/odd-tree" -path '*mlx5_0/ports/2/link_layer')
printf 'Token\nmlx5_9 0000:99:00.0 LINK_TYPE_P1=ETH (running InfiniBand)\n' >"$ll"
fake
state 0000:5e:00.0 IB ETH
rm -f "$marker_file"
out=$(fw "$work/vpi.yaml" --node v1 --sysfs-root "$work/odd-tree" --apply); code=$?
expect_code "odd link layer: reboot owed" "$code" 9
expect_grep "odd link layer: the marker's line" \
  '^mlx5_0 0000:5e:00.0 LINK_TYPE_P2=IB \(running \?\)$' "$(cat "$marker_file")"
expect_no_grep "odd link layer: no forged line" 'mlx5_9' "$(cat "$marker_file")"
state 0000:5e:00.0 IB ETH
out=$(fw "$work/vpi.yaml" --node v1 --sysfs-root "$work/odd-tree" --json)
expect_grep "odd link layer: running null in --json" '"port":2,"desired":"ib","next_boot":"eth","running":null' "$out"
# A port the multi-port HCA does not have is an input error before mstconfig runs (it used to
# be asked, and its answer read as a fixed link type).
cat >"$work/p3.yaml" <<'EOF2'
version: 1
nodes:
  - hosts: "v1"
    hcas:
      - device: mlx5_0
        ports:
          - {port: 3, link_type: ib}
EOF2
fake
rm -f "$work/log"
out=$(fw "$work/p3.yaml" "${vpi[@]}"); code=$?
expect_code "port 3 of a two-port HCA: exit 3" "$code" 3
expect_grep "port 3 of a two-port HCA: named" 'mlx5_0 \(0000:5e:00.0\) has ports 1, 2, so port 3 is not on it' "$out"
[ ! -e "$work/log" ] && ok || bad "port 3 of a two-port HCA: mstconfig was run" "$(log)"

# A NUL in mstconfig's output no longer cuts the error short: the exit status and the rest of
# the line are there, the NUL shown as \x00.
printf '#!/bin/sh\nprintf -- "-E- Failed to open the device\\000 rest\\n" >&2\nexit 3\n' >"$work/mstconfig"
chmod +x "$work/mstconfig"
out=$(fw "$work/two.yaml" "${two[@]}"); code=$?
expect_code "NUL in mstconfig's output: exit 4" "$code" 4
expect_grep "NUL in mstconfig's output: the whole message" \
  'Failed to open the device\\x00 rest \(exit status 3\); is there a Mellanox' "$out"

# plan with link types that cannot be read (mstconfig hangs): the JSON says so in warnings,
# and --detailed-exitcode exits 4 (it exited 0, "nothing pending", with nothing in the JSON).
printf '#!/bin/sh\nexec sleep 30\n' >"$work/mstconfig"
out=$("$bin" plan "$work/two.yaml" "${two[@]}" --mstconfig "$work/mstconfig" \
  --mstconfig-timeout-ms 300 --json 2>/dev/null); code=$?
expect_code "plan --json, link types unreadable: exit 0" "$code" 0
expect_grep "plan --json, link types unreadable: in warnings" '"warnings":\["firmware link types: not known: ' "$out"
out=$("$bin" plan "$work/two.yaml" "${two[@]}" --mstconfig "$work/mstconfig" \
  --mstconfig-timeout-ms 300 --json --detailed-exitcode 2>&1); code=$?
expect_code "plan --detailed-exitcode, link types unreadable: exit 4" "$code" 4
expect_grep "plan --detailed-exitcode, link types unreadable: said why" \
  'error: firmware link types could not be read, so whether changes are pending is not known' "$out"

# firmware --apply whose standard output cannot be written (a full disk): the set is made, and
# the lost report is exit 4, not 0 (apply's step moves its report to standard error and keeps
# apply's status; the command of its own does not). The port already runs InfiniBand, so no
# reboot is owed (exit 9 would outrank 4).
fake
state 0000:3b:00.0 ETH
state 0000:86:00.0 IB
out=$("$bin" firmware "$work/two.yaml" "${two[@]}" --apply --json --mstconfig "$work/mstconfig" \
  --lock-file "$work/lock" --reboot-marker "$marker_file" 2>&1 >/dev/full)
code=$?
expect_code "firmware --apply, full output: exit 4" "$code" 4
expect_grep "firmware --apply, full output: said" \
  'cannot write to standard output: No space left on device' "$out"
expect_grep "firmware --apply, full output: set" '^LINK_TYPE_P1=IB$' "$(cat "$work/state/0000:3b:00.0")"

# The reboot marker past `ulimit -f` (the fake mstconfig lifts the limit for itself): the
# marker's write raised SIGXFSZ, whose default ended ibsetup after the set and before the
# marker (exit 153, a changed card no marker tells of, the temporary file left). Now the write
# fails (EFBIG): the set is reported, the marker's failure named, exit 4, nothing left behind.
fake
sed -i '2i ulimit -f unlimited' "$work/mstconfig"
state 0000:5e:00.0 IB ETH
rm -rf "$work/run"
out=$(prlimit --fsize=100:unlimited -- "$bin" firmware "$work/vpi.yaml" "${vpi[@]}" --apply \
  --mstconfig "$work/mstconfig" --lock-file "$work/lock" --reboot-marker "$marker_file" 2>&1)
code=$?
expect_code "marker past the file size limit: exit 4" "$code" 4
expect_grep "marker past the file size limit: the set reported" \
  'set mlx5_0 port 2 \(0000:5e:00.0\) LINK_TYPE_P2 ETH -> IB \(confirmed' "$out"
expect_grep "marker past the file size limit: named" \
  "the reboot marker: cannot write $marker_file: File too large" "$out"
[ -z "$(ls -A "$work/run" 2>/dev/null)" ] && ok ||
  bad "marker past the file size limit: left behind" "$(ls -A "$work/run")"

echo "firmware: $pass passed, $fail failed"
[ "$fail" = 0 ]
