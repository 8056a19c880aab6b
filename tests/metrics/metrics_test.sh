#!/bin/bash
# Issue 18: check's and report's Prometheus metrics read by the real tools. promtool accepts
# every output (healthy, failing, odd names and messages, fleet reports) with no lint problem;
# the samples agree with check --json result by result; --textfile-dir's file is 0644 under
# umask 077, replaced atomically, with no temporary file after a failing, timed-out or killed
# run; a real node_exporter serves it (node_textfile_scrape_error 0); README's alert rules pass
# `promtool check rules`. Exit 77 (skipped) without promtool; without node_exporter it fails
# (CI installs it: a silent pass would hide that its cases never ran) unless
# IBSETUP_ALLOW_MISSING_TOOLS is set, then it is skipped as a whole.
# Usage: metrics_test.sh IBSETUP SOURCE_DIR
set -uo pipefail
ibsetup=$1 src=$2
if ! command -v promtool >/dev/null 2>&1; then
  echo "SKIP: promtool (Debian package prometheus) is not installed"
  exit 77
fi
exporter=$(command -v prometheus-node-exporter || command -v node_exporter)
if [ -z "$exporter" ]; then
  if [ -n "${IBSETUP_ALLOW_MISSING_TOOLS:-}" ]; then
    echo "SKIP: node_exporter (Debian package prometheus-node-exporter) is not installed"
    exit 77
  fi
  echo "FAIL: node_exporter (Debian package prometheus-node-exporter) is not installed;" \
    "set IBSETUP_ALLOW_MISSING_TOOLS=1 to skip this test"
  exit 1
fi
work=$(mktemp -d)
exporter_pid=""
writer_pid=""
cleanup() {
  [ -n "$exporter_pid" ] && kill "$exporter_pid" 2>/dev/null
  [ -n "$writer_pid" ] && kill "$writer_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
. "$src/tests/scripts/expect.sh"
fixtures=$src/tests/fixtures/sysfs
profile=$src/tests/data/check/cluster.yaml

# lint NAME FILE: promtool check metrics finds neither a parse error nor a lint problem.
lint() {
  local out rc
  out=$(promtool check metrics <"$2" 2>&1)
  rc=$?
  expect "$1: promtool check metrics" "$rc${out:+: $out}" 0
}

# agree NAME JSON METRICS: every result of check --json has its ibsetup_check_failed and
# ibsetup_check_warning sample with the value its status says, and ibsetup_check_ok is "ok".
agree() {
  local out
  out=$(python3 - "$2" "$3" <<'PY'
import json, re, sys
report = json.load(open(sys.argv[1], encoding="utf-8", errors="surrogateescape"))
samples = {}
for line in open(sys.argv[2], encoding="utf-8"):
    if not line.startswith("#"):
        key, value = line.rstrip("\n").rsplit(" ", 1)
        samples[key] = value
def esc(s):
    return s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
problems = []
for c in report["checks"]:
    for family, status in (("failed", "fail"), ("warning", "warn")):
        key = 'ibsetup_check_%s{id="%s",subject="%s"}' % (family, esc(c["id"]), esc(c["subject"]))
        want = "1" if c["status"] == status else "0"
        if samples.get(key) != want:
            problems.append("%s: %s, want %s" % (key, samples.get(key), want))
    if "value" in c:
        key = 'ibsetup_check_value{id="%s",subject="%s",unit="%s"}' % (
            esc(c["id"]), esc(c["subject"]), esc(c["unit"]))
        if key not in samples or float(samples[key]) != float(c["value"]):
            problems.append("%s: %s, want %s" % (key, samples.get(key), c["value"]))
if samples.get("ibsetup_check_ok") != ("1" if report["ok"] else "0"):
    problems.append("ibsetup_check_ok")
n = sum(1 for k in samples if k.startswith("ibsetup_check_failed{"))
if n != len({(c["id"], c["subject"]) for c in report["checks"]}):
    problems.append("%d ibsetup_check_failed samples for %d results" % (n, len(report["checks"])))
print("; ".join(problems) if problems else "agree (%d results)" % len(report["checks"]))
PY
)
  expect "$1: metrics agree with --json" "${out%% (*}" agree
}

# --- Every fixture: healthy and failing hosts ------------------------------------------------
for tree in "$fixtures"/*/; do
  name=$(basename "$tree")
  "$ibsetup" check "$profile" --node hdr01 --sysfs-root "$tree" --counters -q \
    --format openmetrics >"$work/$name.prom" 2>/dev/null
  rc=$?
  lint "$name (exit $rc)" "$work/$name.prom"
  "$ibsetup" check "$profile" --node hdr01 --sysfs-root "$tree" --counters -q --json \
    >"$work/$name.json" 2>/dev/null
  agree "$name" "$work/$name.json" "$work/$name.prom"
done
expect "healthy: ibsetup_check_ok 1" "$(grep '^ibsetup_check_ok ' "$work/hdr-2hca.prom")" \
  "ibsetup_check_ok 1"
expect "port down: ibsetup_check_ok 0" "$(grep '^ibsetup_check_ok ' "$work/port-down-polling.prom")" \
  "ibsetup_check_ok 0"
# The fixture lacks the declared mlx5_1: its port keeps its series too, at 0.
expect "port down: its rate series stays, at 0; the absent HCA's port too" \
  "$(grep '^ibsetup_port_rate_bytes_per_second{.*} 0$' "$work/port-down-polling.prom" | tr '\n' ' ')" \
  'ibsetup_port_rate_bytes_per_second{device="mlx5_0",port="1"} 0 ibsetup_port_rate_bytes_per_second{device="mlx5_1",port="1"} 0 '

# --- Odd names and messages: quotes, backslashes, newlines, bytes that are not UTF-8 --------
cp -a "$fixtures/hdr-2hca" "$work/odd"
dev=$work/odd/class/infiniband/mlx5_0
printf '20.31.1014"} 1\nevil 1 \\ \xff\xfe \033]0;pwn\007\033[2J\177\n' >"$dev/fw_ver"
printf 'MT4123 \xc3\x28 "x"\n' >"$dev/hca_type"
printf '4: ACT"IVE\\\n' >"$dev/ports/1/state"
printf '200 Gb/sec (4X "HDR" \xe9)\n' >"$dev/ports/1/rate"
"$ibsetup" check "$profile" --node hdr01 --sysfs-root "$work/odd" --counters -q \
  --format openmetrics >"$work/odd.prom" 2>/dev/null
lint "odd sysfs strings" "$work/odd.prom"
"$ibsetup" check "$profile" --node hdr01 --sysfs-root "$work/odd" --counters -q --json \
  >"$work/odd.json" 2>/dev/null
agree "odd sysfs strings" "$work/odd.json" "$work/odd.prom"
expect "odd: no forged sample line" "$(grep -c '^evil' "$work/odd.prom")" 0
# Control bytes (ESC, BEL, DEL) never reach a terminal that cats the output or the textfile.
expect "odd: no control byte on stdout" "$(LC_ALL=C grep -c $'[\x01-\x09\x0b-\x1f\x7f]' "$work/odd.prom")" 0
mkdir "$work/oddtf"
"$ibsetup" check "$profile" --node hdr01 --sysfs-root "$work/odd" --counters -q \
  --textfile-dir "$work/oddtf" >/dev/null 2>&1
lint "odd sysfs strings, textfile" "$work/oddtf/ibsetup.prom"
expect "odd: no control byte in the textfile" \
  "$(LC_ALL=C grep -c $'[\x01-\x09\x0b-\x1f\x7f]' "$work/oddtf/ibsetup.prom")" 0
# A saved inventory whose device name holds a quote and a newline, and a message quoting it.
"$ibsetup" inspect --sysfs-root "$fixtures/hdr-2hca" --json >"$work/inv.json" 2>/dev/null
python3 - "$work/inv.json" <<'PY'
import json, sys
inv = json.load(open(sys.argv[1]))
inv["devices"][0]["name"] = 'mlx5_"0\\\n}'
for n in inv["netdevs"]:  # still bound to the device, as the reader insists
    if n.get("device") == "mlx5_0":
        n["device"] = inv["devices"][0]["name"]
inv["devices"][0]["fw_ver"] = "1.2\u00e9\u2028\u001b[2J\u0007\u0000\u007f"
json.dump(inv, open(sys.argv[1], "w"))
PY
"$ibsetup" check "$profile" --node hdr01 --inventory "$work/inv.json" -q --format openmetrics \
  >"$work/inv.prom" 2>/dev/null
lint "odd saved inventory" "$work/inv.prom"
expect "odd inventory: no control byte" \
  "$(LC_ALL=C grep -c $'[\x01-\x09\x0b-\x1f\x7f]' "$work/inv.prom")" 0
expect "odd inventory: the device label escaped" \
  "$(grep -c '^ibsetup_hca_info{device="mlx5_\\"0\\\\\\n}"' "$work/inv.prom")" 1

# --- report --format openmetrics ---------------------------------------------------------------
{
  for name in hdr-2hca port-down-polling pcie-x8 no-sm odd; do
    printf '%s: ' "$name" | tr -d '\n'
    tr -d '\n' <"$work/$name.json"
    echo
  done
  echo 'cn900: not json at all \\ "'
  printf 'cn901: {"broken" \xff\n'
} >"$work/fleet.txt"
"$ibsetup" report "$work/fleet.txt" --expect 'hdr-2hca,absent01' --format openmetrics \
  >"$work/fleet.prom"
expect "report --format openmetrics: exit 5 (the fleet failed)" "$?" 5
lint "report" "$work/fleet.prom"
expect "report: hosts by outcome" "$(grep '^ibsetup_fleet_hosts{' "$work/fleet.prom" | tr '\n' ' ')" \
  'ibsetup_fleet_hosts{outcome="failed"} 4 ibsetup_fleet_hosts{outcome="invalid"} 2 ibsetup_fleet_hosts{outcome="no_answer"} 1 ibsetup_fleet_hosts{outcome="passed"} 1 '
"$ibsetup" report "$work/fleet.txt" --json --format openmetrics >/dev/null 2>&1
expect "report --json --format openmetrics: usage error" "$?" 2

# --- --textfile-dir ------------------------------------------------------------------------
dir=$work/textfile
mkdir "$dir"
out=$(umask 077 && "$ibsetup" check "$profile" --node hdr01 --sysfs-root "$fixtures/hdr-2hca" \
  -q --textfile-dir "$dir")
expect "--textfile-dir: exit 0" "$?" 0
expect "--textfile-dir: stdout keeps --format (text)" "$(echo "$out" | tail -1 | cut -d' ' -f1-2)" \
  "hdr01: ok"
expect "--textfile-dir: mode 0644 under umask 077" "$(stat -c %a "$dir/ibsetup.prom")" 644
"$ibsetup" check "$profile" --node hdr01 --sysfs-root "$fixtures/hdr-2hca" -q --format openmetrics \
  >"$work/plain.prom"
expect "--textfile-dir: the metrics --format openmetrics prints" \
  "$(diff <(grep -v '_seconds ' "$dir/ibsetup.prom") <(grep -v '_seconds ' "$work/plain.prom") |
    head -3)" ""
expect "--textfile-dir: only ibsetup.prom" "$(ls -A "$dir")" ibsetup.prom
cp "$dir/ibsetup.prom" "$work/before.prom"
# Another process's temporary file is never touched.
touch "$dir/.ibsetup.prom.1.tmp"
"$ibsetup" check "$work/none.yaml" --node hdr01 --textfile-dir "$dir" >/dev/null 2>&1
expect "a check that fails to start: exit 4" "$?" 4
expect "... leaves the file and no temporary file" \
  "$(ls -A "$dir" | tr '\n' ' '; cmp "$dir/ibsetup.prom" "$work/before.prom" && echo same)" \
  ".ibsetup.prom.1.tmp ibsetup.prom same"
# A --textfile-dir that is not there fails as a write does: after the verdict, so a failed
# node is still reported (and drained) and keeps its exit 5.
"$ibsetup" check "$profile" --node hdr01 --sysfs-root "$fixtures/hdr-2hca" -q \
  --textfile-dir "$work/nodir" >"$work/out" 2>"$work/err"
expect "a missing --textfile-dir: exit 4, the report printed" \
  "$?:$(tail -1 "$work/out" | cut -d' ' -f1-2):$(cat "$work/err")" \
  "4:hdr01: ok:ibsetup: error: --textfile-dir $work/nodir: No such file or directory"
"$ibsetup" check "$profile" --node hdr01 --sysfs-root "$fixtures/hdr-2hca" -q \
  --textfile-dir "$profile" >/dev/null 2>"$work/err"
expect "a --textfile-dir that is a file: exit 4" "$?:$(cat "$work/err")" \
  "4:ibsetup: error: --textfile-dir $profile: not a directory"
"$ibsetup" check "$profile" --node hdr01 --sysfs-root "$fixtures/port-down-polling" \
  --format nhc --textfile-dir "$work/nodir" >"$work/out" 2>"$work/err"
expect "a failed node and a missing --textfile-dir: exit 5, the verdict printed" \
  "$?:$(grep -c '^ERROR:  ibsetup:  Health check failed:' "$work/out"):$(cat "$work/err")" \
  "5:9:ibsetup: error: --textfile-dir $work/nodir: No such file or directory"
"$ibsetup" check "$profile" --node hdr01 --format prom --textfile-dir "$work/nodir" >/dev/null 2>&1
expect "a bad --format comes first: usage error" "$?" 2
# The write itself fails (the target is a directory): exit 4 after the verdict, no temp file.
mkdir -p "$work/blocked/ibsetup.prom/x"
"$ibsetup" check "$profile" --node hdr01 --sysfs-root "$fixtures/hdr-2hca" -q \
  --textfile-dir "$work/blocked" >"$work/out" 2>"$work/err"
expect "a failing write: exit 4, the report printed" "$?:$(tail -1 "$work/out" | cut -d' ' -f1-2)" \
  "4:hdr01: ok"
expect "a failing write: the reason" "$(grep -c 'ibsetup.prom: cannot replace' "$work/err")" 1
expect "a failing write: no temporary file" "$(ls -A "$work/blocked")" ibsetup.prom
# A failed node and a failing write: the node's exit 5 wins, the write error is still printed.
"$ibsetup" check "$profile" --node hdr01 --sysfs-root "$fixtures/port-down-polling" -q \
  --textfile-dir "$work/blocked" >/dev/null 2>"$work/err"
expect "a failed node and a failing write: exit 5" "$?" 5
expect "a failed node and a failing write: the reason" \
  "$(grep -c 'ibsetup.prom: cannot replace' "$work/err")" 1
# A run that hangs and is stopped by SIGTERM before any write: the old file stays. The hang is
# real: the saved inventory comes on standard input, a FIFO this script holds open and never
# writes to, as a hung file system would. A signal inside the write itself (the temporary file
# removed) is the unit test Textfile.AStopSignalDuringTheWriteRemovesTheTemporaryFile; a shell
# cannot time it.
mkfifo "$work/hang"
exec 8<>"$work/hang"
"$ibsetup" check "$profile" --node hdr01 --inventory - --timeout 60 \
  --textfile-dir "$dir" <"$work/hang" >/dev/null 2>&1 &
victim=$!
sleep 0.5
kill -TERM "$victim"
wait "$victim"
expect "SIGTERM: ended by the signal" "$?" $((128 + 15))
expect "SIGTERM before the write: the old file, none written" \
  "$(ls -A "$dir" | tr '\n' ' '; cmp "$dir/ibsetup.prom" "$work/before.prom" && echo same)" \
  ".ibsetup.prom.1.tmp ibsetup.prom same"
# The same hang past --timeout: the watchdog's verdict reaches the textfile too.
"$ibsetup" check "$profile" --node hdr01 --inventory - --timeout 1 \
  --textfile-dir "$dir" <"$work/hang" >/dev/null 2>&1
expect "timeout: exit 5" "$?" 5
lint "timeout" "$dir/ibsetup.prom"
expect "timeout: the failure in the textfile" \
  "$(grep -E '^ibsetup_check_(ok|failed)' "$dir/ibsetup.prom" | tr '\n' ' ')" \
  'ibsetup_check_failed{id="timeout",subject="hdr01"} 1 ibsetup_check_ok 0 '
expect "timeout: no temporary file of its own" "$(ls -A "$dir" | tr '\n' ' ')" \
  ".ibsetup.prom.1.tmp ibsetup.prom "
# The watchdog's report to a full standard output: the process ends on the watchdog's thread,
# which used to say nothing of the lost report; now it does, and that the metrics are written.
"$ibsetup" check "$profile" --node hdr01 --inventory - --timeout 1 \
  --textfile-dir "$dir" <"$work/hang" >/dev/full 2>"$work/err"
expect "timeout, standard output full: exit 5, the loss said, the metrics written" \
  "$? $(cat "$work/err")" \
  "5 ibsetup: error: cannot write to standard output: No space left on device; what it shows is incomplete, but the metrics are in $dir/ibsetup.prom"
rm -f "$dir/.ibsetup.prom.1.tmp"
exec 8>&-

# The timer's service runs its ExecStart as written (the host swapped for a fixture): exit 5 for
# a failed node, which the unit counts as success, and the file written.
unit=$src/packaging/systemd/ibsetup-metrics.service.in
cmd=$(sed -n 's/^ExecStart=//p' "$unit" | sed "s#@CMAKE_INSTALL_FULL_SBINDIR@/ibsetup#$ibsetup#;
  s#@CMAKE_INSTALL_FULL_SYSCONFDIR@/ibsetup/cluster.yaml#$profile#;
  s#\${IBSETUP_TEXTFILE_DIR}#$work/unitdir#")
mkdir "$work/unitdir"
read -r -a argv <<<"$cmd"
"${argv[@]}" --node hdr01 --sysfs-root "$fixtures/port-down-polling" >"$work/unit.out" 2>&1
rc=$?
expect "the unit's command: exit 5 on a failed node" "$rc" 5
expect "the unit: SuccessExitStatus=5" "$(grep -c '^SuccessExitStatus=5$' "$unit")" 1
expect "the unit's command: NHC lines on stdout" "$(head -c 40 "$work/unit.out")" \
  "ERROR:  ibsetup:  Health check failed:  "
expect "the unit's command: the textfile" "$(grep '^ibsetup_check_ok ' "$work/unitdir/ibsetup.prom")" \
  "ibsetup_check_ok 0"

# --- A real node_exporter serves the file ------------------------------------------------------
"$ibsetup" check "$profile" --node hdr01 --sysfs-root "$fixtures/port-down-polling" -q \
  --counters --textfile-dir "$dir" >/dev/null 2>&1
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$exporter" --collector.disable-defaults --collector.textfile \
  --collector.textfile.directory="$dir" --web.listen-address="127.0.0.1:$port" \
  >"$work/exporter.log" 2>&1 &
exporter_pid=$!
scraped=""
for _ in $(seq 50); do
  scraped=$(curl -sf "http://127.0.0.1:$port/metrics") && break
  sleep 0.2
done
echo "$scraped" >"$work/scraped.prom"
expect "node_exporter: node_textfile_scrape_error 0" \
  "$(grep '^node_textfile_scrape_error' "$work/scraped.prom")" "node_textfile_scrape_error 0"
for family in ibsetup_check_ok ibsetup_check_failed ibsetup_check_warning \
  ibsetup_check_timestamp_seconds ibsetup_check_duration_seconds ibsetup_hca_info \
  ibsetup_port_state ibsetup_port_rate_bytes_per_second ibsetup_port_counters; do
  expect "node_exporter serves $family" "$(grep -c "^# TYPE $family gauge" "$work/scraped.prom")" 1
done
expect "node_exporter: the port's failure" \
  "$(grep -c '^ibsetup_check_failed{id="port.state",subject="mlx5_0/1"} 1' "$work/scraped.prom")" 1
# The collector reads the directory at each scrape: now the hostile sysfs strings.
"$ibsetup" check "$profile" --node hdr01 --sysfs-root "$work/odd" -q --counters \
  --textfile-dir "$dir" >/dev/null 2>&1
curl -sf "http://127.0.0.1:$port/metrics" >"$work/scraped2.prom"
expect "node_exporter, odd strings: node_textfile_scrape_error 0" \
  "$(grep '^node_textfile_scrape_error' "$work/scraped2.prom")" "node_textfile_scrape_error 0"
expect "node_exporter, odd strings: the HCA's info, no forged sample" \
  "$(grep -c '^ibsetup_hca_info{device="mlx5_0"' "$work/scraped2.prom"):$(grep -c '^evil' "$work/scraped2.prom")" \
  "1:0"
kill "$exporter_pid"
wait "$exporter_pid" 2>/dev/null
exporter_pid=""

# --- README's alert rules ----------------------------------------------------------------------
awk '/^<!-- alert rules: tests\/metrics -->/ {on=1; next} on && /^```yaml/ {body=1; next}
  body && /^```/ {exit} body {print}' "$src/README.md" >"$work/rules.yml"
expect "README has the alert rules" "$(grep -c 'alert:' "$work/rules.yml")" 2
out=$(promtool check rules "$work/rules.yml" 2>&1)
expect "promtool check rules accepts README's rules" "$?" 0
echo "$out" | grep -q 'SUCCESS: 2 rules found' || echo "$out"
# Each alert fires on its own series and not on the healthy ones.
cat >"$work/rules_test.yml" <<'YAML'
rule_files: [rules.yml]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'ibsetup_check_ok{instance="cn001:9100",job="node"}'
        values: '1 1 0x30'
      - series: 'ibsetup_check_ok{instance="cn002:9100",job="node"}'
        values: '1x32'
      - series: 'ibsetup_rdma_bandwidth_bytes_per_second{instance="cn001:9100",job="node",subject="mlx5_0/1 -> cn002"}'
        values: '24500000000x5 12500000000x30'
      - series: 'ibsetup_rdma_bandwidth_bytes_per_second{instance="cn002:9100",job="node",subject="mlx5_0/1 -> cn001"}'
        values: '24500000000x35'
    alert_rule_test:
      - eval_time: 5m
        alertname: InfinibandCheckFailed
        exp_alerts: []
      - eval_time: 20m
        alertname: InfinibandCheckFailed
        exp_alerts:
          - exp_labels: {severity: warning, instance: "cn001:9100", job: node}
            exp_annotations:
              summary: "cn001:9100 failed its InfiniBand check"
              description: "See ibsetup_check_failed{instance=\"cn001:9100\"} == 1 for the checks."
      - eval_time: 30m
        alertname: RdmaBandwidthLow
        exp_alerts:
          - exp_labels: {severity: warning, instance: "cn001:9100", job: node, subject: "mlx5_0/1 -> cn002"}
            exp_annotations:
              summary: "cn001:9100: RDMA bandwidth mlx5_0/1 -> cn002 below 180 Gb/s"
YAML
out=$(cd "$work" && promtool test rules rules_test.yml 2>&1)
expect "promtool test rules: each alert fires on its series" "$?" 0
echo "$out" | grep -q SUCCESS || echo "$out"

echo "metrics: $pass passed, $fail failed"
[ "$fail" = 0 ]
