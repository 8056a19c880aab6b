#!/bin/bash
# Hostile JSON input: `check --inventory` and `report` read JSON
# strictly, refuse deep nesting and duplicate keys cleanly, and `report` keeps memory bounded
# whatever the input and fails (never a "FAILED: 0 hosts" summary) when the input does.
source "$(dirname "$0")/lib.sh" "$@"

profile=$src/tests/data/check/cluster.yaml
"$bin" inspect --json --sysfs-root "$src/tests/fixtures/sysfs/hdr-2hca" >"$tmp/inv.json"
hostile inventory-valid 0 'hdr01: ok' -- check "$profile" --node hdr01 --inventory "$tmp/inv.json"
hostile_stdin inventory-stdin 0 'hdr01: ok' "$tmp/inv.json" \
  check "$profile" --node hdr01 --inventory -
# A standard input left non-blocking by whoever else holds the pipe, and still empty when
# ibsetup first reads it: ibsetup waits for the data (it used to fail with "cannot read
# standard input: Resource temporarily unavailable").
# nonblocking_case NAME INPUT 'FIXED STRING' ARGS...: exit 0 and FIXED STRING in the output.
nonblocking_case() {
  local name=$1 input=$2 text=$3 code
  shift 3
  timeout -k 5 30 python3 "$src/tests/hostile/nonblocking_stdin.py" "$input" "$bin" "$@" \
    >"$tmp/nb.out" 2>&1
  code=$?
  if [ "$code" = 0 ] && grep -qF -- "$text" "$tmp/nb.out"; then
    ok "$name"
  else
    bad "$name: exit $code, want 0 and '$text'; output:"
    head -20 "$tmp/nb.out" | cat -v
  fi
}
nonblocking_case inventory-stdin-nonblocking "$tmp/inv.json" 'hdr01: ok' \
  check "$profile" --node hdr01 --inventory -
# `-` on a terminal would wait for typing: a forgotten pipe, refused as a usage error. script(1)
# gives the command a pseudo-terminal as its standard input.
# terminal_case NAME 'FIXED STRING' ARGS...
terminal_case() {
  local name=$1 text=$2 line
  shift 2
  printf -v line '%q ' "$bin" "$@"
  timeout -k 5 30 script -qec "$line" /dev/null </dev/null >"$tmp/tty.out" 2>&1
  local code=$?
  if [ "$code" = 2 ] && grep -qF -- "$text" "$tmp/tty.out"; then
    ok "$name"
  else
    bad "$name: exit $code, want 2 and '$text'; output:"
    head -20 "$tmp/tty.out" | cat -v
  fi
}
terminal_case inventory-stdin-terminal \
  'error: --inventory -: standard input is a terminal; pipe `ibsetup inspect --json` into it' \
  check "$profile" --node hdr01 --inventory -
terminal_case partitions-stdin-terminal \
  'error: --inventories -: standard input is a terminal; pipe `ibsetup inspect --json` lines' \
  partitions "$profile" --inventories -
terminal_case report-stdin-terminal \
  'error: report -: standard input is a terminal; pipe the output of clush or pdsh into it' \
  report
# A FIFO nobody writes to is refused before it is opened; it used to block until the watchdog
# failed the check (exit 5, "did not finish"). A device is not opened either.
mkfifo "$tmp/fifo.json"
HOSTILE_TIMEOUT=4 hostile inventory-fifo 3 'fifo.json is a FIFO: give a saved' \
  -- check "$profile" --node hdr01 --inventory "$tmp/fifo.json" --timeout 3
hostile inventory-device 3 '/dev/null is a character device: give a saved' \
  -- check "$profile" --node hdr01 --inventory /dev/null

# Each form RFC 8259 refuses, put where the saved inventory has a number or a string.
inventory_case() { # NAME SED-EXPRESSION FIXED-STRING
  sed "$2" "$tmp/inv.json" >"$tmp/$1.json"
  if cmp -s "$tmp/inv.json" "$tmp/$1.json"; then
    bad "inventory-$1: the edit changed nothing"
    return
  fi
  hostile "inventory-$1" 3 "$1.json: not an \`ibsetup inspect --json\` inventory: $3" -- \
    check "$profile" --node hdr01 --inventory "$tmp/$1.json"
}
inventory_case empty-name 's/"name":"mlx5_0"/"name":""/' \
  "devices[0].name: '' is not a name sysfs can give"
inventory_case rate-huge 's/"rate_gbps":200.0/"rate_gbps":1e308/' \
  "devices[0].ports[0].rate_gbps: 1e+308 Gb/s is no link's rate (0 to 1000000)"
inventory_case nan 's/"link_width":16/"link_width":NaN/' 'line 1, column '
inventory_case leading-zero 's/"link_width":16/"link_width":016/' 'line 1, column '
inventory_case plus 's/"link_width":16/"link_width":+16/' 'line 1, column '
inventory_case lone-surrogate 's/"host":"[^"]*"/"host":"\\ud800"/' \
  'line 1, column 16: syntax error while parsing value - invalid string: surrogate U+D'
inventory_case bad-utf8 's/"host":"[^"]*"/"host":"v\xe9"/' \
  'line 1, column 12: syntax error while parsing value - invalid string: ill-formed UTF-8 byte'
inventory_case duplicate-key 's/"host":"[^"]*"/"host":"vm","host":"vn"/' 'line 1, column 14: duplicate key host'
inventory_case wrong-type 's/"link_width":16/"link_width":"16"/' \
  'devices[0].pci.link_width: expected an integer, got a string'

# A NUL and anything after a valid inventory: the JSON library would stop at the NUL.
{ cat "$tmp/inv.json"; printf '\0{"not":"read"}'; } >"$tmp/nul.json"
hostile inventory-nul 3 'nul.json: not an `ibsetup inspect --json` inventory: line 2, column 1: a NUL byte' -- \
  check "$profile" --node hdr01 --inventory "$tmp/nul.json"

# 100,000 nested arrays: refused at level 65, no stack overflow (parse or destruction).
{
  printf '{"host":'
  head -c 100000 /dev/zero | tr '\0' '['
} >"$tmp/deep.json"
hostile inventory-deep 3 'line 1, column 72: arrays and objects nested deeper than 64' -- \
  check "$profile" --node hdr01 --inventory "$tmp/deep.json"
head -c $((17 * 1024 * 1024)) /dev/zero | tr '\0' ' ' >"$tmp/big.json"
hostile inventory-too-big 3 'big.json: not an `ibsetup inspect --json` inventory: larger than 16 MiB' -- \
  check "$profile" --node hdr01 --inventory "$tmp/big.json"

# report: one 100 MB line is read past in bounded memory (it is cn01's invalid output), and
# the next host still counts.
pass_line='{"host":"cn02","ok":true,"checks":[{"id":"port.state","status":"pass"}]}'
{
  printf 'cn01: {"host":"cn01","x":"'
  head -c 100000000 /dev/zero | tr '\0' 'a'
  printf '"}\ncn02: %s\n' "$pass_line"
} >"$tmp/huge.txt"
HOSTILE_MEM_MB=64 hostile report-100mb-line 5 \
  'cn01: a line of 100000028 bytes, longer than the 1048576 a result may have' -- \
  report "$tmp/huge.txt"
grep -qF 'fleet: FAILED: 2 hosts: 1 passed, 0 failed, 1 invalid output' "$out" &&
  ok "report-100mb-line: cn02 counted" || bad "report-100mb-line: summary: $(tail -1 "$out")"
quoted=$(grep -F '"cn01: {' "$out" | head -1)
[ -n "$quoted" ] && [ "${#quoted}" -lt 300 ] && ok "report-100mb-line: the quote is short (${#quoted} bytes)" ||
  bad "report-100mb-line: quote of ${#quoted} bytes"

# Strictness and nesting in result lines: the host's invalid output, with the reason.
{
  echo 'cn01: {"host":"cn01","ok":false,"ok":true,"checks":[]}'
  echo 'cn02: {"host":"cn02","ok":true,"checks":[],"n":NaN}'
  printf 'cn03: {"host":"cn03","ok":true,"checks":'
  head -c 100000 /dev/zero | tr '\0' '['
  echo
} >"$tmp/strict.txt"
hostile_stdin report-duplicate-key 5 'cn01: not JSON: line 1, column 27: duplicate key ok' "$tmp/strict.txt" report
hostile_stdin report-nan 5 'cn02: not JSON: line 1, column ' "$tmp/strict.txt" report
hostile_stdin report-deep 5 'cn03: not JSON: line 1, column 98: arrays and objects nested deeper than 64' \
  "$tmp/strict.txt" report

# Bare lines (clush -N) and no --expect: a passing host, then a NUL and a failing result on
# one line, and a forged line that is not strict JSON. Neither may leave the fleet ok.
{
  printf '{"host":"cn01","ok":true,"checks":[]}\0{"host":"cn01","ok":false,"checks":[]}\n'
  echo '{"host":"cn02","ok":true,"checks":[]}'
  echo '{"host":"cn03","ok":false,"ok":false,"checks":[]}'
} >"$tmp/bare.txt"
hostile_stdin report-bare-invalid 5 \
  'fleet: FAILED: 1 host: 1 passed, 0 failed, 0 invalid output, 0 did not answer, 2 invalid results naming no host' \
  "$tmp/bare.txt" report

# A directory is not input: exit 4, like a missing file (it was a read error "after line 0",
# exit 3). A read error is an error, not a summary of what came before it (below).
hostile report-directory 4 'is a directory; give the file clush or pdsh wrote' -- report "$tmp"
# Standard input that fails mid-read: a loopback TCP connection reset after two lines
# (std::cin through stdio would take the reset for the end of the input).
reset_case() {
  local name=report-stdin-reset
  python3 - "$bin" "$HOSTILE_TIMEOUT" >"$tmp/reset.out" 2>&1 <<'EOF'
import socket, struct, subprocess, sys, time
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(1)
client = socket.create_connection(server.getsockname())
peer, _ = server.accept()
child = subprocess.Popen([sys.argv[1], "report"], stdin=client, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT)
client.close()
peer.sendall(b'cn01: {"host":"cn01","ok":true,"checks":[]}\ncn02: {"host":"cn02","ok"')
time.sleep(0.5)
peer.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
peer.close()  # with linger 0: a reset, ECONNRESET for the reader
try:
    output, _ = child.communicate(timeout=int(sys.argv[2]))
except subprocess.TimeoutExpired:
    child.kill()
    print("hung")
    sys.exit(0)
sys.stdout.write(output.decode(errors="replace"))
print("exit %d" % child.returncode)
EOF
  local want='ibsetup: error: standard input: cannot read the input after line 1: Connection reset by peer'
  if grep -qF "$want" "$tmp/reset.out" && grep -qx 'exit 3' "$tmp/reset.out" &&
    ! grep -q 'fleet:' "$tmp/reset.out"; then
    ok "$name"
  else
    bad "$name: output:"
    head -c 2000 "$tmp/reset.out" | cat -v
  fi
}
reset_case

# report from a standard input left non-blocking and empty at first (the same as
# inventory-stdin-nonblocking above): it waits for the lines.
printf 'cn02: %s\n' "$pass_line" >"$tmp/one.txt"
nonblocking_case report-stdin-nonblocking "$tmp/one.txt" '1 host' report

# A line that never ends (a host whose output has no newline) ends the run.
hostile_stdin report-endless-line 3 'line 1 is longer than 1073741824 bytes and has not ended' \
  /dev/zero report -
# A device is not opened: opening one can act on it (a watchdog arms, a tty becomes the
# controlling terminal). It used to be read (/dev/zero: the endless line above).
hostile report-device 4 'zero: is a character device; give the file clush or pdsh wrote' \
  -- report /dev/zero
hostile report-missing-input 4 'cannot open' -- report "$tmp/no-such-input"

finish
