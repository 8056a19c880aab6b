#!/bin/bash
# The live NetworkManager backend against a real, private NetworkManager (docs/facts.md,
# test tier 4):
# store-only apply, idempotence, in-place update, checkpoint rollback on a failed activation,
# foreign profiles and --adopt, backend auto, and offline keyfiles equal to live profiles.
# Needs root; exits 77 otherwise. Usage: live_apply_test.sh IBSETUP SOURCE_DIR
set -uo pipefail
ibsetup=$1 src=$2
if [ "$(id -u)" != 0 ]; then
  echo "nm: skipped: needs root"
  exit 77
fi
# shellcheck source=nm_harness.sh
. "$(dirname "$0")/nm_harness.sh"
work=$(mktemp -d)
# A NetworkManager stopped by a test (SIGSTOP) must run again to take nm_stop's SIGTERM.
trap '[ -n "${NM_PID:-}" ] && kill -CONT "$NM_PID" 2>/dev/null; nm_stop; umount "$work/readonly" 2>/dev/null; rm -rf "$work"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/expect.sh"
contains() {
  if [[ "$2" == *"$3"* ]]; then pass=$((pass + 1)); echo "ok   $1"; else
    fail=$((fail + 1)); printf 'FAIL %s\n     expected to contain: %s\n     actual: %s\n' "$1" "$3" "$2"; fi
}
jq_() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
# schema NAME JSON: apply's report conforms to docs/schema/apply.schema.json (python3
# jsonschema needed; without it tests/schema/schema_test.sh skips and so does this).
schema() {
  python3 -c 'from jsonschema import Draft7Validator' 2>/dev/null || return 0
  expect "$1: conforms to apply.schema.json" \
    "$(python3 "$src/tests/schema/validate_json.py" "$src/docs/schema/apply.schema.json" - <<<"$2" 2>&1)" ""
}

profile=$src/tests/data/nm/site.yaml
apply() { "$ibsetup" apply "$profile" --node nm01 --lock-file "$work/lock" "$@"; }
fields=connection.id,connection.type,connection.interface-name,connection.autoconnect
fields=$fields,infiniband.mtu,infiniband.transport-mode,infiniband.p-key,infiniband.parent
fields=$fields,ipv4.method,ipv4.addresses,ipv6.method,ipv6.addresses
show() { nmcli -t -f "$fields" connection show "$1" 2>&1 | tr '\n' ' '; }
uuid() { nmcli -t -g connection.uuid connection show "$1" 2>&1; }
# Every profile NM holds, every setting, without the timestamp; and the keyfiles' bytes.
snapshot() {
  local n
  nmcli -t -f NAME connection show | sort | while read -r n; do
    echo "== $n"
    nmcli -t connection show "$n" | grep -v '^connection.timestamp:'
  done
  (cd "$1" && sha256sum -- * 2>/dev/null)
}

# The host's resolver configuration, which the private NetworkManagers below must not touch
# (they rewrote /etc/resolv.conf, and the host lost DNS).
resolv_state() { stat -L -c '%Y %s' /etc/resolv.conf 2>&1; sha256sum </etc/resolv.conf 2>&1; }
resolv_before=$(resolv_state)

conns=$work/live
nm_start "$conns" || exit 1

# 1. Store only: the profiles as NM reports them.
out=$(apply --no-activate --json 2>"$work/err")
expect "--no-activate: exit 0" "$?" 0
expect "--no-activate: 3 profiles added" "$(jq_ 'd["changes"], d["ok"]' <<<"$out")" "3 True"
schema "--no-activate --json" "$out"
contains "auto chose NetworkManager and said why" "$(cat "$work/err")" \
  "backend networkmanager: NetworkManager is running and manages"
expect "ib0 as NM holds it" "$(show ibsetup-ib0)" \
  "connection.id:ibsetup-ib0 connection.type:infiniband connection.interface-name:ib0 connection.autoconnect:yes infiniband.mtu:auto infiniband.transport-mode:datagram infiniband.p-key:default infiniband.parent: ipv4.method:manual ipv4.addresses:10.20.0.1/16 ipv6.method:disabled ipv6.addresses: "
expect "ib1 as NM holds it (IPv6 declared)" "$(show ibsetup-ib1)" \
  "connection.id:ibsetup-ib1 connection.type:infiniband connection.interface-name:ib1 connection.autoconnect:yes infiniband.mtu:auto infiniband.transport-mode:datagram infiniband.p-key:default infiniband.parent: ipv4.method:manual ipv4.addresses:10.21.0.1/16 ipv6.method:manual ipv6.addresses:fd00:21::1/64 "
expect "ib0.8001 as NM holds it" "$(show ibsetup-ib0.8001)" \
  "connection.id:ibsetup-ib0.8001 connection.type:infiniband connection.interface-name:ib0.8001 connection.autoconnect:yes infiniband.mtu:2044 infiniband.transport-mode:datagram infiniband.p-key:0x8001 infiniband.parent:ib0 ipv4.method:manual ipv4.addresses:10.30.0.1/16 ipv6.method:disabled ipv6.addresses: "
expect "nothing activated" "$(nmcli -t -f NAME connection show --active | grep -c ibsetup)" 0
uuid_child=$(uuid ibsetup-ib0.8001)

# 2. Idempotent.
out=$(apply --no-activate --json 2>/dev/null)
expect "second apply: 0 changes, 3 unchanged" "$(jq_ 'd["changes"], len(d["unchanged"])' <<<"$out")" "0 3"
schema "second apply --json" "$out"
expect "still 3 ibsetup profiles" "$(nmcli -t -f NAME connection show | grep -c ^ibsetup-)" 3

# 2b. A dry run lists every step a run would take, activation included, and takes none.
out=$(apply --dry-run --no-activate --json 2>/dev/null)
expect "dry run, profiles stored as wanted: nothing to do" \
  "$(jq_ 'd["done"], len(d["unchanged"])' <<<"$out")" "[] 3"
out=$(apply --dry-run --json 2>/dev/null)
expect "dry run: the inactive profiles would be activated" "$(jq_ 'd["done"]' <<<"$out")" \
  "['would activate ibsetup-ib0', 'would activate ibsetup-ib1', 'would activate ibsetup-ib0.8001']"
schema "dry run --json" "$out"
expect "dry run: nothing activated" "$(nmcli -t -f NAME connection show --active | grep -c ibsetup)" 0

# 3. A changed MTU updates the same profile.
sed 's/mtu: 2044/mtu: 1500/' "$profile" >"$work/mtu.yaml"
out=$("$ibsetup" apply "$work/mtu.yaml" --node nm01 --lock-file "$work/lock" --no-activate \
  --dry-run --json 2>/dev/null)
expect "MTU change, dry run: the property named" "$(jq_ 'd["done"]' <<<"$out")" \
  "['would update ibsetup-ib0.8001 (infiniband.mtu)']"
out=$("$ibsetup" apply "$work/mtu.yaml" --node nm01 --lock-file "$work/lock" --no-activate --json 2>/dev/null)
expect "MTU change: 1 change" "$(jq_ 'd["changes"], d["done"]' <<<"$out")" \
  "1 ['update ibsetup-ib0.8001 (infiniband.mtu)']"
expect "MTU change: same UUID" "$(uuid ibsetup-ib0.8001)" "$uuid_child"
expect "MTU change: NM holds 1500" "$(nmcli -t -g infiniband.mtu connection show ibsetup-ib0.8001)" 1500

# 4. A failed activation (no InfiniBand device here) rolls back: NM's profiles as before.
snapshot "$conns" >"$work/before"
out=$(apply --json 2>/dev/null)
expect "activation failure: exit 7" "$?" 7
expect "activation failure: reported, rolled back" \
  "$(jq_ 'd["ok"], d["changes"], d["checkpoint"] is not None, len(d["rollback"]) > 0, d["rollback_failed"]' <<<"$out")" \
  "False 0 True True []"
contains "activation failure: NM's reason" "$(jq_ 'd["failure"]' <<<"$out")" "activate ibsetup-ib0"
expect "activation failure: one report type, never verified against the host" \
  "$(jq_ 'd["backend"], d["not_converged"]' <<<"$out")" "networkmanager []"
schema "activation failure --json" "$out"
snapshot "$conns" >"$work/after"
expect "activation failure: profiles exactly as before" "$(diff "$work/before" "$work/after")" ""
expect "activation failure: no checkpoint left" \
  "$(busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" get-property org.freedesktop.NetworkManager \
      /org/freedesktop/NetworkManager org.freedesktop.NetworkManager Checkpoints 2>&1)" "ao 0"

# 5. Foreign profiles: reported and left alone; --adopt saves and replaces them.
nmcli connection add type infiniband ifname ib1 con-name site-ib1 \
  infiniband.transport-mode connected ipv4.method disabled ipv6.method disabled >/dev/null
site_uuid=$(uuid site-ib1)
out=$(apply --no-activate --json 2>"$work/err")
expect "foreign: reported" "$(jq_ '[(f["id"], f["interface"], f["saved"]) for f in d["foreign"]]' <<<"$out")" \
  "[('site-ib1', 'ib1', None)]"
contains "foreign: warned on stderr" "$(cat "$work/err")" "profile 'site-ib1' ($site_uuid) also claims ib1"
expect "foreign: left alone" "$(uuid site-ib1)" "$site_uuid"
out=$(apply --dry-run --no-activate --adopt --adopt-dir "$work/adopted0" --json 2>/dev/null)
expect "--adopt, dry run: the deletion listed" "$(jq_ 'd["done"]' <<<"$out")" \
  "['would delete foreign site-ib1 ($site_uuid)']"
expect "--adopt, dry run: site-ib1 still there" "$(uuid site-ib1)" "$site_uuid"
out=$(apply --dry-run --no-activate --adopt --adopt-dir "$work/adopted0" 2>&1)
contains "--adopt, dry run, text: the steps counted" "$out" "nm01: 1 step to take, 3 profiles stored as wanted"
expect "--adopt, dry run: no 'left alone' warning" "$(grep -c 'left alone' <<<"$out")" 0
# An --adopt-dir that cannot be a directory is found before any change, dry run or not (a real
# run used to fail at the adoption and roll back, exit 7).
: >"$work/a-file"
ln -s "$work/nowhere" "$work/dangling"
# So is one where the copy cannot be written: a file of its name ibsetup did not write, a
# read-only mount (which passed the dry run, then failed mid-way, exit 7 after a rollback).
mkdir -p "$work/taken" "$work/readonly"
echo "the admin's own notes" >"$work/taken/$site_uuid.nmconnection"
mount --bind "$work/readonly" "$work/readonly"
mount -o remount,bind,ro "$work/readonly"
for dir in "$work/a-file" "$work/a-file/sub" "$work/dangling/sub" "$work/taken" "$work/readonly" \
  "$work/readonly/sub"; do
  for run in --dry-run --no-activate; do
    out=$(apply "$run" --adopt --adopt-dir "$dir" 2>&1)
    expect "--adopt-dir $dir, $run: exit 4" "$?" 4
    contains "--adopt-dir $dir, $run: said why" "$out" "--adopt-dir $dir: "
  done
done
expect "--adopt-dir refused: site-ib1 still there" "$(uuid site-ib1)" "$site_uuid"
contains "--adopt-dir with a file ibsetup did not write: named" \
  "$(apply --dry-run --adopt --adopt-dir "$work/taken" 2>&1)" \
  "$work/taken/$site_uuid.nmconnection exists and was not written by ibsetup"
expect "--adopt-dir with a file ibsetup did not write: kept" \
  "$(cat "$work/taken/$site_uuid.nmconnection")" "the admin's own notes"
contains "--adopt-dir read-only: named" "$(apply --dry-run --adopt --adopt-dir "$work/readonly" 2>&1)" \
  "--adopt-dir $work/readonly: $work/readonly is not writable (Read-only file system)"
umount "$work/readonly"
# An --adopt whose activation fails puts the foreign profile back too.
snapshot "$conns" >"$work/before"
apply --adopt --adopt-dir "$work/adopted1" >/dev/null 2>"$work/err"
expect "--adopt then failure: exit 7" "$?" 7
contains "--adopt then failure: the profile is said to be back" "$(cat "$work/err")" \
  "also claims ib1; put back by the rollback, a copy in $work/adopted1/$site_uuid.nmconnection"
snapshot "$conns" >"$work/after"
expect "--adopt then failure: profiles exactly as before" "$(diff "$work/before" "$work/after")" ""
out=$(apply --no-activate --adopt --adopt-dir "$work/adopted" --json 2>/dev/null)
expect "--adopt: exit 0" "$?" 0
expect "--adopt: deleted and saved" "$(jq_ 'd["done"], d["foreign"][0]["saved"]' <<<"$out")" \
  "['delete foreign site-ib1 ($site_uuid, saved to $work/adopted/$site_uuid.nmconnection)'] $work/adopted/$site_uuid.nmconnection"
schema "--adopt --json" "$out"
expect "--adopt: site-ib1 gone" "$(nmcli -t -f NAME connection show | grep -c '^site-ib1$')" 0
expect "--adopt: saved copy is mode 600" "$(stat -c %a "$work/adopted/$site_uuid.nmconnection")" 600
contains "--adopt: saved copy holds the profile" "$(cat "$work/adopted/$site_uuid.nmconnection")" \
  "transport-mode=connected"
# A foreign profile that claims two interfaces (ib1 by name, ib0 by ibsetup's id) is listed
# twice; once --adopt has deleted it, neither entry may say it was left alone.
nmcli connection add type infiniband ifname ib1 con-name ibsetup-ib0 ipv4.method disabled \
  ipv6.method disabled >/dev/null
out=$(apply --no-activate --adopt --adopt-dir "$work/adopted2" --json 2>"$work/err")
expect "--adopt, two claims: exit 0" "$?" 0
expect "--adopt, two claims: both entries saved" \
  "$(jq_ 'len(d["foreign"]), len(set(f["saved"] for f in d["foreign"])), d["foreign"][0]["saved"] is None' <<<"$out")" \
  "2 1 False"
expect "--adopt, two claims: no 'left alone' warning" "$(grep -c 'left alone' "$work/err")" 0
# Only InfiniBand profiles compete: an Ethernet profile with ibsetup's id is not foreign and
# --adopt leaves it (it used to delete it); one bound by match.interface-name alone is foreign.
nmcli connection add type ethernet ifname eth9 con-name ibsetup-ib1 ipv4.method disabled \
  ipv6.method disabled >/dev/null
eth_uuid=$(nmcli -t -f TYPE,UUID,NAME connection show | sed -n 's/^802-3-ethernet:\(.*\):ibsetup-ib1$/\1/p')
nmcli connection add type infiniband ifname '*' con-name by-pattern match.interface-name ib1 \
  ipv4.method disabled ipv6.method disabled >/dev/null
pattern_uuid=$(uuid by-pattern)
out=$(apply --no-activate --adopt --adopt-dir "$work/adopted3" --json 2>"$work/err")
expect "--adopt, by pattern: exit 0" "$?" 0
expect "--adopt, by pattern: only the InfiniBand one is foreign" \
  "$(jq_ '[(f["id"], f["interface"], f["uuid"]) for f in d["foreign"]]' <<<"$out")" \
  "[('by-pattern', 'ib1', '$pattern_uuid')]"
schema "--adopt, a foreign profile left alone, --json" "$out"
expect "--adopt, by pattern: the Ethernet profile is left" \
  "$(nmcli -t -f UUID,TYPE connection show | grep -c "^$eth_uuid:802-3-ethernet$")" 1
# It is also a candidate for IPoIB interfaces the profile does not declare: --adopt leaves it
# (deleting it, or deactivating it everywhere, would take it from them), and says why.
expect "--adopt, by pattern: by-pattern left" "$(nmcli -t -f NAME connection show | grep -c '^by-pattern$')" 1
contains "--adopt, by pattern: said why" "$(cat "$work/err")" \
  "profile 'by-pattern' ($pattern_uuid) also claims ib1; left alone, even with --adopt: it is also a candidate for IPoIB interfaces the profile does not declare"
out=$(apply --dry-run --no-activate --adopt --adopt-dir "$work/adopted3" --json 2>/dev/null)
expect "--adopt, by pattern, dry run: no deletion listed" "$(jq_ 'd["done"]' <<<"$out")" "[]"
nmcli connection delete by-pattern >/dev/null
nmcli connection delete "$eth_uuid" >/dev/null

# 6. backend auto: a device NM does not manage sends apply to netlink.
nmcli device set ib0 managed no
out=$(apply --dry-run 2>&1)
contains "auto: unmanaged device -> netlink" "$out" \
  "backend netlink: NetworkManager is running but does not manage ib0"
nmcli device set ib0 managed yes
out=$(DBUS_SYSTEM_BUS_ADDRESS=unix:path=$work/nobus apply --dry-run 2>&1)
contains "auto: no system bus -> netlink" "$out" \
  "backend netlink: no D-Bus system bus at $work/nobus (No such file or directory), so NetworkManager is not running"
# The address comes from the environment: a newline in it cannot forge a line of its own.
out=$(DBUS_SYSTEM_BUS_ADDRESS="unix:path=$work/nobus
ibsetup: error: forged" apply --dry-run 2>&1)
contains "auto: bus address escaped" "$out" "no D-Bus system bus at $work/nobus\\nibsetup: error: forged ("
expect "auto: bus address cannot forge a line" "$(grep -c '^ibsetup: error: forged' <<<"$out")" 0
# Without a bus the plugin is not even loaded (issue 15: loading libnm cost 14 ms): a plugin
# path that does not exist changes nothing.
out=$(IBSETUP_NM_PLUGIN=$work/no-plugin.so DBUS_SYSTEM_BUS_ADDRESS=unix:path=$work/nobus \
  apply --dry-run 2>&1)
contains "auto: no system bus, plugin not loaded" "$out" "so NetworkManager is not running"
# A bus address libnm must judge (not a plain unix:path) still goes through the plugin.
out=$(DBUS_SYSTEM_BUS_ADDRESS=unix:abstract=ibsetup-nobus-$$ apply --dry-run 2>&1)
contains "auto: other address forms -> libnm" "$out" "backend netlink: cannot reach NetworkManager"
# Asked for by name, the error says which bus it tried.
out=$(DBUS_SYSTEM_BUS_ADDRESS=unix:path=$work/nobus apply --backend networkmanager --dry-run 2>&1)
contains "networkmanager without its bus: the address named" "$out" \
  "error: cannot reach NetworkManager on the system D-Bus (DBUS_SYSTEM_BUS_ADDRESS=unix:path=$work/nobus): "

# 7. Offline keyfiles for the same input give NetworkManager the same profiles.
"$ibsetup" apply "$profile" --node nm01 --lock-file "$work/lock" --no-activate -q
for n in ib0 ib1 ib0.8001; do
  nmcli -t connection show "ibsetup-$n" | grep -v '^connection.timestamp:' >"$work/live-$n"
done
nm_stop
mkdir -p "$work/offline"
"$ibsetup" render "$profile" --node nm01 --root "$work/offline" >/dev/null
nm_start "$work/offline/etc/NetworkManager/system-connections" || exit 1
for n in ib0 ib1 ib0.8001; do
  nmcli -t connection show "ibsetup-$n" | grep -v '^connection.timestamp:' >"$work/offline-$n"
  expect "offline keyfile = live profile: $n" "$(diff "$work/live-$n" "$work/offline-$n")" ""
done

# 8. IPv6 only, on a base interface and a pkey child: IPv4 disabled, and the same round trip.
cat >"$work/v6.yaml" <<'YAML'
version: 1
cluster: nmtest
nodes:
  - hosts: "nm01"
    interfaces:
      - {name: ib0, device: mlx5_0, port: 1, ipv6: "fd00:20::/64"}
      - {parent: ib0, pkey: 0x8002, ipv6: "fd00:32::/64"}
YAML
nm_stop
nm_start "$work/v6-live" || exit 1
out=$("$ibsetup" apply "$work/v6.yaml" --node nm01 --lock-file "$work/lock" --no-activate --json 2>/dev/null)
expect "IPv6 only: 2 profiles added" "$(jq_ 'd["changes"], d["ok"]' <<<"$out")" "2 True"
expect "IPv6 only: ib0 as NM holds it" "$(show ibsetup-ib0)" \
  "connection.id:ibsetup-ib0 connection.type:infiniband connection.interface-name:ib0 connection.autoconnect:yes infiniband.mtu:auto infiniband.transport-mode:datagram infiniband.p-key:default infiniband.parent: ipv4.method:disabled ipv4.addresses: ipv6.method:manual ipv6.addresses:fd00:20::1/64 "
expect "IPv6 only: the child as NM holds it" "$(show ibsetup-ib0.8002)" \
  "connection.id:ibsetup-ib0.8002 connection.type:infiniband connection.interface-name:ib0.8002 connection.autoconnect:yes infiniband.mtu:auto infiniband.transport-mode:datagram infiniband.p-key:0x8002 infiniband.parent:ib0 ipv4.method:disabled ipv4.addresses: ipv6.method:manual ipv6.addresses:fd00:32::1/64 "
out=$("$ibsetup" apply "$work/v6.yaml" --node nm01 --lock-file "$work/lock" --no-activate --json 2>/dev/null)
expect "IPv6 only: re-apply changes nothing" "$(jq_ 'd["changes"], d["ok"]' <<<"$out")" "0 True"
for n in ib0 ib0.8002; do
  nmcli -t connection show "ibsetup-$n" | grep -v '^connection.timestamp:' >"$work/v6-live-$n"
done
nm_stop
mkdir -p "$work/v6-offline"
"$ibsetup" render "$work/v6.yaml" --node nm01 --root "$work/v6-offline" >/dev/null
nm_start "$work/v6-offline/etc/NetworkManager/system-connections" || exit 1
for n in ib0 ib0.8002; do
  nmcli -t connection show "ibsetup-$n" | grep -v '^connection.timestamp:' >"$work/v6-offline-$n"
  expect "IPv6 only: offline keyfile = live profile: $n" \
    "$(diff "$work/v6-live-$n" "$work/v6-offline-$n")" ""
done

# 9. The firmware step runs before NetworkManager is touched (apply reads the live /sys for it,
#    so the hdr-2hca fixture is mounted over /sys in a private mount namespace; mstconfig is the
#    fake that replays real outputs).
fw_state=$work/fw-state
cat >"$work/mstconfig" <<SH
#!/bin/sh
export FAKE_MSTCONFIG_STATE='$fw_state' FAKE_MSTCONFIG_LOG='$work/fw-log'
exec python3 '$src/tests/firmware/fake_mstconfig' "\$@"
SH
chmod +x "$work/mstconfig"
fw_yaml() {
  cat <<YAML
version: 1
cluster: nmtest
nodes:
  - hosts: "nm01"
    hcas:
      - {device: mlx5_0, link_type: $1}
    interfaces:
      - {name: ib0, device: mlx5_0, port: 1, ipv4: 10.20.0.0/16}
YAML
}
on_fixture() {
  unshare -m bash -c 'mount -t tmpfs ibsetup-test /sys && cp -a "$0"/. /sys/ && exec "$@"' \
    "$src/tests/fixtures/sysfs/hdr-2hca" "$@"
}
mkdir -p "$fw_state"
echo "LINK_TYPE_P1=IB" >"$fw_state/0000:3b:00.0"
fw_yaml eth >"$work/fw-eth.yaml"
snapshot "$work/v6-offline/etc/NetworkManager/system-connections" >"$work/before"
out=$(on_fixture "$ibsetup" apply "$work/fw-eth.yaml" --reboot-marker "$work/reboot" \
  --node nm01 --backend networkmanager --no-activate --mstconfig "$work/mstconfig" \
  --lock-file "$work/lock" 2>&1)
expect "NM + firmware change: exit 9 (reboot)" "$?" 9
contains "NM + firmware change: set LINK_TYPE_P1=2" "$(cat "$work/fw-log")" "set LINK_TYPE_P1=2"
contains "NM + firmware change: interfaces left for after the reboot" "$out" \
  "the interfaces were not changed"
snapshot "$work/v6-offline/etc/NetworkManager/system-connections" >"$work/after"
expect "NM + firmware change: NetworkManager untouched" "$(diff "$work/before" "$work/after")" ""
fw_yaml ib >"$work/fw-ib.yaml"
echo "LINK_TYPE_P1=IB" >"$fw_state/0000:3b:00.0"
rm -f "$work/fw-log"
out=$(on_fixture "$ibsetup" apply "$work/fw-ib.yaml" --node nm01 --backend networkmanager \
  --no-activate --mstconfig "$work/mstconfig" --lock-file "$work/lock" --json 2>/dev/null)
expect "NM + firmware in sync: exit 0" "$?" 0
contains "NM + firmware in sync: queried, not set" "$(cat "$work/fw-log")" "query"
expect "NM + firmware in sync: nothing set" "$(grep -c ' set ' "$work/fw-log")" 0
expect "NM + firmware in sync: ib0 stored" "$(show ibsetup-ib0 | grep -o 'ipv4.addresses:[^ ]*')" \
  "ipv4.addresses:10.20.0.1/16"

# An unsaved foreign profile (nmcli ... save no) that --adopt deleted is put back unsaved when
# the run fails: it was re-added to disk and so outlived the next reboot.
nmcli connection add save no type infiniband ifname ib1 con-name vol-ib1 ipv4.method disabled \
  ipv6.method disabled >/dev/null
apply --adopt --adopt-dir "$work/adopted3" >/dev/null 2>&1
expect "unsaved foreign, failed --adopt: exit 7" "$?" 7
expect "unsaved foreign: back" "$(nmcli -t -f NAME connection show | grep -c '^vol-ib1$')" 1
expect "unsaved foreign: still unsaved" \
  "$(nmcli -t -f NAME,FILENAME connection show | grep '^vol-ib1:' | cut -d: -f2 | cut -d/ -f2)" run
nmcli connection delete vol-ib1 >/dev/null

# SIGTERM between steps: the error names the step that did not start (one interrupted before
# the first step named none: "error: : interrupted"), the checkpoint rolls back, and
# NetworkManager holds what it held. "$ibsetup", not the apply function: a function in the
# background is a subshell, whose pid would take the signal instead.
nmcli connection delete ibsetup-ib1 >/dev/null 2>&1  # so that the run has a step to take
snapshot "$conns" >"$work/before"
"$ibsetup" apply "$profile" --node nm01 --lock-file "$work/lock" --no-activate \
  --step-delay-ms 2000 >"$work/term.out" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "add ibsetup-ib1 .* ok" "$work/term.out" && break; sleep 0.05; done
kill -TERM "$pid"
wait "$pid"
expect "SIGTERM between steps: exit 7" "$?" 7
contains "SIGTERM between steps: the step not started is named" "$(cat "$work/term.out")" \
  ": interrupted before this step; rolled back through checkpoint"
expect "SIGTERM between steps: no step without a name" "$(grep -c 'error: : ' "$work/term.out")" 0
snapshot "$conns" >"$work/after"
expect "SIGTERM between steps: NetworkManager as before" "$(diff "$work/before" "$work/after")" ""

# NetworkManager stopped (SIGSTOP: it holds its D-Bus name but answers nothing). libnm's first
# read times out (25 s) and leaves an empty cache: the dry run planned to add every profile,
# exit 0. It is an error now, and nothing is read or changed.
kill -STOP "$NM_PID"
out=$(apply --dry-run --json 2>&1)
code=$?
kill -CONT "$NM_PID"
expect "NetworkManager stopped: exit 4" "$code" 4
contains "NetworkManager stopped: said so" "$out" \
  "NetworkManager holds its D-Bus name but did not answer (hung or stopped?)"
expect "NetworkManager stopped: no plan" "$(grep -c 'would add' <<<"$out")" 0

# A run longer than --rollback-timeout whose steps come quicker than it: each step puts
# NetworkManager's own rollback off (AdjustRollbackTimeout), so the checkpoint lives to the
# end. It used to expire --rollback-timeout after its creation, half-way through: NetworkManager
# rolled back by itself, deleting the profiles just added, and the run failed.
nmcli connection delete ibsetup-ib1 >/dev/null 2>&1
nmcli connection delete ibsetup-ib0.8001 >/dev/null 2>&1
out=$(apply --no-activate --rollback-timeout 2 --step-delay-ms 1200 --json 2>"$work/err")
expect "steps quicker than --rollback-timeout, the run longer: exit 0" "$?" 0
expect "steps quicker than --rollback-timeout: both profiles added" \
  "$(jq_ 'd["ok"], d["changes"]' <<<"$out")" "True 2"
expect "steps quicker than --rollback-timeout: no checkpoint left" \
  "$(busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" get-property org.freedesktop.NetworkManager \
      /org/freedesktop/NetworkManager org.freedesktop.NetworkManager Checkpoints 2>&1)" "ao 0"

checkpoints() {
  busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" get-property org.freedesktop.NetworkManager \
    /org/freedesktop/NetworkManager org.freedesktop.NetworkManager Checkpoints 2>&1
}
# Waits until the run in the background has made its checkpoint: it has read NetworkManager
# (the survey comes first), and sleeps --step-delay-ms before each step after.
wait_for_checkpoint() {
  for _ in $(seq 400); do [ "$(checkpoints)" != "ao 0" ] && return; sleep 0.05; done
  echo "FAIL no checkpoint appeared within 20 s"
  fail=$((fail + 1))
}

# Someone (nmcli, Ansible) deletes ibsetup's own profile after ibsetup read NetworkManager and
# before it updates it: an error that says so, and a rollback. It crashed (exit 139: the
# read-back of a null profile) and left its checkpoint to block every run for 120 s.
nmcli connection modify ibsetup-ib0.8001 infiniband.mtu 1500 >/dev/null
"$ibsetup" apply "$profile" --node nm01 --lock-file "$work/lock" --no-activate \
  --step-delay-ms 3000 >"$work/gone.out" 2>&1 &
pid=$!
wait_for_checkpoint
nmcli connection delete ibsetup-ib0.8001 >/dev/null
wait "$pid"
expect "own profile deleted before its update: exit 7" "$?" 7
contains "own profile deleted before its update: said so" "$(cat "$work/gone.out")" \
  "error: update ibsetup-ib0.8001: NetworkManager no longer holds ibsetup-ib0.8001 ($uuid_child): it was deleted during the run; rolled back through checkpoint"
expect "own profile deleted before its update: no checkpoint left" "$(checkpoints)" "ao 0"

# The same before its activation (after the three read-backs, 3 x 5 s after the checkpoint,
# while activate sleeps its 5 s: the deletion comes half-way, 2.5 s from either end): NetworkManager, given no profile, activated whichever it
# liked for ib0 (here an Ethernet profile of the admin's, autoconnect off), and ibsetup
# reported "activate ibsetup-ib0 ... ok".
nmcli connection add type ethernet ifname ib0 con-name eth-on-ib0 connection.autoconnect no \
  ipv4.method manual ipv4.addresses 192.0.2.1/24 ipv6.method disabled >/dev/null
apply --no-activate -q >/dev/null 2>&1
"$ibsetup" apply "$profile" --node nm01 --lock-file "$work/lock" --step-delay-ms 5000 \
  >"$work/gone.out" 2>&1 &
pid=$!
wait_for_checkpoint
sleep 17.5
nmcli connection delete ibsetup-ib0 >/dev/null
wait "$pid"
expect "own profile deleted before its activation: exit 7" "$?" 7
contains "own profile deleted before its activation: said so" "$(cat "$work/gone.out")" \
  "error: activate ibsetup-ib0: NetworkManager no longer holds ibsetup-ib0"
expect "own profile deleted before its activation: nothing activated" \
  "$(grep -c 'activate .* ok' "$work/gone.out")" 0
nmcli connection delete eth-on-ib0 >/dev/null

# NetworkManager rolled back by itself (--rollback-timeout shorter than a step): the failure
# no longer ends "rolled back through checkpoint", which the rollback line above contradicted.
uuid_ib1=$(uuid ibsetup-ib1)
nmcli connection delete ibsetup-ib1 >/dev/null 2>&1
# With -q, which prints no progress, the failed rollback line is printed with the error.
out=$(apply --no-activate -q --rollback-timeout 1 --step-delay-ms 2500 2>&1)
expect "checkpoint gone: exit 7" "$?" 7
contains "checkpoint gone: the rollback line says so, -q too" "$out" \
  "  - roll back checkpoint /org/freedesktop/NetworkManager/Checkpoint/"
contains "checkpoint gone: the rollback line's reason" "$out" \
  "... failed: NetworkManager no longer holds it"
contains "checkpoint gone: not called rolled back" "$out" \
  " not confirmed: a step of it failed (see the rollback lines)"
expect "checkpoint gone: no 'rolled back through'" "$(grep -c 'rolled back through' <<<"$out")" 0

# An Ethernet profile that holds the UUID ibsetup derives for ib1 (a copied keyfile keeps its
# UUID) is not ibsetup's to rewrite: exit 4 before any change. It was turned into ibsetup-ib1,
# without a warning and without --adopt.
nmcli connection add type ethernet ifname eth5 con-name my-eth connection.uuid "$uuid_ib1" \
  ipv4.method manual ipv4.addresses 198.51.100.7/24 ipv6.method disabled >/dev/null
snapshot "$conns" >"$work/before"
out=$(apply --no-activate 2>&1)
expect "UUID held by an Ethernet profile: exit 4" "$?" 4
contains "UUID held by an Ethernet profile: said so" "$out" \
  "profile 'my-eth' ($uuid_ib1, type 802-3-ethernet) holds the UUID ibsetup uses for ib1; ibsetup rewrites only InfiniBand profiles"
snapshot "$conns" >"$work/after"
expect "UUID held by an Ethernet profile: NetworkManager as before" \
  "$(diff "$work/before" "$work/after")" ""
nmcli connection delete my-eth >/dev/null

# NetworkManager hangs (SIGSTOP) after the run's first change: the run says so, tries no more
# calls (each waited 25 s again, and a SIGTERM took 50 s to end the run), and leaves the
# rollback to NetworkManager's own timeout, which deletes the profile added. It was reported
# as "NetworkManager no longer holds checkpoint (it rolled back by itself ...)" while the
# checkpoint was still there, and the run ended "rolled back through checkpoint".
nmcli connection delete ibsetup-ib0 >/dev/null 2>&1
snapshot "$conns" >"$work/before"
"$ibsetup" apply "$profile" --node nm01 --lock-file "$work/lock" --no-activate \
  --rollback-timeout 3 --step-delay-ms 2000 >"$work/hung.out" 2>&1 &
pid=$!
for _ in $(seq 200); do grep -q "add ibsetup-ib.* ok" "$work/hung.out" && break; sleep 0.05; done
kill -STOP "$NM_PID"
wait "$pid"
code=$?
kill -CONT "$NM_PID"
expect "NetworkManager hung mid-run: exit 7" "$code" 7
contains "NetworkManager hung mid-run: said so" "$(cat "$work/hung.out")" \
  "NetworkManager stopped answering (hung or stopped?) while it holds checkpoint"
contains "NetworkManager hung mid-run: the rollback left to it" "$(cat "$work/hung.out")" \
  "... failed: not tried, NetworkManager is not answering; it rolls the checkpoint back by itself once it runs again, 3 s after the last step"
contains "NetworkManager hung mid-run: not called rolled back" "$(cat "$work/hung.out")" \
  " not confirmed: a step of it failed"
for _ in $(seq 100); do [ "$(checkpoints)" = "ao 0" ] && break; sleep 0.1; done
snapshot "$conns" >"$work/after"
expect "NetworkManager hung mid-run: as before once it rolled back" \
  "$(diff "$work/before" "$work/after")" ""

# Another tool's checkpoint (or a killed apply's) already holds the devices: nothing is
# changed, so exit 4 (the host's problem), not 7 (an apply that failed and was rolled back).
other=$(busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.freedesktop.NetworkManager \
  /org/freedesktop/NetworkManager org.freedesktop.NetworkManager CheckpointCreate aouu 0 300 0 |
  sed 's/^o "\(.*\)"$/\1/')
snapshot "$conns" >"$work/before"
out=$(apply --no-activate 2>&1)
expect "checkpoint held by another tool: exit 4" "$?" 4
contains "checkpoint held by another tool: said so" "$out" \
  "is already included in checkpoint $other (another tool's, or left by an apply that was killed; it ends at its rollback timeout); nothing was changed"
# --json: the error on stderr and nothing on stdout, as for every exit 4 (the report was
# printed on stdout, and stderr said nothing).
apply --no-activate --json -q >"$work/held.out" 2>"$work/held.err"
expect "checkpoint held by another tool, --json: exit 4" "$?" 4
expect "checkpoint held by another tool, --json: nothing on stdout" "$(cat "$work/held.out")" ""
contains "checkpoint held by another tool, --json: the error on stderr" "$(cat "$work/held.err")" \
  "ibsetup: error: create checkpoint: "
snapshot "$conns" >"$work/after"
expect "checkpoint held by another tool: NetworkManager as before" \
  "$(diff "$work/before" "$work/after")" ""
busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.freedesktop.NetworkManager \
  /org/freedesktop/NetworkManager org.freedesktop.NetworkManager CheckpointDestroy o "$other"

# Last, as it ends NetworkManager: it exits mid-run. libnm empties its cache then, so the
# profile added looked "already removed by the checkpoint" while its keyfile stayed on disk,
# and the run ended "rolled back". Now nothing more is tried, and the lines say so.
nmcli connection delete ibsetup-ib0 ibsetup-ib1 >/dev/null 2>&1
"$ibsetup" apply "$profile" --node nm01 --lock-file "$work/lock" --no-activate \
  --step-delay-ms 3000 >"$work/gone.out" 2>&1 &
pid=$!
for _ in $(seq 200); do grep -q "add ibsetup-ib.* ok" "$work/gone.out" && break; sleep 0.05; done
kill -TERM "$NM_PID"
wait "$NM_PID" 2>/dev/null
NM_PID=""  # ended: nm_stop must not signal the number again
wait "$pid"
expect "NetworkManager gone mid-run: exit 7" "$?" 7
contains "NetworkManager gone mid-run: said so" "$(cat "$work/gone.out")" \
  "NetworkManager is not running any more (it exited, or its D-Bus bus went away)"
contains "NetworkManager gone mid-run: the undo not tried" "$(cat "$work/gone.out")" \
  "undo ibsetup-ib0 ... failed: not tried, NetworkManager is not running any more; the change stays, a later apply completes it"
expect "NetworkManager gone mid-run: nothing called removed" \
  "$(grep -c 'already removed by the checkpoint' "$work/gone.out")" 0

expect "the host's /etc/resolv.conf as before" "$(resolv_state)" "$resolv_before"

echo "nm live: $pass passed, $fail failed"
[ "$fail" = 0 ]
