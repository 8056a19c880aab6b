# What the guest scripts share; build_guest.sh puts it into the guest as /guest_lib.sh, and they
# source it (busybox sh). Real tools are called by absolute path: busybox runs its own applets
# before $PATH.

uptime_s() { cut -d' ' -f1 /proc/uptime; }

# Runs a command as section NAME: its output between ===BEGIN NAME=== and ===END NAME===, then
# ===TIME NAME=START END=== (seconds of /proc/uptime, so that the host can bound how long it
# took) and its exit code as ===RC NAME=N=== (also left in $rc). stderr goes to a separate
# section NAME-stderr so that it cannot corrupt the JSON.
section() {
  name=$1
  shift
  start=$(uptime_s)
  echo "===BEGIN $name==="
  "$@" 2>/tmp/stderr
  rc=$?
  echo "===END $name==="
  echo "===TIME $name=$start $(uptime_s)==="
  echo "===RC $name=$rc==="
  if [ -s /tmp/stderr ]; then
    echo "===BEGIN $name-stderr==="
    cat /tmp/stderr
    echo "===END $name-stderr==="
  fi
}

# Prints FILE as section NAME, with ===RC NAME=RC=== when RC is given (a background run's log).
log_section() {
  echo "===BEGIN $1==="
  cat "$2"
  echo "===END $1==="
  if [ -n "${3:-}" ]; then
    echo "===RC $1=$3==="
  fi
}

# A second address plays the peer cn2 (its responder binds it); ARP on so that an address
# nobody has (cn3) waits for a reply that never comes, as on a real fabric (dummy is NOARP by
# default and would "resolve" anything on its subnet at once).
add_peer_address() {
  /usr/sbin/ip addr add 192.168.77.2/24 dev dummy0
  /usr/sbin/ip link set dummy0 arp on
}

# Waits up to 10 s for the responder's "listening" line in /tmp/responder.log.
wait_listening() {
  i=0
  while [ $i -lt 100 ]; do
    grep -q listening /tmp/responder.log 2>/dev/null && return 0
    sleep 0.1
    i=$((i + 1))
  done
  return 1
}

# Waits up to 10 s for port 1 of RDMA device $1 to be ACTIVE.
wait_active() {
  i=0
  while [ $i -lt 100 ]; do
    case "$(cat "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null)" in
      *ACTIVE*) return 0 ;;
    esac
    sleep 0.1
    i=$((i + 1))
  done
  return 1
}
