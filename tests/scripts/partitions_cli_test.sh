#!/bin/bash
# `ibsetup partitions` as a user runs it: inventories are real `ibsetup inspect --json` output
# of the sysfs fixtures (captured trees), prefixed "HOST: " as clush prints them; checks the
# partitions.conf, --output, the exit codes and the reports of issue 16 item 4.
# Usage: partitions_cli_test.sh IBSETUP SOURCE_DIR
set -u
bin=$1
src=$2
# shellcheck source=expect.sh
source "$(dirname "$0")/expect.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fixtures=$src/tests/fixtures/sysfs
hosts=(hdr-2hca pkey-child no-sm mlx4-connectx3)

# inventory HOST FIXTURE: one clush line, the inventory's own host field set to HOST.
inventory() {
  printf '%s: ' "$1"
  "$bin" inspect --json --sysfs-root "$fixtures/$2" | sed "s/\"host\":\"[^\"]*\"/\"host\":\"$1\"/"
}
for h in "${hosts[@]}"; do inventory "n-$h" "$h"; done >"$dir/all.txt"

# No comment in it: cases below append to it and name its line numbers (shared with
# tests/schema/schema_test.sh).
cp "$src/tests/data/partitions/cluster.yaml" "$dir/c.yaml"

cp "$dir/c.yaml" "$dir/c.orig.yaml"  # later cases edit c.yaml

# run NAME ARGS...: exit code in $code, standard output in $dir/NAME.out, errors in .err.
run() {
  local name=$1
  shift
  "$bin" "$@" >"$dir/$name.out" 2>"$dir/$name.err"
  code=$?
}

run plain partitions "$dir/c.yaml" --inventories - <"$dir/all.txt"
expect "plain: exit 0" "$code" 0
expect "plain: no warnings" "$(cat "$dir/plain.err")" ""
expect "plain: the marker first" "$(head -1 "$dir/plain.out")" \
  "# Managed by ibsetup; changes are overwritten on the next render."
expect "plain: Default kept, 4K broadcast group" \
  "$(grep '^Default' "$dir/plain.out")" "Default=0x7fff, ipoib, mtu=5 : ALL=full ;"
expect "plain: 0x8001's members, sorted by GUID, full" \
  "$(sed -n '/^ib_8001=/,/;/p' "$dir/plain.out")" "ib_8001=0x0001, ipoib, mtu=5 :
  0x0c42a1030016e7e0=full,  # n-hdr-2hca mlx5_0/1
  0x0c42a10300a0e1f0=full ;  # n-pkey-child mlx5_0/1"
expect "plain: 0x8002 named, 2044 gives mtu=4, a limited member" \
  "$(sed -n '/^storage=/,/;/p' "$dir/plain.out")" "storage=0x0002, ipoib, mtu=4 :
  0x0c42a1030016e7e0=full,  # n-hdr-2hca mlx5_0/1
  0x0c42a10300a0b1c0=limited,  # n-no-sm mlx5_0/1
  0x0c42a10300a0e1f0=full ;  # n-pkey-child mlx5_0/1"

# The same input in another order gives the same bytes.
tac "$dir/all.txt" >"$dir/reversed.txt"
run reversed partitions "$dir/c.yaml" --inventories - <"$dir/reversed.txt"
expect "deterministic: same bytes from reordered input" \
  "$(cmp -s "$dir/plain.out" "$dir/reversed.out" && echo same)" same

# A profile change regenerates only the lines it should (issue 16 item 7): one limited member
# more or less of storage is that one line.
cp "$dir/c.yaml" "$dir/v1.yaml"
sed 's/limited: n-no-sm/limited: n-no-sm,n-mlx4-connectx3/' "$dir/c.yaml" >"$dir/v2.yaml"
sed '/limited: n-no-sm/d' "$dir/c.yaml" >"$dir/v3.yaml"
for v in v1 v2 v3; do
  cp "$dir/$v.yaml" "$dir/version.yaml"  # one name: the header names the profile
  "$bin" partitions "$dir/version.yaml" --inventories - <"$dir/all.txt" >"$dir/$v.conf"
done
expect "profile change: a member more is one line more" "$(diff "$dir/v1.conf" "$dir/v2.conf")" \
  "13a14
>   0x0002c90300f9bfa1=limited,  # n-mlx4-connectx3 mlx4_0/1"
expect "profile change: a member less is one line less" "$(diff "$dir/v1.conf" "$dir/v3.conf")" \
  "15d14
<   0x0c42a10300a0b1c0=limited,  # n-no-sm mlx5_0/1"

# A directory of HOST.json files is a source too.
mkdir "$dir/inv"
for h in "${hosts[@]}"; do
  inventory "n-$h" "$h" | sed 's/^[^:]*: //' >"$dir/inv/n-$h.json"
done
run fromdir partitions "$dir/c.yaml" --inventories "$dir/inv"
expect "directory source: same file" "$(cmp -s "$dir/plain.out" "$dir/fromdir.out" && echo same)" \
  same

# The declared device/port comes before the inventory's binding of ib0 (item 2).
awk 'NR==5{print; print "        device: mlx5_1"; print "        port: 1"; next} {print}' \
  "$dir/c.yaml" >"$dir/declared.yaml"
run declared partitions "$dir/declared.yaml" --inventories - <"$dir/all.txt"
expect "declared port: n-pkey-child has no mlx5_1, so it is missing" "$code" 3
expect "declared port: ... naming what its inventory has" \
  "$(grep -c 'missing member n-pkey-child (partition 0x0001, 0x0002): no port for ib0: the inventory has no mlx5_1/1 (declared); InfiniBand ports it has: mlx5_0/1' \
    "$dir/declared.err")" 1
run declared partitions "$dir/declared.yaml" --inventories - --allow-missing <"$dir/all.txt"
expect "declared port: mlx5_1/1 of n-hdr-2hca, not ib0's binding (mlx5_0/1)" \
  "$(grep -c '^  0x0c42a1030016e7f8=full.*# n-hdr-2hca mlx5_1/1$' "$dir/declared.out")" 2

# --output: written atomically, then unchanged; a file ibsetup did not write is left alone.
run out1 partitions "$dir/c.yaml" --inventories - --output "$dir/partitions.conf" <"$dir/all.txt"
expect "--output: created" "$code $(cat "$dir/out1.out")" \
  "0 $dir/partitions.conf: created (3 partitions, 5 members)"
expect "--output: the same content as standard output" \
  "$(cmp -s "$dir/plain.out" "$dir/partitions.conf" && echo same)" same
run out2 partitions "$dir/c.yaml" --inventories - --output "$dir/partitions.conf" <"$dir/all.txt"
expect "--output: unchanged the second time" "$(cat "$dir/out2.out")" \
  "$dir/partitions.conf: unchanged (3 partitions, 5 members)"
echo 'Default=0x7fff : ALL=full ;' >"$dir/hand.conf"
run foreign partitions "$dir/c.yaml" --inventories - --output "$dir/hand.conf" <"$dir/all.txt"
expect "--output: a hand-kept file is refused (exit 4)" "$code" 4
expect "--output: ... and left alone" "$(cat "$dir/hand.conf")" 'Default=0x7fff : ALL=full ;'
# Its report to a full standard output: exit 4, and the error says that the file is in place.
"$bin" partitions "$dir/c.yaml" --inventories - --output "$dir/full.conf" <"$dir/all.txt" \
  >/dev/full 2>"$dir/full.err"
expect "--output, stdout full: exit 4, the file in place and said so" \
  "$? $(cmp -s "$dir/plain.out" "$dir/full.conf" && echo same) $(cat "$dir/full.err")" \
  "4 same ibsetup: error: cannot write to standard output: No space left on device; what it shows is incomplete, but $dir/full.conf is in place"

# A SIGTERM while --output is written: during the rename the file is replaced and reported,
# before it (the file's fsync) the staging is undone and the error says so; either way the
# signal then ends ibsetup (143). The rename used to end it silently, the file replaced.
# /proc/PID/syscall names the held call by number (x86_64: fsync 74, rename 82, renameat 264,
# renameat2 316).
if command -v strace >/dev/null && [ "$(uname -m)" = x86_64 ]; then
  # term_during SYSCALLS NUMBERS NAME: --output NAME.conf held 1.5 s at its first call of
  # SYSCALLS, and a SIGTERM sent to ibsetup (strace's tracee) once it is held there.
  term_during() {
    strace -o /dev/null -e trace="$1" -e inject="$1":delay_enter=1500000:when=1 \
      "$bin" partitions "$dir/c.yaml" --inventories - --output "$dir/$3.conf" \
      <"$dir/all.txt" >"$dir/$3.out" 2>"$dir/$3.err" &
    local s=$! child=""
    for _ in $(seq 1 250); do
      child=$(pgrep -P "$s" | head -1)
      [ -n "$child" ] && [[ " $2 " == *" $(cut -d' ' -f1 "/proc/$child/syscall" 2>/dev/null) "* ]] &&
        break
      sleep 0.02
    done
    kill -TERM "$child"
    wait "$s"
    code=$?
  }
  term_during renameat,renameat2,rename "82 264 316" sig-rename
  expect "SIGTERM during the rename: replaced, reported, exit 143" \
    "$code $(cat "$dir/sig-rename.out") $(cmp -s "$dir/plain.out" "$dir/sig-rename.conf" && echo same)" \
    "143 $dir/sig-rename.conf: created (3 partitions, 5 members) same"
  expect "SIGTERM during the rename: standard error says the file is in place" \
    "$(cat "$dir/sig-rename.err")" \
    "ibsetup: SIGTERM held until the write was complete; $dir/sig-rename.conf is in place"
  term_during fsync 74 sig-stage
  expect "SIGTERM while staging: undone and said, exit 143" \
    "$code $(grep -c "interrupted (SIGTERM) before any file was replaced; nothing was written under $dir" "$dir/sig-stage.err") $(find "$dir" -name '*sig-stage.conf*' | wc -l)" \
    "143 1 0"
  expect "SIGTERM while staging: no claim that anything is in place" \
    "$(grep -c 'in place' "$dir/sig-stage.err")" 0
else
  echo "skip partitions --output and signals: strace missing, or not x86_64"
fi

# Item 4: a host without inventory makes the command fail, and nothing is written.
grep -v '^n-pkey-child:' "$dir/all.txt" >"$dir/missing.txt"
run missing partitions "$dir/c.yaml" --inventories - --output "$dir/m.conf" <"$dir/missing.txt"
expect "missing: exit 3" "$code" 3
expect "missing: names the host and its partitions" \
  "$(grep -c 'missing member n-pkey-child (partition 0x0001, 0x0002): no inventory' \
    "$dir/missing.err")" 1
expect "missing: nothing written" "$([ -e "$dir/m.conf" ] && echo written || echo none)" none
run allow partitions "$dir/c.yaml" --inventories - --allow-missing <"$dir/missing.txt"
expect "--allow-missing: exit 0" "$code" 0
expect "--allow-missing: a comment in each partition it is missing from" \
  "$(grep -c '^  # missing: n-pkey-child: no inventory$' "$dir/allow.out")" 2
run allowq partitions "$dir/c.yaml" --inventories - --allow-missing -q <"$dir/missing.txt"
expect "--allow-missing -q: quiet" "$(cat "$dir/allowq.err")" ""

# A GUID on two hosts fails like a missing member; an unknown host is reported, not fatal.
{ cat "$dir/all.txt"; inventory n-extra hdr-2hca; } >"$dir/dup.txt"
run dup partitions "$dir/c.yaml" --inventories - <"$dir/dup.txt"
expect "duplicate GUID: exit 3" "$code" 3
expect "duplicate GUID: named with both hosts" \
  "$(grep -c 'GUID on two ports: 0x0c42a1030016e7e0 on n-extra mlx5_0/1 and n-hdr-2hca mlx5_0/1' \
    "$dir/dup.err")" 1
expect "unknown host: reported" \
  "$(grep -c 'inventories of hosts not in the profile (left out): n-extra' "$dir/dup.err")" 1
# Two ports of one host with one GUID are a duplicate too.
{ grep -v '^n-hdr-2hca:' "$dir/all.txt"
  inventory n-hdr-2hca hdr-2hca | sed 's/0x0c42a1030016e7f8/0x0c42a1030016e7e0/g'; } >"$dir/dup1.txt"
run dupone partitions "$dir/c.yaml" --inventories - <"$dir/dup1.txt"
expect "GUID on two ports of one host: exit 3, named" \
  "$code $(grep -c 'GUID on two ports: 0x0c42a1030016e7e0 on n-hdr-2hca mlx5_0/1 and n-hdr-2hca mlx5_1/1' \
    "$dir/dupone.err")" "3 1"
# Two hosts of one partition with one GUID: --allow-missing writes the first, and the partition
# names the port it left out.
{ grep -v '^n-pkey-child:' "$dir/all.txt"; inventory n-pkey-child hdr-2hca; } >"$dir/dup2.txt"
run dupallow partitions "$dir/c.yaml" --inventories - --allow-missing <"$dir/dup2.txt"
expect "duplicate GUID, --allow-missing: exit 0" "$code" 0
expect "duplicate GUID, --allow-missing: a comment in both partitions of the two hosts" \
  "$(grep -c '^  # left out, its GUID is on two hosts: n-pkey-child mlx5_0/1 (0x0c42a1030016e7e0, as n-hdr-2hca mlx5_0/1)$' \
    "$dir/dupallow.out")" 2

# Outside text cannot add a line of its own to partitions.conf.
inventory n-hdr-2hca hdr-2hca | sed 's/"mlx5_0"/"mlx5_0\\nEvil=0x0009 : ALL=full ;"/g' >"$dir/evil.txt"
grep -v '^n-hdr-2hca:' "$dir/all.txt" >>"$dir/evil.txt"
run evil partitions "$dir/c.yaml" --inventories - --allow-missing <"$dir/evil.txt"
expect "hostile device name: no line of its own" "$code $(grep -c '^Evil' "$dir/evil.out")" "0 0"
expect "hostile device name: reported, escaped" \
  "$(grep -c "is not a device name; its ports are left out" "$dir/evil.err")" 1

# Issue 16 item 7's bad inputs. An unparseable line: its host has no inventory, so it is missing.
sed '2s/^\(n-pkey-child: {"host":"n-pkey-child",\).*/\1"devi/' "$dir/all.txt" >"$dir/broken.txt"
echo 'this is not an inventory' >>"$dir/broken.txt"
run broken partitions "$dir/c.yaml" --inventories - <"$dir/broken.txt"
expect "unparseable line: exit 3" "$code" 3
expect "unparseable line: located, with the parser's reason" \
  "$(grep -c '^ibsetup: warning: -:2: not JSON: ' "$dir/broken.err")" 1
expect "unparseable line: ... a line that is no inventory at all too" \
  "$(grep -c "^ibsetup: warning: -:5: not an inspect --json line: 'this is not an inventory'" \
    "$dir/broken.err")" 1
expect "unparseable line: its host is a missing member" \
  "$(grep -c 'missing member n-pkey-child (partition 0x0001, 0x0002): no inventory' \
    "$dir/broken.err")" 1
expect "unparseable line: nothing written" "$(cat "$dir/broken.out")" ""

# A profile without pkeys: Default alone, said so.
cat >"$dir/nopkeys.yaml" <<'EOF'
version: 1
nodes:
  - hosts: n-hdr-2hca,n-pkey-child,n-no-sm,n-mlx4-connectx3
    interfaces:
      - name: ib0
EOF
run nopkeys partitions "$dir/nopkeys.yaml" --inventories - <"$dir/all.txt"
expect "no pkeys: exit 0" "$code" 0
expect "no pkeys: warned" "$(cat "$dir/nopkeys.err")" \
  "ibsetup: warning: the profile declares no pkey: only the Default partition"
expect "no pkeys: Default alone" "$(grep -v '^#' "$dir/nopkeys.out" | grep -c .)" 1
run nopkeysq partitions "$dir/nopkeys.yaml" --inventories - -q <"$dir/all.txt"
expect "no pkeys -q: quiet" "$code $(cat "$dir/nopkeysq.err")" "0 "

# --json: the partitions and the report.
run json partitions "$dir/c.yaml" --inventories - --json <"$dir/missing.txt"
expect "--json: incomplete, exit 3" "$code" 3
expect "--json: the document" "$(head -c 66 "$dir/json.out")" \
  '{"complete":false,"partitions":[{"name":"Default","pkey":"0x7fff",'
expect "--json: missing member listed" \
  "$(grep -c '"missing":\[{"host":"n-pkey-child","reason":"no inventory","pkeys":\["0x0001","0x0002"\]}\]' \
    "$dir/json.out")" 1

# --format ufm prints JSON; other formats and ufm with --output are usage errors.
run ufm partitions "$dir/c.yaml" --inventories - --format ufm <"$dir/all.txt"
expect "--format ufm: exit 0, JSON" "$code $(head -c 1 "$dir/ufm.out")" "0 {"
run ufmout partitions "$dir/c.yaml" --inventories - --format ufm --output "$dir/u" <"$dir/all.txt"
expect "--format ufm --output: exit 2" "$code" 2
run badformat partitions "$dir/c.yaml" --inventories - --format sm <"$dir/all.txt"
expect "--format sm: exit 2" "$code" 2

# A bad partitions section is a located profile error (exit 3).
printf '  default:\n    membrship: full\n' >>"$dir/c.yaml"
run badprofile partitions "$dir/c.yaml" --inventories - <"$dir/all.txt"
expect "bad section: exit 3 with did-you-mean" \
  "$code $(grep -c "c.yaml:25:5: partitions.default.membrship: unknown key 'membrship'; did you mean 'membership'?" \
    "$dir/badprofile.err")" "3 1"
run nosrc partitions "$dir/declared.yaml" --inventories "$dir/nonexistent"
expect "missing SRC: exit 3 (inventories.hpp: InputError), named" \
  "$code $(grep -c "cannot read $dir/nonexistent" "$dir/nosrc.err")" "3 1"

# A second, different inventory for a host (a cloned image with the same host name, a node
# reporting another's name) put before the real one, with a GUID no other host has: neither is
# kept, so the host's members are missing and nothing is written; the forged GUID never
# reaches partitions.conf (it used to be written as the host's, exit 0).
no_sm_guid=$("$bin" inspect --json --sysfs-root "$fixtures/no-sm" |
  grep -o '"port_guid":"[^"]*"' | head -1 | cut -d'"' -f4)
forged_guid=0x0c42a103deadbeef
{
  inventory n-no-sm no-sm | sed "s/${no_sm_guid:-none}/$forged_guid/g"
  cat "$dir/all.txt"
} >"$dir/forged.txt"
expect "forged: the forged line differs" "$(head -1 "$dir/forged.txt" | grep -c "$forged_guid")" 1
run forged partitions "$dir/c.orig.yaml" --inventories "$dir/forged.txt" --output "$dir/forged.conf"
expect "forged: exit 3, the host given twice named" \
  "$code $(grep -c 'host n-no-sm is given twice with different ports or interface bindings' "$dir/forged.err")" "3 1"
expect "forged: nothing written" "$([ -e "$dir/forged.conf" ] && echo written)" ""
run forged-json partitions "$dir/c.orig.yaml" --inventories "$dir/forged.txt" --json
expect "forged --json: not complete" \
  "$code $(python3 -c 'import json,sys; print(json.load(sys.stdin)["complete"])' \
    <"$dir/forged-json.out")" "3 False"
run forged-allow partitions "$dir/c.orig.yaml" --inventories "$dir/forged.txt" --allow-missing
expect "forged --allow-missing: n-no-sm listed missing, as a member under neither GUID" \
  "$code $(grep -c '# missing: n-no-sm' "$dir/forged-allow.out")\
 $(grep -cE '^ *0x[0-9a-f]+=.*# n-no-sm' "$dir/forged-allow.out")\
 $(grep -c "$forged_guid" "$dir/forged-allow.out")\
 $(grep -c "${no_sm_guid:-none}" "$dir/forged-allow.out")" "0 1 0 0 0"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
