#!/bin/bash
# NetworkManager backend speed: 32 IPoIB profiles, ib0 and 31 pkey children (datagram mode,
# MTU, IPv4), stored as NetworkManager profiles without activation, against a private
# NetworkManager (tests/nm/nm_harness.sh). Interleaved by bench_spawn_timer:
#   ibsetup apply --backend networkmanager --no-activate (one process: survey, checkpoint,
#   32 adds, read-back verification, checkpoint destroyed), and the 32
#   `nmcli connection add` calls a provisioning script would run, each from no profiles (an
#   untimed setup deletes them); a no-op re-apply (setup: no profiles, then one apply).
# No target (issue 15 sets none); the ratio is context.
# Needs root, NetworkManager, nmcli and dbus-daemon.
# Usage: bench/nm_vs_nmcli.sh [RUNS]   (default 30; after scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
runs=${1:-$bench_default_runs}
bench_require_root nm_vs_nmcli.sh
bench_require_built
# shellcheck source=tests/nm/nm_harness.sh
. tests/nm/nm_harness.sh
work=$(mktemp -d)
trap 'nm_stop; rm -rf "$work"' EXIT
trap 'exit 1' HUP INT PIPE TERM # a fatal signal still runs the EXIT trap
n=32

{
  echo "version: 1"
  echo "cluster: bench"
  echo "nodes:"
  echo "  - hosts: b1"
  echo "    interfaces:"
  echo "      - {name: ib0, mode: datagram, ipv4: 10.100.0.0/16}"
  for ((i = 1; i < n; i++)); do
    printf '      - {parent: ib0, pkey: 0x80%02x, mode: datagram, mtu: 2044, ipv4: 10.%d.0.0/16}\n' "$i" $((100 + i))
  done
} >"$work/cluster.yaml"
{
  echo "#!/bin/bash"
  echo "set -e"
  echo "nmcli connection add type infiniband con-name script-ib0 ifname ib0" \
    "infiniband.transport-mode datagram ipv4.method manual ipv4.addresses 10.100.0.1/16" \
    "ipv6.method disabled >/dev/null"
  for ((i = 1; i < n; i++)); do
    pkey=$(printf '80%02x' "$i")
    echo "nmcli connection add type infiniband con-name script-ib0.$pkey ifname ib0.$pkey" \
      "infiniband.parent ib0 infiniband.p-key 0x$pkey infiniband.transport-mode datagram" \
      "infiniband.mtu 2044 ipv4.method manual ipv4.addresses 10.$((100 + i)).0.1/16" \
      "ipv6.method disabled >/dev/null"
  done
} >"$work/nmcli_adds.sh"
cat >"$work/clear.sh" <<'CLEAR'
#!/bin/bash
set -euo pipefail
uuids=$(nmcli -t -f UUID,TYPE connection show | awk -F: '$2 == "infiniband" {print $1}')
if [ -n "$uuids" ]; then
  # shellcheck disable=SC2086
  nmcli connection delete $uuids >/dev/null
fi
CLEAR
chmod +x "$work"/*.sh
apply=("$bench_ibsetup" apply -q "$work/cluster.yaml" --node b1 --backend networkmanager
  --no-activate --lock-file "$work/lock")
clear=(-- --setup "$work/clear.sh")

nm_start "$work/conns"
"${apply[@]}"
count=$(nmcli -t -f TYPE connection show | grep -c infiniband)
[ "$count" = "$n" ] || { echo "bench: expected $n profiles, NM holds $count" >&2; exit 1; }
"$work/clear.sh"
"$work/nmcli_adds.sh"
count=$(nmcli -t -f TYPE connection show | grep -c infiniband)
[ "$count" = "$n" ] || { echo "bench: expected $n nmcli profiles, NM holds $count" >&2; exit 1; }

bench_machine_line
echo "$n IPoIB profiles stored (not activated) in a private NetworkManager" \
  "$(NetworkManager --version); $runs interleaved runs"
"$bench_timer" "$runs" --samples "$work/times.samples" \
  "${clear[@]}" -- --label "ibsetup apply --no-activate (checkpoint, verified)" "${apply[@]}" \
  "${clear[@]}" -- --label "$n x nmcli connection add" "$work/nmcli_adds.sh" \
  "${clear[@]}" -- --setup "${apply[@]}" -- --label "ibsetup apply --no-activate, no-op" \
  "${apply[@]}" >"$work/times"
bench_table "$work/times"
bench_load_line "$work/times" networkmanager
echo
bench_compare "$work/times" "NetworkManager: $n profiles stored vs $n x nmcli connection add" \
  "ibsetup apply --no-activate (checkpoint, verified)" "$n x nmcli connection add" context_faster
bench_row_context "$work/times" "NetworkManager: no-op re-apply of $n profiles (context)" \
  "ibsetup apply --no-activate, no-op" ours
