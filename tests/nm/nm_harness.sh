#!/bin/bash
# A private NetworkManager for tests (docs/facts.md, test tier 4): its own D-Bus system bus,
# its own network namespace with a veth pair ib0/ib1, its own state directories, a read-only /sys.
# Source this file, then: nm_start KEYFILE_DIR; ...; nm_stop (also run it from a trap).
# Sets NM_DIR, NM_NS and exports DBUS_SYSTEM_BUS_ADDRESS so nmcli and libnm talk to it.

nm_start() {
  local conns=$1
  NM_DIR=$(mktemp -d)
  NM_NS="ibnm$$"
  mkdir -p "$conns"
  cat >"$NM_DIR/dbus.conf" <<CONF
<busconfig>
  <type>system</type>
  <listen>unix:path=$NM_DIR/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_type="method_return"/>
    <allow send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="signal"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
  </policy>
</busconfig>
CONF
  cat >"$NM_DIR/nm.conf" <<CONF
[main]
plugins=keyfile
no-auto-default=*
# /etc is the host's (only /run and /var/lib are private here): without these, NetworkManager
# rewrote the host's /etc/resolv.conf with its own empty one, and the host lost DNS.
dns=none
rc-manager=unmanaged
[keyfile]
path=$conns
[device]
match-device=*
managed=1
[logging]
level=INFO
CONF
  NM_DBUS_PID=$(dbus-daemon --config-file="$NM_DIR/dbus.conf" --fork --print-pid)
  export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$NM_DIR/bus"
  ip netns add "$NM_NS"
  ip -n "$NM_NS" link add ib0 type veth peer name ib1
  ip netns exec "$NM_NS" unshare -m sh -c "mount -t tmpfs none /run/NetworkManager 2>/dev/null ||
      { mkdir -p /run/NetworkManager && mount -t tmpfs none /run/NetworkManager; };
    mount -t tmpfs none /var/lib/NetworkManager; mount -o remount,ro /sys;
    exec NetworkManager --no-daemon --config=$NM_DIR/nm.conf" >"$NM_DIR/nm.log" 2>&1 &
  NM_PID=$!
  local i
  for i in $(seq 100); do
    if nmcli -t -f RUNNING general 2>/dev/null | grep -q running; then
      return 0
    fi
    sleep 0.1
  done
  echo "nm_harness: NetworkManager did not start; its log:" >&2
  tail -20 "$NM_DIR/nm.log" >&2
  return 1
}

nm_stop() {
  [ -n "${NM_PID:-}" ] && kill "$NM_PID" 2>/dev/null && wait "$NM_PID" 2>/dev/null
  [ -n "${NM_DBUS_PID:-}" ] && kill "$NM_DBUS_PID" 2>/dev/null
  [ -n "${NM_NS:-}" ] && ip netns del "$NM_NS" 2>/dev/null
  [ -n "${NM_DIR:-}" ] && rm -rf "$NM_DIR"
  NM_PID="" NM_DBUS_PID="" NM_NS="" NM_DIR=""
}
