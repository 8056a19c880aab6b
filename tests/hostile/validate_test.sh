#!/bin/bash
# Issue 13 item 7: validate refuses what apply would refuse, whenever that is known without
# the host: one backend per node, and address pools that cannot hold host addresses. Each
# case is refused by validate with its location, and by apply before it looks at the host.
source "$(dirname "$0")/lib.sh" "$@"

# profile NAME INTERFACE-LINES [HOSTS-LINES]: writes $tmp/NAME.yaml with one group n[1-2].
profile() {
  printf 'version: 1\nnodes:\n  - hosts: "n[1-2]"\n    interfaces:\n%s\n%s' "$2" "${3:-}" \
    >"$tmp/$1.yaml"
}
# refused NAME 'FIXED STRING': validate and apply --dry-run both exit 3 with the message.
refused() {
  hostile "$1-validate" 3 "$2" -- validate "$tmp/$1.yaml"
  hostile "$1-apply" 3 "$2" -- apply "$tmp/$1.yaml" --node n1 --dry-run --no-firmware \
    --lock-file "$tmp/lock"
}

profile backend-mixed '      - {name: ib0, backend: netlink}
      - {name: ib1, backend: networkmanager}'
refused backend-mixed 'backend-mixed.yaml:6:30: nodes[0].interfaces[1].backend: ib1 asks for the networkmanager backend and ib0 for netlink (nodes[0].interfaces[0].backend, line 5); one node is applied through one backend'

profile backend-defaults '      - {name: ib0}
      - {name: ib1, backend: networkmanager}' 'defaults: {backend: netlink}'
refused backend-defaults 'ib1 asks for the networkmanager backend and ib0 for netlink (defaults.backend, line 7)'

profile backend-override '      - {name: ib0, backend: netlink}
      - {name: ib1}' 'hosts:
  n2: {interfaces: {ib1: {backend: networkmanager}}}'
hostile backend-override-validate 3 'hosts.n2.interfaces.ib1.backend: n2: ib1 asks for the networkmanager backend and ib0 for netlink' -- \
  validate "$tmp/backend-override.yaml"
hostile backend-auto-mixes 0 'ok: 1 group' -- validate "$src/profiles/lab.yaml"

for case in "loopback 127.0.0.0/24 127.0.0.0/8, the loopback range" \
  "multicast 239.1.0.0/16 224.0.0.0/4, the multicast range" \
  "linklocal 169.254.0.0/16 169.254.0.0/16, the link-local range" \
  "unspecified 0.0.0.0/16 0.0.0.0/8, the unspecified" \
  "everything 0.0.0.0/0 is a /0: the whole address space" \
  "half 128.0.0.0/1 169.254.0.0/16, the link-local range"; do
  read -r name pool why <<<"$case"
  profile "v4-$name" "      - {name: ib0, ipv4: $pool}"
  refused "v4-$name" "v4-$name.yaml:5:27: nodes[0].interfaces[0].ipv4: pool $pool"
  grep -qF -- "$why" "$out" || bad "v4-$name: message lacks: $why"
done
for case in "unspecified ::/64 ::/128, the unspecified range" \
  "loopback ::1/128 ::1/128, the loopback range" \
  "linklocal fe80::/64 fe80::/10, the link-local range" \
  "multicast ff02::/64 ff00::/8, the multicast range" \
  "everything ::/0 is a /0: the whole address space"; do
  read -r name pool why <<<"$case"
  profile "v6-$name" "      - {name: ib0, ipv6: \"$pool\"}"
  refused "v6-$name" "v6-$name.yaml:5:27: nodes[0].interfaces[0].ipv6: pool $pool"
  grep -qF -- "$why" "$out" || bad "v6-$name: message lacks: $why"
done

# A pool too small for its hosts: /32 and /128 hold none, /31 and /127 one (two hosts here).
profile v4-slash32 '      - {name: ib0, ipv4: 10.9.0.0/32}'
refused v4-slash32 'pool 10.9.0.0/32 has 0 usable addresses; its group of 2 hosts needs 2'
profile v4-slash31 '      - {name: ib0, ipv4: 10.9.0.0/31}'
refused v4-slash31 'pool 10.9.0.0/31 has 1 usable address; its group of 2 hosts needs 2'
profile v6-slash127 '      - {name: ib0, ipv6: "fd00::/127"}'
refused v6-slash127 'pool fd00::/127 has 1 usable address; its group of 2 hosts needs 2'

# A host override's exact address in one of those ranges.
profile override-loopback '      - {name: ib0, ipv4: 10.9.0.0/24}' 'hosts:
  n1: {interfaces: {ib0: {ipv4: 127.0.0.9/8}}}'
refused override-loopback 'hosts.n1.interfaces.ib0.ipv4: 127.0.0.9/8 is in 127.0.0.0/8, the loopback range'
profile override-multicast6 '      - {name: ib0, ipv6: "fd00::/64"}' 'hosts:
  n2: {interfaces: {ib0: {ipv6: "ff02::1/64"}}}'
hostile override-multicast6-validate 3 'hosts.n2.interfaces.ib0.ipv6: ff02::1/64 is in ff00::/8, the multicast range' -- \
  validate "$tmp/override-multicast6.yaml"

# Ordinary private pools stay valid.
profile fine '      - {name: ib0, ipv4: 10.9.0.0/24, ipv6: "fd00:9::/64"}
      - {name: ib1, ipv4: 192.168.0.0/30, backend: auto}'
hostile fine 0 'ok: 1 group, 2 hosts, 4 interfaces' -- validate "$tmp/fine.yaml"
# Host names as RFC 1123 has them: a leading '-' would be an option in scontrol's argv.
for case in "dash -n[1-2] cannot start with '-'" "dots n..[1-2] cannot hold an empty label" \
  "lead .n[1-2] cannot start with '.'" "trail n[1-2]. cannot end with '.'"; do
  read -r name hosts why <<<"$case"
  printf 'version: 1\nnodes:\n  - hosts: "%s"\n    interfaces:\n      - {name: ib0}\n' "$hosts" \
    >"$tmp/host-$name.yaml"
  hostile "host-name-$name" 3 "a host name $why" -- validate "$tmp/host-$name.yaml"
done

# -q prints nothing but errors, an invalid profile's warnings included (they came with its
# errors before); without -q the warning is there.
profile quiet '      - {name: ib0}
      - {name: ib1, pkey: 0x0001}'
hostile quiet-loud 3 'warning: nodes[0].interfaces[1].pkey: P_Key 0x0001 lacks' -- \
  validate "$tmp/quiet.yaml"
for command in validate show; do
  run_ibsetup /dev/null "$command" "$tmp/quiet.yaml" -q
  if [ "$code" = 3 ] && grep -q "ibsetup: error: .*a pkey child needs 'parent'" "$out" && ! grep -q 'warning' "$out"; then
    ok "quiet-$command: only the error"
  else
    bad "quiet-$command: exit $code; output:"
    head -20 "$out"
  fi
done
hostile quiet-false 3 'warning: nodes[0].interfaces[1].pkey: P_Key 0x0001 lacks' -- \
  validate "$tmp/quiet.yaml" --quiet=false
finish
