#!/bin/bash
# check --slurm-drain against a fake scontrol that records its argv and answers `show node`
# like Slurm 20-23 does: drain on failure with the first failure as reason, resume only what
# ibsetup drained, leave operators' drains alone, report scontrol's own failures.
# Usage: slurm_test.sh IBSETUP SOURCE_DIR
set -uo pipefail
ibsetup=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/expect.sh"

# ibsetup runs programs with a clean environment, so the fake finds its files by fixed paths.
cat >"$work/scontrol" <<FAKE
#!/bin/bash
printf '%s\n' "\$(IFS='|'; echo "\$*")" >>"$work/argv.log"
[ -f "$work/fail" ] && { echo "slurm_update error: Invalid node name specified" >&2; exit 1; }
[ -f "$work/slow" ] && sleep "\$(cat "$work/slow")"
if [ "\$1" = show ]; then
  cat <<SHOW
NodeName=\$3 Arch=x86_64 CoresPerSocket=32
   State=\$(cat "$work/state") ThreadsPerCore=1 TmpDisk=0 Weight=1
   Partitions=compute
   Reason=\$(cat "$work/reason")
SHOW
fi
exit 0
FAKE
chmod +x "$work/scontrol"
profile=$src/tests/data/check/cluster.yaml
healthy=$src/tests/fixtures/sysfs/hdr-2hca
broken=$src/tests/fixtures/sysfs/port-down-polling
check() { "$ibsetup" check "$profile" --node hdr01 --scontrol "$work/scontrol" --slurm-drain "$@"; }
state() { echo "$1" >"$work/state"; echo "$2" >"$work/reason"; : >"$work/argv.log"; }

state "IDLE" "none"
check --sysfs-root "$broken" >/dev/null 2>"$work/err"
expect "failing node: exit 5" "$?" 5
nhc=$("$ibsetup" check "$profile" --node hdr01 --sysfs-root "$broken" --format nhc)
first=$(head -1 <<<"$nhc" |
  sed 's/^ERROR:  ibsetup:  Health check failed:  //')
expect "failing node: looked, then drained with the first failure as reason" \
  "$(cat "$work/argv.log")" "show|node|hdr01
update|NodeName=hdr01|State=DRAIN|Reason=ibsetup: $first"
expect "failing node: said so" "$(cat "$work/err")" "ibsetup: slurm: drained (ibsetup: $first)"

# A metrics directory that is not there (a typo in the HealthCheckProgram line) does not stop
# the drain: the failed write is reported after Slurm is told, and the node's exit 5 stays.
state "IDLE" "none"
check --sysfs-root "$broken" --textfile-dir "$work/no-such-dir" >/dev/null 2>"$work/err"
expect "failing node, missing --textfile-dir: exit 5" "$?" 5
expect "failing node, missing --textfile-dir: drained all the same" \
  "$(tail -1 "$work/argv.log" | cut -d'|' -f1-3)" "update|NodeName=hdr01|State=DRAIN"
expect "failing node, missing --textfile-dir: both said" "$(cat "$work/err")" \
  "ibsetup: slurm: drained (ibsetup: $first)
ibsetup: error: --textfile-dir $work/no-such-dir: No such file or directory"

state "IDLE+DRAIN" "ibsetup: mlx5_0/1: state DOWN, expected ACTIVE [root@2026-12-03T05:00:00]"
check --sysfs-root "$healthy" >/dev/null 2>"$work/err"
expect "healthy node drained by ibsetup: exit 0" "$?" 0
expect "healthy node drained by ibsetup: resumed" "$(cat "$work/argv.log")" \
  "show|node|hdr01
update|NodeName=hdr01|State=RESUME"

state "IDLE+DRAIN" "bad DIMM, ticket 4711 [ops@2026-12-01T10:00:00]"
check --sysfs-root "$healthy" >/dev/null 2>"$work/err"
expect "operator's drain: exit 0" "$?" 0
expect "operator's drain: only looked" "$(cat "$work/argv.log")" "show|node|hdr01"
expect "operator's drain: kept and said why" "$(cat "$work/err")" \
  "ibsetup: slurm: left alone (drained by someone else: bad DIMM, ticket 4711 [ops@2026-12-01T10:00:00])"

# A failing node an operator already drained keeps their reason (Slurm would replace it, and
# a later pass would then resume the node under them).
state "IDLE+DRAIN" "bad DIMM, ticket 4711 [ops@2026-12-01T10:00:00]"
check --sysfs-root "$broken" >/dev/null 2>"$work/err"
expect "failing node drained by an operator: exit 5" "$?" 5
expect "failing node drained by an operator: only looked" "$(cat "$work/argv.log")" "show|node|hdr01"
expect "failing node drained by an operator: said why" "$(cat "$work/err")" \
  "ibsetup: slurm: left alone (already drained by someone else: bad DIMM, ticket 4711 [ops@2026-12-01T10:00:00])"
# One that ibsetup drained before gets the current reason.
state "DRAINING" "ibsetup: old reason"
check --sysfs-root "$broken" >/dev/null 2>&1
expect "failing node drained by ibsetup: reason refreshed" "$(tail -1 "$work/argv.log")" \
  "update|NodeName=hdr01|State=DRAIN|Reason=ibsetup: $first"

# A DOWN or FAIL node carries its own reason (an operator's, or Slurm's "Node unexpectedly
# rebooted"): a DRAIN would replace it, and the next pass then resumed the node into service.
for st in "DOWN" "IDLE+FAIL" "DOWN+NOT_RESPONDING"; do
  state "$st" "bad DIMM, ticket 4711 [ops@2026-12-01T10:00:00]"
  check --sysfs-root "$broken" >/dev/null 2>"$work/err"
  expect "failing node $st by an operator: exit 5" "$?" 5
  expect "failing node $st by an operator: only looked" "$(cat "$work/argv.log")" "show|node|hdr01"
  expect "failing node $st by an operator: said why" "$(cat "$work/err")" \
    "ibsetup: slurm: left alone (state $st, reason: bad DIMM, ticket 4711 [ops@2026-12-01T10:00:00])"
done
# POWERED_DOWN is power saving, not DOWN: a failing node is drained.
state "IDLE+POWERED_DOWN" "none"
check --sysfs-root "$broken" >/dev/null 2>&1
expect "failing node IDLE+POWERED_DOWN: drained" "$(tail -1 "$work/argv.log" | cut -d'|' -f1-3)" \
  "update|NodeName=hdr01|State=DRAIN"
# Drained by ibsetup but DOWN since: not resumed.
state "DOWN+DRAIN" "ibsetup: mlx5_0/1: state DOWN, expected ACTIVE [root@2026-12-03T05:00:00]"
check --sysfs-root "$healthy" >/dev/null 2>"$work/err"
expect "healthy node, DOWN+DRAIN by ibsetup: exit 0" "$?" 0
expect "healthy node, DOWN+DRAIN by ibsetup: only looked" "$(cat "$work/argv.log")" "show|node|hdr01"
expect "healthy node, DOWN+DRAIN by ibsetup: said why" "$(cat "$work/err")" \
  "ibsetup: slurm: left alone (state DOWN+DRAIN: not resumed while DOWN or FAIL)"

state "MIXED" "none"
check --sysfs-root "$healthy" >/dev/null 2>"$work/err"
expect "healthy, not drained: only looked" "$(cat "$work/argv.log")" "show|node|hdr01"

state "IDLE" "none"
check --sysfs-root "$broken" --slurm-node cn017 >/dev/null 2>&1
expect "--slurm-node names the Slurm node" "$(cut -d'|' -f1-3 "$work/argv.log")" \
  "show|node|cn017
update|NodeName=cn017|State=DRAIN"

touch "$work/fail"
check --sysfs-root "$broken" >/dev/null 2>"$work/err"
expect "scontrol fails on drain: still exit 5" "$?" 5
expect "scontrol fails on drain: its error reported" "$(cat "$work/err")" \
  "ibsetup: error: slurm: scontrol show node hdr01: exit status 1: slurm_update error: Invalid node name specified"
check --sysfs-root "$healthy" >/dev/null 2>"$work/err"
expect "scontrol fails on a healthy node: exit 4" "$?" 4
# A failed scontrol and a failed metrics write: both are said.
check --sysfs-root "$broken" --textfile-dir "$work/no-such-dir" >/dev/null 2>"$work/err"
expect "scontrol and the textfile fail: exit 5, both said" "$?:$(cat "$work/err")" \
  "5:ibsetup: error: slurm: scontrol show node hdr01: exit status 1: slurm_update error: Invalid node name specified
ibsetup: error: --textfile-dir $work/no-such-dir: No such file or directory"
rm -f "$work/fail"
"$ibsetup" check "$profile" --node hdr01 --sysfs-root "$healthy" --slurm-drain \
  --scontrol /nonexistent/scontrol >/dev/null 2>"$work/err"
expect "no scontrol: exit 4, named" "$? $(grep -c 'scontrol' "$work/err")" "4 1"

# A slow slurmctld (1.2 s, past the 1 s --timeout; scontrol gets at least 2 s): the verdict is
# printed once and scontrol still runs; the watchdog no longer
# fires after the verdict (it used to print a second, failing report and exit 5).
state "IDLE+DRAIN" "ibsetup: old reason"
echo 1.2 >"$work/slow"
out=$(check --sysfs-root "$healthy" --timeout 1 --format json 2>"$work/err")
expect "slow scontrol after a pass: exit 0" "$?" 0
expect "slow scontrol after a pass: one report" "$(grep -c '"host"' <<<"$out")" 1
expect "slow scontrol after a pass: resumed" "$(tail -1 "$work/argv.log")" \
  "update|NodeName=hdr01|State=RESUME"
rm -f "$work/slow"

# scontrol's two runs share what is left of --timeout: a show that took 3 s of a 4 s budget
# leaves the update its 2 s floor (it used to get the whole budget again).
cat >"$work/scontrol-hang" <<FAKE
#!/bin/bash
if [ "\$1" = show ]; then sleep 3; printf 'NodeName=%s\n   State=IDLE\n   Reason=none\n' "\$3"; exit 0; fi
exec sleep 60
FAKE
chmod +x "$work/scontrol-hang"
"$ibsetup" check "$profile" --node hdr01 --scontrol "$work/scontrol-hang" --slurm-drain \
  --sysfs-root "$broken" --timeout 4 >/dev/null 2>"$work/err"
expect "hung update: what is left of the budget, floor 2 s" "$(cat "$work/err")" \
  "ibsetup: error: slurm: scontrol update NodeName=hdr01 State=DRAIN: did not finish within 2 s and was killed"

# A hung check is ended by the watchdog with one failing report, and drains the node like a
# failure. The hang is real: the saved inventory comes on standard input, a FIFO this script
# holds open and never writes to, as a hung file system would (no test hook in ibsetup).
mkfifo "$work/hang"
exec 8<>"$work/hang"
state "IDLE" "none"
start=$(date +%s%N)
out=$(check --inventory - --timeout 1 --format json <"$work/hang" 2>"$work/err")
code=$?
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
expect "hung check: exit 5" "$code" 5
expect "hung check: one timeout report" \
  "$(python3 -c "import json,sys; d=json.loads(sys.stdin.read()); print(d['ok'], [c['id'] for c in d['checks']])" <<<"$out")" \
  "False ['timeout']"
expect "hung check: drained as timed out" "$(tail -1 "$work/argv.log")" \
  "update|NodeName=hdr01|State=DRAIN|Reason=ibsetup: hdr01: check did not finish within 1 s (--timeout)"
expect "hung check: ended by the watchdog (${elapsed_ms} ms < 4000)" "$((elapsed_ms < 4000))" 1
exec 8>&-

# Standard output a pipe that is full and not read (a stuck wrapper): Slurm hears the verdict
# before the report is written. It used to wait for the reader, past --timeout, for ever.
state "IDLE" "none"
(
  head -c 65536 /dev/zero
  check --sysfs-root "$broken" --timeout 5 2>/dev/null
) | {
  sleep 2
  tail -1 "$work/argv.log" >"$work/seen"
  cat >/dev/null
}
expect "full output: drained before the report was read" "$(cut -d'|' -f1-3 "$work/seen")" \
  "update|NodeName=hdr01|State=DRAIN"

# Standard output a pipe whose reader is gone (a killed health-check wrapper): the check used
# to die of SIGPIPE at its first line, before Slurm heard of the failure or the textfile was
# written. Python gives the child SIGPIPE at its default, as a shell does.
state "IDLE" "none"
mkdir "$work/tf"
code=$(python3 - "$ibsetup" check "$profile" --node hdr01 --scontrol "$work/scontrol" \
  --slurm-drain --sysfs-root "$broken" --format nhc --textfile-dir "$work/tf" 2>"$work/err" <<'PY'
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
print(subprocess.call(sys.argv[1:], stdout=w))
PY
)
expect "closed output, failing node: exit 5" "$code" 5
expect "closed output, failing node: drained" "$(tail -1 "$work/argv.log" | cut -d'|' -f1-3)" \
  "update|NodeName=hdr01|State=DRAIN"
expect "closed output, failing node: metrics written" \
  "$(grep -c '^ibsetup_check_ok 0$' "$work/tf/ibsetup.prom")" 1

# The textfile past `ulimit -f`: its write raised SIGXFSZ, whose default ended the check
# before scontrol ran (exit 153, no message, the temporary file left for good). Now the write
# fails (EFBIG), named by the textfile's own name; the node is drained and the check exits 5.
state "IDLE" "none"
rm -rf "$work/tf"
mkdir "$work/tf"
prlimit --fsize=200 -- "$ibsetup" check "$profile" --node hdr01 --scontrol "$work/scontrol" \
  --slurm-drain --sysfs-root "$broken" --format nhc --textfile-dir "$work/tf" 2>&1 >/dev/null |
  cat >"$work/err" # (standard error into a pipe, which the limit does not cover)
expect "file size limit: exit 5" "${PIPESTATUS[0]}" 5
expect "file size limit: drained" "$(tail -1 "$work/argv.log" | cut -d'|' -f1-3)" \
  "update|NodeName=hdr01|State=DRAIN"
expect "file size limit: the textfile named" \
  "$(grep -c "error: $work/tf/ibsetup.prom: cannot write: File too large" "$work/err")" 1
expect "file size limit: no temporary file left" "$(ls -A "$work/tf")" ""

# A descriptor inherited above the soft RLIMIT_NOFILE (a parent with a higher limit): glibc
# refuses a spawn action on it (EBADF), and no program could be run ("cannot prepare to run a
# program: Bad file descriptor"): the node was not drained. It is closed on exec instead.
state "IDLE" "none"
: >"$work/argv.log"
bash -c 'exec 200>/dev/null; exec prlimit --nofile=64:1024 -- "$@"' high-fd "$ibsetup" check \
  "$profile" --node hdr01 --scontrol "$work/scontrol" --slurm-drain --sysfs-root "$broken" \
  --format nhc >/dev/null 2>"$work/err"
expect "descriptor above the soft limit: exit 5" "$?" 5
expect "descriptor above the soft limit: drained" \
  "$(tail -1 "$work/argv.log" | cut -d'|' -f1-3)" "update|NodeName=hdr01|State=DRAIN"

echo "slurm: $pass passed, $fail failed"
[ "$fail" = 0 ]
