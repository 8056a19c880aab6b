#!/bin/bash
# Issue 13 item 8: the command line is consistent where a sysadmin notices: exit codes agree
# with the documented table, messages say what happened, and contradictory options are
# usage errors.
source "$(dirname "$0")/lib.sh" "$@"
lab=$src/profiles/lab.yaml

# A value CLI11 cannot convert is quoted escaped, with ibsetup's prefix (it was raw, and
# without the prefix scripts grep for).
hostile cli11-escaped 2 'ibsetup: error: Could not convert: --timeout = a\x1b[31mb' -- \
  check "$lab" --timeout $'a\e[31mb'
hostile cli11-prefix 2 'ibsetup: error: --node: At Most 1 required but received 2' -- \
  check "$lab" --node a --node b

# apply --dry-run refuses the lock file the real run would refuse (a preview used to pass it),
# and leaves it as it is.
printf 'keep me\n' >"$tmp/notalock"
hostile dry-run-bad-lock 4 'will not use '"$tmp"'/notalock as the lock file: it holds something' \
  -- apply "$lab" --node lab01 --dry-run --lock-file "$tmp/notalock"
[ "$(cat "$tmp/notalock")" = "keep me" ] && ok dry-run-bad-lock-kept || bad "dry run wrote the lock"
hostile dry-run-lock-dir 4 'cannot open the lock file '"$tmp"'/nodir/lock: No such file' \
  -- apply "$lab" --node lab01 --dry-run --lock-file "$tmp/nodir/lock"

# A missing or unreadable profile is a missing file on this host: exit 4, as the table says.
hostile missing-profile 4 "$tmp/nope.yaml: cannot open the profile: No such file or directory" \
  -- validate "$tmp/nope.yaml"
hostile missing-profile-json 4 '"ok":false' -- validate --json "$tmp/nope.yaml"
hostile missing-profile-plan 4 'cannot open the profile' -- plan "$tmp/nope.yaml" --node lab01
hostile missing-profile-apply 4 'cannot open the profile' -- \
  apply "$tmp/nope.yaml" --node lab01 --dry-run
hostile missing-profile-check 4 'cannot open the profile' -- check "$tmp/nope.yaml" --node lab01
hostile missing-profile-render 4 'cannot open the profile' -- \
  render "$tmp/nope.yaml" --node lab01 --root "$tmp"
# An invalid one stays exit 3.
printf 'version: 1\nnodes: [\n' >"$tmp/bad.yaml"
hostile invalid-profile 3 'bad.yaml:' -- validate "$tmp/bad.yaml"

# --node NAME that the profile lacks says so, and suggests a close host, not --node.
hostile node-unknown 3 "--node lab1: host 'lab1' is not in any node group (lab[01-04]); did you mean 'lab01'?" \
  -- show "$lab" --node lab1
for cmd in plan apply check render firmware; do
  extra=()
  [ "$cmd" = render ] && extra=(--root "$tmp")
  [ "$cmd" = apply ] && extra=(--dry-run)
  hostile "node-unknown-$cmd" 3 "--node nosuchhost: host 'nosuchhost' is not in any node group" \
    -- "$cmd" "$lab" --node nosuchhost "${extra[@]}"
  if grep -q 'pass --node' "$out"; then
    bad "node-unknown-$cmd: still suggests --node"
  fi
done

# A failed plan does not also say "no changes".
mkdir -p "$tmp/sysfs/class/net" "$tmp/sysfs/class/infiniband"
hostile plan-failed 3 'plan for lab01: 3 errors; nothing can be applied until it is fixed' -- \
  plan "$lab" --node lab01 --sysfs-root "$tmp/sysfs" --no-firmware
if grep -q 'no changes' "$out"; then
  bad "plan-failed: also prints 'no changes'"
fi

# --json is --format json: with another --format it is a usage error.
hostile json-format-text 2 '--json and --format text disagree' -- \
  check "$lab" --node lab01 --json --format text
hostile json-format-nhc 2 '--json and --format nhc disagree' -- \
  check "$lab" --node lab01 --format nhc --json

# An unknown subcommand is a usage error, with or without --help.
hostile unknown-subcommand-help 2 "'partitionz' is not a subcommand" -- partitionz --help
if grep -q 'Exit codes:' "$out"; then
  bad "unknown-subcommand-help: printed the main help"
fi
hostile unknown-subcommand 2 "'partitionz' is not a subcommand" -- partitionz
hostile unknown-subcommand-typo 2 "did you mean 'validate'?" -- validat "$lab"
hostile unknown-subcommand-control 2 'the first argument is not a subcommand' -- \
  "$(printf 'x\033[2J')" --help
hostile help-still-works 0 'Exit codes:' -- --help
hostile subcommand-help-still-works 0 '--peer-timeout-ms' -- check --help

# The CLI and the profile agree on the peer timeout range (1 to 600000 ms).
hostile peer-timeout-range 2 '--peer-timeout-ms must be 1 to 600000' -- \
  check "$lab" --node lab01 --peer-timeout-ms 600001
# 0 is no deadline either: it used to pass as "not given" (the profile's), a placeholder value
# with a meaning no document gave it.
hostile peer-timeout-zero 2 '--peer-timeout-ms must be 1 to 600000' -- \
  check "$lab" --node lab01 --peer-timeout-ms 0
printf 'version: 1\nnodes:\n  - hosts: "n1"\n    interfaces: [{name: ib0}]\n    checks: {peer_timeout_ms: 600001}\n' \
  >"$tmp/peer.yaml"
hostile peer-timeout-range-profile 3 'peer.yaml:5:31' -- validate "$tmp/peer.yaml"

# Options that would do nothing, or nothing useful, are refused rather than ignored: a
# HealthCheckProgram line with --slurm-node but not --slurm-drain never drained a failed node;
# port 0 has no responder; 65536 got CLI11's "Could not convert".
hostile slurm-node-alone 2 '--slurm-node and --scontrol need --slurm-drain' -- \
  check "$lab" --node lab01 --slurm-node lab01
hostile scontrol-alone 2 '--slurm-node and --scontrol need --slurm-drain' -- \
  check "$lab" --node lab01 --scontrol /bin/true
hostile rdma-port-zero 2 '--rdma-port must be 1 to 65535' -- check "$lab" --node lab01 --rdma-port 0
hostile rdma-port-high 2 '--rdma-port must be 1 to 65535' -- \
  check "$lab" --node lab01 --rdma-port 65536
hostile responder-once-count 2 '--once and --count disagree; give one' -- responder --once --count 5
# Text that is no address is exit 3 whether or not the host has an RDMA device (it was read
# after the RDMA CM opened: exit 4 here, "cannot open the RDMA connection manager").
hostile responder-bind-text 3 'responder: --bind cn01: not an IPv4 or IPv6 address' -- \
  responder --bind cn01 --timeout 1

# The backend line names its reason once: "backend netlink: asked for with --backend" (the
# plan then fails here: this machine has no lab01 interfaces).
hostile backend-reason 3 'ibsetup: backend netlink: asked for with --backend' -- \
  apply "$lab" --node lab01 --backend netlink --dry-run --no-firmware --lock-file "$tmp/lock"
if grep -q 'backend netlink: --backend' "$out"; then
  bad "backend-reason: still 'backend netlink: --backend netlink'"
fi

# apply --offline --dry-run (and render --dry-run) write nothing: the root stays byte for byte
# as it was (names, sizes, modes, mtimes, contents), and the output says what would happen.
tree() { (cd "$1" && find . -printf '%p %s %m %T@\n' | sort && find . -type f -exec md5sum {} + | sort); }
root=$tmp/root
mkdir -p "$root"
before=$(tree "$root")
kf=etc/NetworkManager/system-connections/ibsetup-ib0.nmconnection
hostile offline-dry-run-empty 0 "would create  $root/$kf" -- \
  apply "$lab" --node lab01 --offline --dry-run --root "$root"
grep -qF 'interface-name=ib0' "$out" || bad "offline-dry-run-empty: the content is not shown"
[ "$(tree "$root")" = "$before" ] && ok "offline-dry-run-empty: root unchanged" ||
  bad "offline-dry-run-empty: the root changed: $(ls -AR "$root" | head -5 | tr '\n' ' ')"
hostile offline-dry-run-json 0 '"dry_run":true,"files":[{"path":"'"$kf"'","result":"would create","content":"# Managed by ibsetup' -- \
  apply "$lab" --node lab01 --offline --dry-run --json --root "$root"
hostile render-dry-run-ifcfg 0 "would create  $root/etc/sysconfig/network-scripts/ifcfg-ib0" -- \
  render "$lab" --node lab01 --format ifcfg --templates "$src/templates" --dry-run --root "$root"
hostile render-dry-run-hosts 0 "would create  $root/etc/hosts.ibsetup" -- \
  render "$lab" --format hosts --dry-run --root "$root"
[ "$(tree "$root")" = "$before" ] && ok "render-dry-run: root unchanged" ||
  bad "render-dry-run: the root changed"
hostile offline-render 0 "created  $root/$kf" -- apply "$lab" --node lab01 --offline --root "$root"
before=$(tree "$root")
sleep 0.01
hostile offline-dry-run-unchanged 0 "unchanged  $root/$kf" -- \
  apply "$lab" --node lab01 --offline --dry-run --root "$root"
grep -qF 'interface-name=ib0' "$out" && bad "offline-dry-run-unchanged: shows unchanged content"
echo '# edited by hand' >>"$root/$kf"
before=$(tree "$root")
hostile offline-dry-run-update 0 "would update  $root/$kf" -- \
  apply "$lab" --node lab01 --offline --dry-run --root "$root"
[ "$(tree "$root")" = "$before" ] && ok "offline-dry-run-update: root unchanged" ||
  bad "offline-dry-run-update: the root changed"
# It refuses what the write would refuse: a file ibsetup did not write, a symlinked directory.
printf 'foreign\n' >"$root/$kf"
hostile offline-dry-run-foreign 4 'was not written by ibsetup; leaving it alone' -- \
  apply "$lab" --node lab01 --offline --dry-run --root "$root"
mkdir -p "$tmp/root2/etc"
ln -s "$outside" "$tmp/root2/etc/NetworkManager"
hostile offline-dry-run-symlink 4 'is a symlink or not a directory' -- \
  apply "$lab" --node lab01 --offline --dry-run --root "$tmp/root2"

# A node's files are written all or none: a foreign file for its last interface leaves the
# earlier ones unwritten, in text and in --json (which prints nothing but the error).
root3=$tmp/root3
kdir=$root3/etc/NetworkManager/system-connections
mkdir -p "$kdir"
printf 'foreign\n' >"$kdir/ibsetup-ib0.8010.nmconnection"
for fmt in text json; do
  flag=()
  [ "$fmt" = json ] && flag=(--json)
  hostile "render-all-or-none-$fmt" 4 'ibsetup-ib0.8010.nmconnection exists and was not written by ibsetup' -- \
    render "$lab" --node lab02 --root "$root3" "${flag[@]}"
  left=$(ls -A "$kdir" | tr '\n' ' ')
  [ "$left" = "ibsetup-ib0.8010.nmconnection " ] && ok "render-all-or-none-$fmt: nothing written" ||
    bad "render-all-or-none-$fmt: left $left"
  grep -q 'created' "$out" && bad "render-all-or-none-$fmt: reports a file as created"
done

# An option given an empty value (an unset variable in a script) is a usage error, not an
# absent option: report --expect "" would otherwise pass a fleet whose hosts never answered.
printf 'cn01: {"host":"cn01","ok":true,"checks":[]}\n' >"$tmp/fleet.txt"
hostile empty-expect 2 'report --expect: an empty value (an unset shell variable?)' -- \
  report "$tmp/fleet.txt" --expect ''
hostile empty-profile 2 'report --profile: an empty value' -- report "$tmp/fleet.txt" --profile ''
hostile empty-positional 2 'validate file: an empty value' -- validate ''
hostile empty-repeated 2 'check --disable: an empty value' -- \
  check "$lab" --node lab01 --disable port --disable ''
hostile empty-output 2 'partitions --output: an empty value' -- \
  partitions "$lab" --inventories "$tmp/fleet.txt" --output ''
hostile expect-given 5 'did not answer (1 host): cn02' -- report "$tmp/fleet.txt" --expect 'cn[01-02]'

# A profile with a warning before its error: each line says which it is, so that `grep error:`
# finds the error and not the warning.
printf 'version: 1\nnodes:\n  - hosts: n1\n    interfaces:\n      - {name: ib0, device: mlx5_0, port: 1}\n      - {name: ib0.8002, parent: ib0, pkey: 0x0002}\npartitions:\n  pkeys:\n    - {name: "bad name!", pkey: 0x8002}\n' \
  >"$tmp/mixed.yaml"
hostile diagnostics-labelled 3 "ibsetup: error: $tmp/mixed.yaml:9:14: partitions.pkeys[0].name" -- \
  validate "$tmp/mixed.yaml"
grep -qF "$tmp/mixed.yaml:6:45: warning: nodes[0].interfaces[1].pkey" "$out" ||
  bad "diagnostics-labelled: the warning line is missing"
[ "$(grep -c 'error:' "$out")" = 1 ] && ok "diagnostics-labelled: one error line" ||
  bad "diagnostics-labelled: $(grep -c 'error:' "$out") lines say error:"

# "1 warnings" in check's summary line: tests/unit/check/check_test.cpp (CheckReportText).
finish
