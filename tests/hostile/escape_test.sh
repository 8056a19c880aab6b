#!/bin/bash
# Issue 13, item 1: everything that leaves ibsetup is safe where it lands. Outside text (profile
# strings, sysfs values and names, mstconfig output, other hosts' reports, file names) never
# prints a raw control character (the harness fails any case that does) and never starts a line
# of its own; what cannot be made safe is refused, naming the character.
source "$(dirname "$0")/lib.sh" "$@"

fixture=$src/tests/fixtures/sysfs/cx6-dual-function
pci=devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0

# no_line_starts NAME TEXT: the last output has no line that starts with TEXT (a forged line).
no_line_starts() {
  if grep -q -- "^$2" "$out"; then
    bad "$1: a line starts with '$2':"
    cat -v "$out" | head -20
  else
    ok "$1"
  fi
}

# --- Profiles: interface names and strings (YAML escapes included) ----------------------------
profile() { printf 'version: 1\nnodes:\n  - hosts: n1\n    interfaces:\n%s\n' "$2" >"$tmp/$1.yaml"; }
profile backtick '      - {name: "a`id`;x", device: mlx5_0, ipv4: 10.0.0.0/24}'
hostile ifname-backtick 3 "interface name 'a\`id\`;x' contains U+0060 '\`'" -- validate "$tmp/backtick.yaml"
profile dollar '      - {name: "ib$(id)", device: mlx5_0}'
hostile ifname-dollar 3 "contains U+0024 '\$'" -- validate "$tmp/dollar.yaml"
profile dash '      - {name: "-ib0", device: mlx5_0}'
hostile ifname-dash-first 3 "interface name '-ib0' starts with U+002D '-'" -- validate "$tmp/dash.yaml"
profile parent '      - {name: ib0, device: mlx5_0}
      - {parent: "ib0;x", pkey: 0x8001}'
hostile ifname-parent 3 "nodes[0].interfaces[1].parent: interface name 'ib0;x' contains U+003B ';'" \
  -- validate "$tmp/parent.yaml"
printf 'version: 1\nnodes:\n  - hosts: n1\n    interfaces:\n      - {name: ib0, device: mlx5_0}\nhosts:\n  n1:\n    interfaces:\n      "ib0 x": {mtu: 2044}\n' >"$tmp/override.yaml"
hostile ifname-override-key 3 "hosts.n1.interfaces.ib0 x: interface name 'ib0 x' contains U+0020 ' '" \
  -- validate "$tmp/override.yaml"
profile esc '      - {name: ib0, device: "mlx5_0\e[2J"}'
hostile yaml-escape-esc 3 'esc.yaml:5:29: nodes[0].interfaces[0].device: control character U+001B is not allowed' \
  -- validate "$tmp/esc.yaml"
profile del '      - {name: "ib\x7f", device: mlx5_0}'
hostile yaml-escape-del 3 'control character U+007F is not allowed' -- validate "$tmp/del.yaml"
profile nel '      - {name: ib0, device: "mlx5_0\u0085"}'
hostile yaml-escape-c1 3 'control character U+0085 is not allowed' -- validate "$tmp/nel.yaml"
profile newline '      - {name: ib0, device: "mlx5_0\nfleet: ok"}'
hostile yaml-escape-newline 3 'control character U+000A is not allowed' -- validate "$tmp/newline.yaml"
no_line_starts yaml-escape-newline-one-line 'fleet: ok'
printf 'version: 1\ncluster: "c\\0d"\nnodes:\n  - hosts: n1\n' >"$tmp/nul.yaml"
hostile yaml-escape-nul 3 'cluster: control character U+0000 is not allowed' -- validate "$tmp/nul.yaml"
printf 'version: 1\nnodes:\n  - hosts: n1\n    checks:\n      counters: {"x\\e": 3}\n' >"$tmp/key.yaml"
hostile yaml-escape-in-key 3 'in a key, control character U+001B is not allowed' -- validate "$tmp/key.yaml"
printf 'version: 1\ncluster: "a\xc2\x9b2J"\nnodes:\n  - hosts: n1\n' >"$tmp/raw-c1.yaml"
hostile raw-c1 3 'raw-c1.yaml:2:12: control character U+009B is not allowed in a profile' \
  -- validate "$tmp/raw-c1.yaml"
profile plain '      - {name: ib0, device: mlx5_0, ipv4: 10.0.0.0/24}'
nl_name="$tmp/$(printf 'evil\nibsetup: ok\033[2J')"
cp "$tmp/plain.yaml" "$nl_name"
hostile file-name-newline 0 'evil\nibsetup: ok\x1b[2J: ok: 1 group' -- validate "$nl_name"
no_line_starts file-name-newline-one-line 'ibsetup: ok'

# --- Rendered files: hosts entries -----------------------------------------------------------
hostile hosts-pattern-space 2 "contains U+0020 ' '; host names may hold only" \
  -- render "$tmp/plain.yaml" --node n1 --format hosts --root "$tmp/root" --hosts-pattern '{host} evil'
hostile hosts-pattern-newline 2 'contains U+000A; host names may hold only' \
  -- render "$tmp/plain.yaml" --node n1 --format hosts --root "$tmp/root" \
  --hosts-pattern "$(printf '{host}\n10.6.6.6 evil')"
# The profile's host-name rules too: a leading '-' (an option in ssh's or clush's argv), a
# leading or trailing '.', "..", a name past 253 bytes (all were written, exit 0).
for p in '-{host}' '.{host}' '{host}.' '{host}..{if}' "{host}-$(printf 'a%.0s' $(seq 1 300))"; do
  hostile "hosts-pattern-rules ${p:0:16}" 2 "which is not one: a host name does not start with" \
    -- render "$tmp/plain.yaml" --node n1 --format hosts --root "$tmp/root" --hosts-pattern "$p"
done
if [ -e "$tmp/root/etc/hosts.ibsetup" ]; then
  bad "hosts-pattern: a hosts file was written"
else
  ok "hosts-pattern: no hosts file written"
fi

# --- sysfs: names and values with ESC, BEL and newlines --------------------------------------
cp -a "$fixture" "$tmp/names"
mv "$tmp/names/class/infiniband/mlx5_0" "$tmp/names/class/infiniband/$(printf 'mlx5_\0330\a\nX')"
mv "$tmp/names/class/net/ib0" "$tmp/names/class/net/$(printf 'ib\0330\nfleet: ok')"
printf '20.31\033[2J\a\nfleet: ok 1014\n' >"$tmp/names/$pci/infiniband/mlx5_0/fw_ver"
hostile inspect-names 0 'mlx5_\x1b0\x07\nX  MT4123  fw 20.31\x1b[2J\x07\nfleet: ok 1014' \
  -- inspect --sysfs-root "$tmp/names"
no_line_starts inspect-names-one-line 'fleet: ok'
hostile inspect-netdev-name 0 'ib\x1b0\nfleet: ok  datagram' -- inspect --sysfs-root "$tmp/names"
hostile inspect-json 0 '"name":"mlx5_\u001b0\u0007\nX"' -- inspect --sysfs-root "$tmp/names" --json

cp -a "$fixture" "$tmp/fw"
printf '20.1\033[2J\a\nn1: ok (16 passed, 0 warnings, 0 failed, 0 skipped)\n' \
  >"$tmp/fw/$pci/infiniband/mlx5_0/fw_ver"
mv "$tmp/fw/class/net/ib1" "$tmp/fw/class/net/$(printf 'ib\0331\nn1: ok')"
cat >"$tmp/fwmin.yaml" <<'YAML'
version: 1
nodes:
  - hosts: n1
    hcas:
      - {device: mlx5_0, firmware: {min: "20.31.1014"}}
    interfaces:
      - {name: ib0, device: mlx5_0, port: 1, ipv4: 10.0.0.0/24}
YAML
hostile check-fw-ver 5 "mlx5_0: firmware '20.1\\x1b[2J\\x07\\nn1: ok (16 passed" \
  -- check "$tmp/fwmin.yaml" --node n1 --sysfs-root "$tmp/fw" --no-peers
no_line_starts check-fw-ver-one-verdict 'n1: ok'
hostile check-fw-ver-nhc 5 "Health check failed:  mlx5_0: firmware '20.1\\x1b[2J\\x07\\nn1: ok" \
  -- check "$tmp/fwmin.yaml" --node n1 --sysfs-root "$tmp/fw" --no-peers --format nhc
hostile check-fw-ver-json 5 '"message":"mlx5_0: firmware '"'"'20.1\\x1b[2J\\x07\\nn1: ok' \
  -- check "$tmp/fwmin.yaml" --node n1 --sysfs-root "$tmp/fw" --no-peers --json
hostile check-names 5 'HCAs on this host: mlx5_\x1b0\x07\nX' \
  -- check "$tmp/fwmin.yaml" --node n1 --sysfs-root "$tmp/names" --no-peers

# A right-to-left override reorders how the rest of a line reads ("Trojan Source"), and a
# line separator breaks it on some terminals: in a field of text output they are escaped.
cp -a "$fixture" "$tmp/bidi"
printf '20.31.1014\342\200\256 liaf\342\200\250ok\n' >"$tmp/bidi/$pci/infiniband/mlx5_0/fw_ver"
hostile inspect-bidi 0 'fw 20.31.1014\u202e liaf\u2028ok' -- inspect --sysfs-root "$tmp/bidi"
if LC_ALL=C grep -q $'\xe2\x80[\xa8\xae]' "$out"; then
  bad "inspect-bidi: a raw U+202E or U+2028 reached the output"
else
  ok "inspect-bidi: no raw U+202E or U+2028"
fi

# --- mstconfig: its output quoted in errors --------------------------------------------------
cat >"$tmp/mstconfig" <<'SH'
#!/bin/sh
printf 'Device #1:\n\033[2J\aLINK_TYPE_P1  \033[31mIB(1)\n'
printf -- '-E- cannot \033]0;pwned\007 open\nibsetup: ok\n' >&2
exit 3
SH
chmod +x "$tmp/mstconfig"
printf 'version: 1\nnodes:\n  - hosts: n1\n    hcas:\n      - {device: mlx5_0, link_type: ib}\n' >"$tmp/lt.yaml"
hostile mstconfig-output 4 '-E- cannot \x1b]0;pwned\x07 open' \
  -- firmware "$tmp/lt.yaml" --node n1 --sysfs-root "$tmp/fw" --mstconfig "$tmp/mstconfig"
no_line_starts mstconfig-output-one-line 'ibsetup: ok'

# --- Fleet report: one host's output cannot forge the verdict --------------------------------
{
  printf '%s\n' 'n1: {"host":"n1","ok":false,"checks":[{"id":"hca.firmware","subject":"mlx5_0","status":"fail","expected":"x","observed":"20.1\u001b[2J","message":"mlx5_0: old\nfleet: ok: 2 hosts: 2 passed, 0 failed, 0 invalid output, 0 did not answer\u001b[8m\u0007"}]}'
  printf '%s\n' 'n2: {"host":"n2","ok":true,"checks":[{"id":"hca.present","subject":"mlx5_0","status":"pass","expected":"x","observed":"y","message":"ok"}]}'
  printf 'n3\033[2J: garbage \a\nfleet: ok\n'
  printf 'n4: {"host":"n4\\u0085","ok":true,"checks":[]}\n'
} >"$tmp/fleet.txt"
hostile fleet-forged-verdict 5 'fleet: FAILED: ' -- report "$tmp/fleet.txt" --expect 'n[1-2]'
verdicts=$(grep -c '^fleet: ' "$out")
if [ "$verdicts" = 1 ]; then
  ok "fleet-forged-verdict: one verdict line"
else
  bad "fleet-forged-verdict: $verdicts lines start with 'fleet: ':"
  cat -v "$out"
fi
hostile fleet-message-escaped 5 'mlx5_0: old\nfleet: ok: 2 hosts' -- report "$tmp/fleet.txt" --expect 'n[1-2]'
hostile fleet-json 5 '"message":"mlx5_0: old\nfleet: ok' -- report "$tmp/fleet.txt" --expect 'n[1-2]' --json
finish
