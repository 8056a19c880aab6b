#!/bin/bash
# Keyfiles rendered offline (ibsetup render --format nm-keyfile) are handed to a fresh, private
# NetworkManager as its keyfile directory: NM must load every one without a warning, with the
# settings the profile asks for. Needs root; exits 77 otherwise.
# Usage: offline_keyfile_test.sh IBSETUP SOURCE_DIR
set -uo pipefail
ibsetup=$1 src=$2
if [ "$(id -u)" != 0 ]; then
  echo "nm: skipped: needs root"
  exit 77
fi
# shellcheck source=nm_harness.sh
. "$(dirname "$0")/nm_harness.sh"
root=$(mktemp -d)
trap 'nm_stop; rm -rf "$root"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/expect.sh"

"$ibsetup" render "$src/profiles/lab.yaml" --node lab02 --root "$root" >/dev/null || exit 1
conns="$root/etc/NetworkManager/system-connections"
nm_start "$conns" || exit 1
fields=connection.id,connection.type,connection.interface-name,infiniband.mtu
fields=$fields,infiniband.transport-mode,infiniband.p-key,infiniband.parent
fields=$fields,ipv4.method,ipv4.addresses,ipv6.method
show() { nmcli -t -f "$fields" connection show "$1" 2>&1 | tr '\n' ' '; }
uuid() { nmcli -t -g connection.uuid connection show "$1" 2>&1; }

expect "NM loaded 3 connections" "$(nmcli -t -f NAME connection show | grep ^ibsetup- | sort | tr '\n' ' ')" \
  "ibsetup-ib0 ibsetup-ib0.8010 ibsetup-ib1 "
expect "ib0 as NM reads it" "$(show ibsetup-ib0)" \
  "connection.id:ibsetup-ib0 connection.type:infiniband connection.interface-name:ib0 infiniband.mtu:auto infiniband.transport-mode:datagram infiniband.p-key:default infiniband.parent: ipv4.method:manual ipv4.addresses:192.168.100.2/24 ipv6.method:disabled "
expect "ib0.8010 as NM reads it" "$(show ibsetup-ib0.8010)" \
  "connection.id:ibsetup-ib0.8010 connection.type:infiniband connection.interface-name:ib0.8010 infiniband.mtu:2044 infiniband.transport-mode:datagram infiniband.p-key:0x8010 infiniband.parent:ib0 ipv4.method:manual ipv4.addresses:192.168.110.2/24 ipv6.method:disabled "
expect "UUID is the one ibsetup derived" "$(uuid ibsetup-ib1)" \
  "$(grep -h '^uuid=' "$conns/ibsetup-ib1.nmconnection" | cut -d= -f2)"
warnings=$(grep -iE "<warn>|<error>" "$NM_DIR/nm.log" | grep -iE "keyfile|nmconnection|ibsetup" || true)
expect "NM logged no warning about the keyfiles" "$warnings" ""

echo "nm: $pass passed, $fail failed"
[ "$fail" = 0 ]
