#!/bin/bash
# Issue 13 items 6 and 8: an interrupted apply is never half-done. In a fresh network namespace
# (veth pairs named like IPoIB interfaces, as tests/scripts/netns_apply_test.sh does), apply
# runs with a pause between steps and is interrupted mid-way by SIGHUP, SIGTERM, or a reader
# that closes its standard output; each time it exits 7 and `ip -d -j addr` / `ip -d -j link`
# are byte-for-byte what they were before. Also: the hint for an interface with IPv6 disabled.
# Needs root (namespaces); exits 77 otherwise.
source "$(dirname "$0")/lib.sh" "$@"
if [ "$(id -u)" != 0 ]; then
  echo "interrupt: skipped: needs root"
  trap - EXIT
  rm -rf "$tmp"
  exit 77
fi
ns="ibint$$"
cleanup_hooks+=("ip netns del $ns 2>/dev/null")

fresh() { # ib0 <-> ib9 and ib1 <-> ib8, all down, no addresses
  ip netns del "$ns" 2>/dev/null
  ip netns add "$ns"
  ip -n "$ns" link add ib0 type veth peer name ib9
  ip -n "$ns" link add ib1 type veth peer name ib8
}
snapshot() { echo "$(ip -n "$ns" -d -j addr show)$(ip -n "$ns" -d -j link show)"; }

cat >"$tmp/cluster.yaml" <<'YAML'
version: 1
nodes:
  - hosts: "n[1-2]"
    interfaces:
      - {name: ib0, mtu: 2044, ipv4: 10.77.0.0/24}
      - {name: ib1, mtu: 4092, ipv4: 10.78.0.0/24, ipv6: "fd00:78::/64"}
YAML
apply_args=(apply "$tmp/cluster.yaml" --node n1 --backend netlink --no-firmware
  --lock-file "$tmp/lock")

# judge NAME WANT_CODE 'FIXED STRING' BEFORE: the exit code, the message, no raw control
# character, and the namespace's state back to BEFORE.
judge() {
  local name=$1 want=$2 text=$3 before=$4 after
  after=$(snapshot)
  if [ "$code" != "$want" ]; then
    bad "$name: exit $code, want $want; output:"
    head -c 2000 "$out" | cat -v | head -20
  elif ! grep -qF -- "$text" "$out"; then
    bad "$name: output lacks: $text; output:"
    head -c 2000 "$out" | cat -v | head -20
  elif [ "$(control_chars "$out")" != 0 ]; then
    bad "$name: raw control characters in the output"
  elif [ "$after" != "$before" ]; then
    bad "$name: the state differs from before the apply"
    diff <(echo "$before" | tr ',' '\n') <(echo "$after" | tr ',' '\n') | head -20
  else
    ok "$name"
  fi
}

# interrupt_with NAME SIGNAL: SIGNAL after the first step is done.
interrupt_with() {
  local name=$1 sig=$2 before pid
  fresh
  before=$(snapshot)
  out=$tmp/$name.out
  ip netns exec "$ns" "$bin" "${apply_args[@]}" --step-delay-ms 400 >"$out" 2>&1 &
  pid=$!
  for _ in $(seq 100); do grep -q "  ok" "$out" && break; sleep 0.1; done
  kill "-$sig" "$pid"
  wait "$pid"
  code=$?
  judge "$name" 7 "$sig received: stopping after the current step and rolling back" "$before"
  grep -q "rolled back" "$out" || bad "$name: no rollback reported"
}
interrupt_with sighup HUP
interrupt_with sigterm TERM
# nohup: SIGHUP ignored on entry stays ignored, and the apply completes.
fresh
out=$tmp/nohup.out
ip netns exec "$ns" nohup "$bin" "${apply_args[@]}" --step-delay-ms 300 >"$out" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "  ok" "$out" && break; sleep 0.1; done
kill -HUP "$pid"
wait "$pid"
code=$?
if [ "$code" = 0 ] && grep -q 'changes applied and verified' "$out"; then
  ok "nohup-keeps-sighup-ignored"
else
  bad "nohup-keeps-sighup-ignored: exit $code"
  head -20 "$out"
fi

# A SIGTERM once apply has made and verified its changes, while its --json report is written
# (strace holds that first write to standard output): the report is printed whole, a line on
# stderr says the signal came after the last step, and the signal then ends ibsetup (143); the
# changes stay. The signal used to end ibsetup there without a word of them.
# /proc/PID/syscall names the call by number: write is 1 on x86_64 only.
if command -v strace >/dev/null && [ "$(uname -m)" = x86_64 ]; then
  fresh
  out=$tmp/late.out
  ip netns exec "$ns" strace -o /dev/null -e trace=write -e inject=write:delay_enter=1500000:when=1 \
    "$bin" "${apply_args[@]}" --json -q >"$out" 2>"$out.err" &
  pid=$!
  for _ in $(seq 250); do # until ibsetup (strace's tracee) is held at its write to stdout
    child=$(pgrep -P "$pid" | head -1)
    [ -n "$child" ] && [ "$(cut -d' ' -f1-2 "/proc/$child/syscall" 2>/dev/null)" = "1 0x1" ] && break
    sleep 0.02
  done
  kill -TERM "$child"
  wait "$pid"
  code=$?
  if [ "$code" = 143 ] && grep -qF "SIGTERM received after apply's last step; its changes stay" "$out.err" &&
    python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["ok"] and r["changes"] == 7' "$out" &&
    ip -n "$ns" addr show ib1 | grep -q 'fd00:78::1/64'; then
    ok "late-sigterm: report printed, changes kept, exit 143"
  else
    bad "late-sigterm: exit $code; output:"
    cat "$out" "$out.err" | head -20
  fi
else
  echo "skip late-sigterm: strace missing, or not x86_64"
fi

# An undo the kernel refuses: ib0 (a veth, and its peer ib9) is deleted by someone else between
# two steps, so the next step fails and so does the rollback of ib0's MTU. The error says the
# rollback is not complete (it said "rolled back N steps"), -q still prints the failed undo,
# and --json lists it in rollback_failed.
refused_undo() { # NAME ARGS...: the apply with ARGS, ib0 deleted after ib1's MTU step
  local name=$1
  shift
  fresh
  out=$tmp/$name.out
  ip netns exec "$ns" "$bin" "${apply_args[@]}" --step-delay-ms 300 "$@" >"$out" 2>"$out.err" &
  pid=$!
  # -q and --json print no progress: the kernel's state says when ib1's MTU step is done.
  for _ in $(seq 250); do ip -n "$ns" link show ib1 | grep -q 'mtu 4092' && break; sleep 0.02; done
  ip -n "$ns" link del ib0
  wait "$pid"
  code=$?
}
refused_undo refused-undo
if [ "$code" = 7 ] && grep -q 'rollback: ib0 mtu back to 1500: FAILED: .*No such device' "$out" &&
  grep -q 'rollback not complete: [1-9][0-9]* of [1-9][0-9]* steps failed' "$out.err" &&
  ! grep -q 'rolled back' "$out" "$out.err"; then
  ok refused-undo
else
  bad "refused-undo: exit $code; output:"
  cat "$out" "$out.err" | head -20
fi
refused_undo refused-undo-quiet -q
if [ "$code" = 7 ] && grep -q '^  - ib0 mtu back to 1500: FAILED: ' "$out.err" &&
  grep -q 'rollback not complete' "$out.err"; then
  ok refused-undo-quiet
else
  bad "refused-undo-quiet: exit $code; output:"
  cat "$out" "$out.err" | head -20
fi
refused_undo refused-undo-json --json
if [ "$code" = 7 ] && python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert not r["ok"]
assert r["rollback_failed"] and all(f in r["rollback"] for f in r["rollback_failed"])
assert any(f.startswith("ib0 mtu back to 1500: FAILED") for f in r["rollback_failed"])
' "$out"; then
  ok refused-undo-json
else
  bad "refused-undo-json: exit $code; output:"
  cat "$out" "$out.err" | head -20
fi

# A run that waits for the lock (--wait) while its holder writes its pid over a longer one
# waits: it used to read "PID\n4\n" between the holder's write and its cut to length, took
# that for someone else's file and gave up at once (exit 4). strace holds the holder between
# its two calls (ftruncate and pwrite64, in either order).
# Each call is held 1.5 s: the second run looks 2 s after the lock is taken, between the two.
fresh
printf '4194304\n' >"$tmp/race.lock"
race_args=(apply "$tmp/cluster.yaml" --node n1 --backend netlink --no-firmware -q
  --lock-file "$tmp/race.lock" --wait 30)
if command -v strace >/dev/null; then
  strace -o /dev/null -e trace=ftruncate,pwrite64 \
    -e inject=ftruncate,pwrite64:delay_enter=1500000:when=1 \
    ip netns exec "$ns" "$bin" "${race_args[@]}" >"$tmp/race1.out" 2>&1 &
  pid=$!
  for _ in $(seq 250); do flock -n "$tmp/race.lock" true || break; sleep 0.02; done
  sleep 2
  # Between the holder's two calls, the file is empty (emptied first) or holds the new pid over
  # the old one's tail (written first): a whole pid, the old or the new, means the moment passed.
  seen=$(cat "$tmp/race.lock")
  ip netns exec "$ns" "$bin" "${race_args[@]}" >"$tmp/race2.out" 2>&1
  code=$?
  wait "$pid"
  code1=$?
  if [ -n "$seen" ] && [[ $seen != *$'\n'* ]]; then
    bad "lock-race-waits: the second run looked outside the holder's two calls (the file held '$seen')"
  elif [ "$code1" = 0 ] && [ "$code" = 0 ]; then
    ok lock-race-waits
  else
    bad "lock-race-waits: holder exit $code1, waiting run exit $code; output:"
    cat "$tmp/race1.out" "$tmp/race2.out" | head -10
  fi
else
  echo "skip lock-race-waits: strace missing"
fi

# SIGTERM while waiting for the lock (--wait): exit 7 with a message that nothing was changed.
# The signal used to kill the process without a word (exit 143), which the Ansible module
# reads as a run killed mid-way, the node perhaps half-applied.
fresh
before=$(snapshot)
: >"$tmp/wait.lock"
(
  exec 9>"$tmp/wait.lock"
  flock 9
  echo "$BASHPID" >&9 # as ibsetup writes its own: the message names the holder
  exec sleep 30       # the same pid, which holds the lock through fd 9
) &
holder=$!
for _ in $(seq 250); do flock -n "$tmp/wait.lock" true || break; sleep 0.02; done
out=$tmp/wait.out
ip netns exec "$ns" "$bin" apply "$tmp/cluster.yaml" --node n1 --backend netlink --no-firmware \
  --lock-file "$tmp/wait.lock" --wait 30 --json >"$out" 2>"$out.err" &
pid=$!
# Waiting once it has the lock file open (ip netns exec runs ibsetup in its own process); its
# signal handling is in place by then.
for _ in $(seq 500); do
  ls -l "/proc/$pid/fd" 2>/dev/null | grep -q wait.lock && break
  sleep 0.02
done
kill -TERM "$pid"
wait "$pid"
code=$?
kill "$holder"
wait "$holder" 2>/dev/null
cat "$out.err" >>"$out"
judge lock-wait-sigterm 7 \
  "error: stopped while waiting for $tmp/wait.lock (held by pid $holder); nothing was changed" \
  "$before"
# No step had begun: nothing to finish or roll back, and the messages do not say otherwise.
if grep -q 'rolling back\|rolled back' "$out"; then
  bad "lock-wait-sigterm: speaks of a rollback: $(cat "$out")"
fi

# A reader that stops reading: `apply | head -c 1`. The next progress line meets EPIPE, apply
# stops there and rolls back; the messages go on to stderr.
fresh
before=$(snapshot)
out=$tmp/head.out
timeout 60 ip netns exec "$ns" "$bin" "${apply_args[@]}" --step-delay-ms 300 2>"$out" |
  head -c 1 >/dev/null
code=${PIPESTATUS[0]}
judge stdout-closed-head 7 "standard output is closed: stopping after the current step" "$before"
grep -q "rolled back" "$out" || bad "stdout-closed-head: no rollback reported on stderr"

# --json writes nothing until the end: a reader that is gone before the first step is found
# by polling, nothing is changed, and the JSON report goes to stderr instead of being lost.
fresh
before=$(snapshot)
out=$tmp/json.out
timeout 60 ip netns exec "$ns" "$bin" "${apply_args[@]}" --step-delay-ms 300 --json \
  2>"$out" | true
code=${PIPESTATUS[0]}
judge stdout-closed-json 7 '"ok":false' "$before"
grep -qF 'standard output is closed; the report follows here' "$out" ||
  bad "stdout-closed-json: the report is not on stderr"

# Standard output closed before the start (`>&-`): the lock file used to be opened as
# descriptor 1 and took the progress lines, and the apply went on (exit 0); every later apply
# then refused the lock ("not a pid"). Now a closed output stops the apply, the lock holds only
# a pid, and a quiet apply, which writes nothing there, still runs.
fresh
before=$(snapshot)
out=$tmp/closed.out
rm -f "$tmp/lock"
timeout 60 ip netns exec "$ns" "$bin" "${apply_args[@]}" --step-delay-ms 100 >&- 2>"$out"
code=$?
judge stdout-closed-at-start 7 "standard output is closed: stopping after the current step" "$before"
grep -qx '[0-9]*' "$tmp/lock" && ok "stdout-closed-at-start: the lock holds a pid" ||
  bad "stdout-closed-at-start: the lock holds: $(head -c 200 "$tmp/lock" | cat -v)"
timeout 60 ip netns exec "$ns" "$bin" "${apply_args[@]}" -q >&- 2>"$out"
code=$?
[ "$code" = 0 ] && [ "$(snapshot)" != "$before" ] && ok "stdout-closed-at-start: -q applies" ||
  bad "stdout-closed-at-start: -q: exit $code; $(head -5 "$out")"

# Standard output is a file that reaches `ulimit -f` after a few lines: the write past it
# raised SIGXFSZ, whose default killed apply between two link changes (exit 153, no message,
# half the addresses set). Now the write fails (EFBIG), apply stops and rolls back.
fresh
before=$(snapshot)
out=$tmp/fsize.out
# (standard error into a pipe, which the limit does not cover)
timeout 60 ip netns exec "$ns" prlimit --fsize=160 -- "$bin" "${apply_args[@]}" \
  2>&1 >"$tmp/fsize.stdout" | cat >"$out"
code=${PIPESTATUS[0]}
judge stdout-file-size-limit 7 \
  "cannot write to standard output: File too large: stopping after the current step" \
  "$before"
# With --json nothing is written until the end: apply completes, and its report, which the
# limit cuts short, moves to stderr under a header naming the reason (it used to say "closed").
fresh
out=$tmp/fsize-json.out
timeout 60 ip netns exec "$ns" prlimit --fsize=10 -- "$bin" "${apply_args[@]}" --json \
  2>&1 >"$tmp/fsize.stdout" | cat >"$out"
code=${PIPESTATUS[0]}
if [ "$code" = 0 ] &&
  grep -qF 'cannot write to standard output: File too large; the report follows here' "$out" &&
  grep -q '"ok": *true' "$out"; then
  ok "stdout-file-size-limit-json"
else
  bad "stdout-file-size-limit-json: exit $code; $(head -c 600 "$out" | cat -v)"
fi

# Out of descriptors (RLIMIT_NOFILE 5, only 0-2 open: Python's subprocess closes the rest,
# such as ctest's): the interface lookup's EMFILE was reported as "no interface ib0"; it is
# named for what it is, and nothing changes (exit 7, nothing to roll back).
fresh
before=$(snapshot)
out=$tmp/nofile.out
timeout 60 ip netns exec "$ns" python3 -c 'import resource, subprocess, sys
limit = lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (5, 5))
sys.exit(subprocess.call(sys.argv[1:], preexec_fn=limit))' "$bin" "${apply_args[@]}" >"$out" 2>&1
code=$?
judge descriptors-exhausted 7 "cannot look up interface ib0: Too many open files" "$before"

# Uninterrupted, the same apply completes (the cases above were interrupted, not broken).
fresh
out=$tmp/full.out
ip netns exec "$ns" "$bin" "${apply_args[@]}" >"$out" 2>&1
code=$?
if [ "$code" = 0 ] && grep -q 'changes applied and verified' "$out"; then
  ok "uninterrupted-apply"
else
  bad "uninterrupted-apply: exit $code"
  head -20 "$out"
fi

# IPv6 disabled on an interface: the kernel's bare "Permission denied" gets a hint naming the
# sysctl, and everything is rolled back.
fresh
ip netns exec "$ns" sysctl -q -w net.ipv6.conf.ib1.disable_ipv6=1
before=$(snapshot)
out=$tmp/ipv6.out
ip netns exec "$ns" "$bin" "${apply_args[@]}" >"$out" 2>&1
code=$?
judge ipv6-disabled 7 "ib1: add fd00:78::1/64: the kernel refused: Permission denied (IPv6 is disabled on ib1: sysctl net.ipv6.conf.ib1.disable_ipv6 is 1; set it to 0 or declare no ipv6 for ib1)" "$before"
# The NetworkManager backend, against a private NetworkManager (tests/nm/nm_harness.sh): SIGHUP
# between steps rolls back through the checkpoint and ibsetup's journal; every profile and
# keyfile is as before.
if command -v NetworkManager >/dev/null && command -v nmcli >/dev/null &&
  command -v dbus-daemon >/dev/null; then
  # shellcheck source=../nm/nm_harness.sh
  . "$src/tests/nm/nm_harness.sh"
  cleanup_hooks=("nm_stop" "${cleanup_hooks[@]}")
  nm_snapshot() {
    local n
    nmcli -t -f NAME connection show | sort | while read -r n; do
      echo "== $n"
      nmcli -t connection show "$n" | grep -v '^connection.timestamp:'
    done
    (cd "$tmp/nm-conns" && sha256sum -- * 2>/dev/null)
  }
  if nm_start "$tmp/nm-conns"; then
    before=$(nm_snapshot)
    out=$tmp/nm.out
    "$bin" apply --step-delay-ms 400 "$src/tests/data/nm/site.yaml" --node nm01 \
      --backend networkmanager --no-activate --lock-file "$tmp/lock" >"$out" 2>&1 &
    pid=$!
    for _ in $(seq 100); do grep -q "  + .* ok" "$out" && break; sleep 0.1; done
    kill -HUP "$pid"
    wait "$pid"
    code=$?
    after=$(nm_snapshot)
    if [ "$code" != 7 ] || ! grep -qF 'SIGHUP received: stopping after the current step' "$out"; then
      bad "nm-sighup: exit $code, want 7 with the SIGHUP message; output:"
      head -20 "$out"
    elif [ "$after" != "$before" ]; then
      bad "nm-sighup: NetworkManager's profiles differ from before"
      diff <(echo "$before") <(echo "$after") | head -20
    else
      ok "nm-sighup"
    fi
    nm_stop
  else
    bad "nm-sighup: the private NetworkManager did not start"
  fi
else
  echo "skip nm-sighup: NetworkManager, nmcli or dbus-daemon missing"
fi
finish
