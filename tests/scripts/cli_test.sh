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
# 0 is NetworkManager's "never": a killed apply would leave its checkpoint for ever.
check rollback-timeout-zero 2 'rollback-timeout: Value 0 not in range 1 to 86400' -- apply "$src/profiles/lab.yaml" --rollback-timeout 0
check validate-ok 0 'ok: 3 groups, 581 hosts' -- validate "$src/profiles/cluster-512.yaml"
check validate-missing 4 '^ibsetup: error: /nonexistent.yaml: cannot open the profile' -- validate /nonexistent.yaml
check validate-bad 3 'unknown-key.yaml:4:5: nodes\[0\].interfaec: unknown key' -- validate "$src/tests/data/profile/invalid/unknown-key.yaml"
check validate-json-bad 3 '"ok":false' -- validate --json "$src/tests/data/profile/invalid/unknown-key.yaml"
check validate-json-ok 0 '"ok":true,"groups":3' -- validate --json "$src/profiles/cluster-512.yaml"
# The file is named once, and the errors come in the file's order, as in the text output.
check validate-json-missing 4 '"text":"/nonexistent.yaml: cannot open the profile' -- validate --json /nonexistent.yaml
order_dir=$(mktemp -d)
printf 'version: 1\ndefaults:\n  mode: datagram\nnodes:\n  - hosts: n1\n    interfaces:\n      - {name: ib0, mtu: 65520}\nhosts:\n  n9: {}\n' \
  >"$order_dir/two.yaml"
check validate-json-order 3 '"errors":\[\{"file":"[^"]*","line":7,.*\},\{"file":"[^"]*","line":9,' -- validate --json "$order_dir/two.yaml"
rm -rf "$order_dir"
# A profile the built-in parser leaves to yaml-cpp (an anchor) is read through ibsetup-yaml.so,
# which libibsetup finds next to itself. The same library without the module beside it names
# the profile and the module, and exits 4 (the environment).
yaml_dir=$(mktemp -d)
printf 'version: 1\nnodes:\n  - hosts: b1\n    interfaces: &ifs\n      - {name: ib0, ipv4: 10.0.0.0/24}\n' \
  >"$yaml_dir/anchors.yaml"
check validate-yaml-module 0 'anchors.yaml: ok: 1 group, 1 host, 1 interfaces' -- validate "$yaml_dir/anchors.yaml"
cp "$(dirname "$bin")/libibsetup.so.1" "$yaml_dir/"
out=$(LD_LIBRARY_PATH=$yaml_dir "$bin" validate "$yaml_dir/anchors.yaml" 2>&1)
code=$?
if [ "$code" = 4 ] && grep -qF "$yaml_dir/anchors.yaml: reading this profile needs yaml-cpp's parser" <<<"$out" &&
  grep -qF "$yaml_dir/ibsetup-yaml.so: cannot open shared object file" <<<"$out"; then
  pass=$((pass + 1))
else
  echo "FAIL validate-no-yaml-module: exit $code (want 4), output:"
  echo "$out" | head -5
  fail=$((fail + 1))
fi
# A plain profile needs no module: the built-in parser reads it.
out=$(LD_LIBRARY_PATH=$yaml_dir "$bin" validate "$src/profiles/cluster-512.yaml" 2>&1)
if [ $? = 0 ] && grep -q 'ok: 3 groups, 581 hosts' <<<"$out"; then
  pass=$((pass + 1))
else
  echo "FAIL validate-plain-no-module: $out"
  fail=$((fail + 1))
fi
rm -rf "$yaml_dir"
# Output that cannot be written (a full disk, a closed descriptor) is an error, not exit 0 with
# the output cut short; ENOSPC from /dev/full.
# pipe: a pipe whose reader is gone, which used to end ibsetup by SIGPIPE (exit 141, no
# message); Python's subprocess starts it with SIGPIPE at its default, as a shell does.
for target in /dev/full closed pipe; do
  if [ "$target" = closed ]; then
    out=$("$bin" show --json "$src/profiles/lab.yaml" --node lab02 2>&1 >&-)
  elif [ "$target" = pipe ]; then
    out=$(python3 -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)
sys.stdout.buffer.write(p.stderr)
sys.exit(p.returncode if p.returncode >= 0 else 128 - p.returncode)' \
      "$bin" show --json "$src/profiles/lab.yaml" --node lab02)
  else
    out=$("$bin" show --json "$src/profiles/lab.yaml" --node lab02 2>&1 >"$target")
  fi
  code=$?
  if [ "$code" = 4 ] && grep -qE '^ibsetup: error: cannot write to standard output: .*; what it shows is incomplete$' <<<"$out"; then
    pass=$((pass + 1))
  else
    echo "FAIL output-$target: exit $code (want 4), output: $out"
    fail=$((fail + 1))
  fi
done
# A command that failed otherwise keeps its status, and still says its output was lost: a
# failing check whose report went nowhere left no trace at all (exit 5, empty stderr), and
# then no reason (the stream had failed at an earlier write, so errno at the end said nothing).
# What a command wrote stays written when its output is lost, and the error says so: exit 4
# (5 for the failing check, which keeps its own), not a bare "incomplete" that leaves the
# reader wondering whether the files were written. Without the write (a dry run, a textfile
# directory that is not there), no claim. Each case: "EXIT [WHAT IS IN PLACE]|ARGUMENTS".
out_root=$(mktemp -d)
for case in "4 its files under $out_root are in place|render $src/profiles/lab.yaml --node lab01 --root $out_root" \
  "4 its files under $out_root are in place|apply $src/profiles/lab.yaml --node lab01 --offline --root $out_root" \
  "5 the metrics are in $out_root/ibsetup.prom|check $src/profiles/demo.yaml --node demo01 --no-peers --sysfs-root $src/tests/fixtures/sysfs/hdr-2hca --textfile-dir $out_root" \
  "5 |check $src/profiles/demo.yaml --node demo01 --no-peers --sysfs-root $src/tests/fixtures/sysfs/hdr-2hca --textfile-dir $out_root/none" \
  "4 |render $src/profiles/lab.yaml --node lab02 --root $out_root --dry-run" \
  "5 |check $src/profiles/demo.yaml --node demo01 --no-peers --json --sysfs-root $src/tests/fixtures/sysfs/hdr-2hca" \
  "3 |validate $src/tests/data/profile/invalid/unknown-key.yaml --json"; do
  want=${case%%|*}
  args=${case#*|}
  done_text=${want#* }
  want=${want%% *}
  # shellcheck disable=SC2086 # the case's words are the arguments
  out=$("$bin" $args 2>&1 >/dev/full)
  code=$?
  line="ibsetup: error: cannot write to standard output: No space left on device; what it shows is incomplete${done_text:+, but $done_text}"
  if [ "$code" = "$want" ] && grep -qxF "$line" <<<"$out"; then
    pass=$((pass + 1))
  else
    echo "FAIL output-lost (${args%% *}): exit $code (want $want), output: $out"
    fail=$((fail + 1))
  fi
done
if [ -s "$out_root/ibsetup.prom" ] && [ -n "$(ls "$out_root/etc/NetworkManager/system-connections")" ]; then
  pass=$((pass + 1))
else
  echo "FAIL output-lost-after-work: the files are not there: $(find "$out_root")"
  fail=$((fail + 1))
fi
rm -rf "$out_root"
# A sysfs file that is there but cannot be read (permission denied, for a user other than
# root) is a warning naming it and why, not a silent null.
tree=$(mktemp -d)
chmod 755 "$tree"
cp -a "$src/tests/fixtures/sysfs/hdr-2hca/." "$tree/"
chmod 000 "$tree/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/infiniband/mlx5_0/fw_ver"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" inspect --sysfs-root "$tree" 2>&1)
code=$?
if [ "$code" = 0 ] && grep -qF "warning: $tree/class/infiniband/mlx5_0/fw_ver: cannot read: Permission denied" <<<"$out"; then
  pass=$((pass + 1))
else
  echo "FAIL inspect-unreadable-attribute: exit $code, output: $out"
  fail=$((fail + 1))
fi
rm -rf "$tree"
check show-node 0 'ib0 +- +datagram' -- show "$src/profiles/lab.yaml" --node lab01
check show-json 0 '^\{"host":"lab02"' -- show --json "$src/profiles/lab.yaml" --node lab02
check show-unknown 3 "host 'nope' is not in any node group" -- show "$src/profiles/lab.yaml" --node nope
root=$(mktemp -d)
check render-create 0 'created  .*/etc/NetworkManager/system-connections/ibsetup-ib0.nmconnection' -- render "$src/profiles/lab.yaml" --node lab01 --root "$root"
check render-again 0 '^unchanged  .*ibsetup-ib0.8010.nmconnection' -- render "$src/profiles/lab.yaml" --node lab01 --root "$root"
# -q keeps a dry run's preview (the docs' promise), live or offline; it drops the report of writes.
rm -f "$root/etc/NetworkManager/system-connections/ibsetup-ib0.nmconnection"
check render-q-dry-run 0 'would create  .*ibsetup-ib0.nmconnection' -- render "$src/profiles/lab.yaml" --node lab01 --root "$root" -q --dry-run
check apply-offline-q-dry-run 0 'would create  .*ibsetup-ib0.nmconnection' -- apply "$src/profiles/lab.yaml" --node lab01 --offline --root "$root" -q --dry-run
out=$("$bin" render "$src/profiles/lab.yaml" --node lab01 --root "$root" -q 2>&1)
code=$?
if [ "$code" = 0 ] && [ -z "$out" ] && [ -f "$root/etc/NetworkManager/system-connections/ibsetup-ib0.nmconnection" ]; then
  pass=$((pass + 1))
else
  echo "FAIL render-q-silent: exit $code, printed: $out"; fail=$((fail + 1))
fi
check apply-offline-ifcfg 0 'created  .*/etc/sysconfig/network-scripts/ifcfg-ib0.8010' -- apply "$src/profiles/lab.yaml" --node lab01 --offline --root "$root" --format ifcfg --templates "$src/templates"
# apply without --offline changes this host: --root (a kickstart that forgot --offline) and the
# other offline options are refused before anything is read, and apply --offline refuses what only a
# live apply does rather than dropping it. --dry-run keeps the old behaviour harmless here.
check apply-root-needs-offline 2 '^ibsetup: error: --root is for apply --offline \(or render\); without --offline apply changes this host$' -- apply "$src/profiles/lab.yaml" --node lab01 --root "$root" --dry-run
check apply-format-needs-offline 2 '^ibsetup: error: --format is for apply --offline' -- apply "$src/profiles/lab.yaml" --node lab01 --format ifcfg --dry-run
check apply-offline-backend 2 '^ibsetup: error: --backend is for a live apply; apply --offline only writes files under --root$' -- apply "$src/profiles/lab.yaml" --node lab01 --offline --root "$root" --backend netlink --dry-run
check apply-offline-prune 2 '^ibsetup: error: --prune is for a live apply' -- apply "$src/profiles/lab.yaml" --node lab01 --offline --root "$root" --prune --dry-run
check apply-offline-no-firmware 0 'unchanged  .*ifcfg-ib0.8010' -- apply "$src/profiles/lab.yaml" --node lab01 --offline --root "$root" --format ifcfg --templates "$src/templates" --no-firmware
check render-hosts-json 0 '"path":"etc/hosts.ibsetup","result":"created"' -- render "$src/profiles/lab.yaml" --root "$root" --format hosts --json
check render-no-root 2 '--root DIR is required' -- render "$src/profiles/lab.yaml" --node lab01
check render-udev 0 'created  .*/etc/udev/rules.d/70-ibsetup-ipoib.rules' -- render "$src/profiles/lab.yaml" --node lab01 --root "$root" --format udev --inventories "$src/tests/data/partitions/udev"
check render-udev-stdin 0 'unchanged  .*70-ibsetup-ipoib.rules' -- render "$src/profiles/lab.yaml" --node lab01 --root "$root" --format udev --inventories - < "$src/tests/data/partitions/udev/lab01.json"
check render-udev-no-port 3 'ib1 is declared on mlx5_1 port 1, which the inventory lacks' -- render "$src/profiles/lab.yaml" --node lab02 --root "$root" --format udev --inventories "$src/tests/data/partitions/udev"
check render-inventories-not-udev 2 '--inventories is for --format udev' -- render "$src/profiles/lab.yaml" --node lab01 --root "$root" --inventories "$src/tests/data/partitions/udev"
# A profile warning (a P_Key without the full-membership bit) is printed, and -q silences it
# as on every command.
sed 's/pkey: 0x8010/pkey: 0x0010/' "$src/profiles/lab.yaml" >"$root/warn.yaml"
mkdir -p "$root/w"
check render-warns 0 'lacks the full-membership bit' -- render "$root/warn.yaml" --node lab01 --root "$root/w"
out=$("$bin" render "$root/warn.yaml" --node lab01 --root "$root/w" -q 2>&1)
if [ -z "$out" ]; then pass=$((pass + 1)); else
  echo "FAIL render -q: printed: $out"; fail=$((fail + 1)); fi
# check's inputs: --timeout must be a real bound; a saved inventory is judged without this
# machine's ABI files or probes; a broken inventory file is bad input naming the file.
cprofile=$src/tests/data/check/cluster.yaml
tree=$src/tests/fixtures/sysfs/hdr-2hca
for t in 0 -1 nan inf 1e12; do
  check "check-timeout-$t" 2 '--timeout must be a number of seconds above 0' -- check "$cprofile" --node hdr01 --sysfs-root "$tree" --timeout "$t"
done
check check-peer-timeout-negative 2 '--peer-timeout-ms must be' -- check "$cprofile" --node hdr01 --peer-timeout-ms -5
"$bin" inspect --json --sysfs-root "$tree" >"$root.inventory.json"
check check-inventory-abi-skipped 0 'skip +hca.abi .*not in a saved inventory' -- check "$cprofile" --node hdr01 --inventory "$root.inventory.json"
# An inventory of another host is judged as --node says, with a warning that -q silences.
sed 's/^{"host":"[^"]*"/{"host":"cn02"/' "$root.inventory.json" >"$root.cn02.json"
check check-inventory-other-host 0 'cn02.json: warning: host: the inventory was taken on "cn02"; it is judged as node "hdr01" \(--node\)' -- check "$cprofile" --node hdr01 --inventory "$root.cn02.json"
out=$("$bin" check "$cprofile" --node hdr01 --inventory "$root.cn02.json" -q 2>&1 >/dev/null)
code=$?
if [ "$code" = 0 ] && [ -z "$out" ] && grep -q '"host":"cn02"' "$root.cn02.json"; then
  pass=$((pass + 1)); else
  echo "FAIL check -q --inventory: exit $code, printed: $out"; fail=$((fail + 1)); fi
printf '[]' >"$root.bad.json"
check check-inventory-bad 3 "bad.json: not an .ibsetup inspect --json. inventory" -- check "$cprofile" --node hdr01 --inventory "$root.bad.json"
printf 'version: 1\nnodes:\n  - hosts: "hdr0[1-2]"\n    interfaces:\n      - {name: ib0, device: mlx5_0, port: 1, ipv4: 10.9.0.0/16}\n    checks: {peers: [hdr02]}\n' >"$root.peers.yaml"
check check-tree-peers-skipped 0 'skip +ip.peer .*probed only when checking this machine' -- check "$root.peers.yaml" --node hdr01 --sysfs-root "$tree"
printf 'version: 1\nnodes:\n  - hosts: "hdr01"\n    interfaces:\n      - {name: ib0, ipv4: 10.9.0.0/16}\n    checks: {peers: [hdr03]}\n  - hosts: "hdr03"\n    interfaces:\n      - {name: ib5, ipv4: 10.8.0.0/16}\n' >"$root.apart.yaml"
check check-peer-nothing-in-common 0 'warn +ip.peer +hdr03 +hdr03: no IPoIB interface with an address in common with hdr01' -- check "$root.apart.yaml" --node hdr01 --disable hca --disable pcie --disable port --disable ipoib --disable rdma
rm -f "$root.inventory.json" "$root.bad.json" "$root.peers.yaml" "$root.apart.yaml"
rm -rf "$root"
echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
