#!/bin/sh
# Runs inside the QEMU guest (as /test.sh, under busybox sh) after /init created rxe0 on dummy0
# (192.168.77.1/24). Exercises rdma.bandwidth and rdma.latency on the real kernel stack
# (check_perf_console.py judges them), then, in the same boot on the same device, compares them
# with perftest's ib_write_bw and ib_send_lat (bench/rdma.sh reports the ratios). Sections from
# guest_lib.sh: ===BEGIN NAME===, ===END NAME===, ===TIME NAME=START END===, ===RC NAME=N===.

. /guest_lib.sh

add_peer_address

# A profile with the given bandwidth and latency thresholds (YAML flow mappings).
profile() {
  printf '%s\n' 'version: 1' 'nodes:' '  - hosts: "cn[1-3]"' '    hcas:' \
    '      - device: rxe0' '        ports: [{port: 1}]' '    interfaces:' \
    '      - name: dummy0' '        device: rxe0' '        port: 1' \
    '        ipv4: 192.168.77.0/24' '    checks:' '      peers: [cn2, cn3]' \
    "      bandwidth: $1" "      latency: $2" 'hosts:' \
    '  cn3: {interfaces: {dummy0: {ipv4: 192.168.77.200/24}}}'
}
profile '{min_gbps: 0.001}' '{max_us: 10000000}' >/tmp/low.yaml
profile '{min_gbps: 10000}' '{max_us: 0.001}' >/tmp/high.yaml

# Only the RDMA measurements: every other group disabled, routes and ping-pong too.
groups="--disable hca --disable pcie --disable port --disable ipoib --disable ip --disable mpi
  --disable rdma.device --disable rdma.route --disable rdma.pingpong"
only="$groups --timeout 60"
perf="--bw-duration 1 --lat-iters 200"

# 1. Loopback (rxe0/1 against itself, an in-process responder): under the threshold, then over.
section loop_low /bin/ibsetup check /tmp/low.yaml --node cn1 --json --loopback --bandwidth \
  --latency $perf $only
section loop_high /bin/ibsetup check /tmp/high.yaml --node cn1 --json --loopback --bandwidth \
  --latency $perf $only

# 1b. More round trips than --timeout leaves time for: the latency result fails on its own
# (a peer that echoes slowly did the same), and the run ends with its report, exit 5, before
# the watchdog would end it without one.
section lat_budget /bin/ibsetup check /tmp/low.yaml --node cn1 --json --loopback --latency \
  --lat-iters 1000000 $groups --timeout 4

# 2. To cn2's address, where `ibsetup responder` listens: both sessions, then both over.
/bin/ibsetup responder --bind 192.168.77.2 --count 4 --timeout 60 >/tmp/responder.log 2>&1 &
responder=$!
wait_listening || echo "guest: the responder did not start listening"
section peer_low /bin/ibsetup check /tmp/low.yaml --node cn1 --json --peer cn2 --bandwidth \
  --latency $perf $only
section peer_high /bin/ibsetup check /tmp/high.yaml --node cn1 --json --peer cn2 --bandwidth \
  --latency $perf $only
wait $responder
log_section responder /tmp/responder.log $?

# 3. Dead peers: nobody listens on cn2 any more (rejected), cn3 does not answer ARP: each
# fails within its 1000 ms deadline.
section dead /bin/ibsetup check /tmp/low.yaml --node cn1 --json --bandwidth --latency $perf \
  $only --peer-timeout-ms 1000

# 4. More connections than the responder serves at once are refused, and it stays up for the
# next client.
: >/tmp/responder.log
/bin/ibsetup responder --bind 192.168.77.2 --count 2 --timeout 60 --max-sessions 1 \
  >/tmp/responder.log 2>&1 &
responder=$!
wait_listening || echo "guest: the responder did not start listening"
section qps /bin/ibsetup check /tmp/low.yaml --node cn1 --json --peer cn2 --bandwidth \
  --bw-qps 2 $perf $only
section after_qps /bin/ibsetup check /tmp/low.yaml --node cn1 --json --peer cn2 --bandwidth \
  $perf $only
wait $responder
log_section responder2 /tmp/responder.log

# 4b. A client that makes the responder reuse its connection ids (tests/qemu/rdma_reuse_client):
# a ping-pong session's echo and disconnect, then at once a latency and a bandwidth session.
# The responder used to die of SIGSEGV within a few rounds; it serves them all, and a real
# check after them still passes.
if [ -x /bin/rdma_reuse_client ]; then
  : >/tmp/responder.log
  /bin/ibsetup responder --bind 192.168.77.2 --timeout 120 >/tmp/responder.log 2>&1 &
  responder=$!
  wait_listening || echo "guest: the responder did not start listening"
  section reuse_latency /bin/rdma_reuse_client 192.168.77.2 18515 20 2
  section reuse_bandwidth /bin/rdma_reuse_client 192.168.77.2 18515 20 1
  # One client pinging 50 times on one connection: 2 lines in the log, not 50.
  section ping_again /bin/rdma_reuse_client 192.168.77.2 18515 50 0
  section after_reuse /bin/ibsetup check /tmp/low.yaml --node cn1 --json --peer cn2 \
    --bandwidth $perf $only
  if kill -0 $responder 2>/dev/null; then
    echo "guest: the responder is alive"
    kill $responder
  fi
  wait $responder
  log_section responder3 /tmp/responder.log $?
fi

# 4c. --timeout past what an int of milliseconds holds (2147484 s) used to stop the responder
# at once; it must still be listening when busybox's timeout ends it after 3 s (143).
section big_timeout timeout 3 /bin/ibsetup responder --bind 192.168.77.2 --timeout 2147484

# 4d. The responder ends a session at its --max-session-time: the client says the peer
# disconnected, within a second of it, instead of writing (or waiting for echoes) until its
# duration or deadline is out.
: >/tmp/responder.log
/bin/ibsetup responder --bind 192.168.77.2 --timeout 60 --max-session-time 1 \
  >/tmp/responder.log 2>&1 &
responder=$!
wait_listening || echo "guest: the responder did not start listening"
section cut_bandwidth /bin/ibsetup check /tmp/low.yaml --node cn1 --json --peer cn2 \
  --bandwidth --bw-duration 20 $only
section cut_latency /bin/ibsetup check /tmp/low.yaml --node cn1 --json --peer cn2 \
  --latency --lat-iters 1000000 $only
kill $responder
wait $responder
log_section responder4 /tmp/responder.log

# 5. The bench: ibsetup and perftest in turn on rxe0 (both through the RDMA CM to 192.168.77.1),
# same message size and duration, three rounds.
# perftest NAME TOOL ARGS...: TOOL's server in the background, then its client as section NAME,
# each bounded by `timeout 30` (a perftest that lost its peer waits for ever: once, a rejected
# client segfaulted and its retry hung until the guest's 240 s ran out; a client takes 1-4 s).
# A client that fails (rejected: the server was not listening yet, the guest being slow under
# host load) tries once more, a second after a fresh server; the server of the failed try is
# ended by its pid and its log shown.
perftest() {
  name=$1
  tool=$2
  shift 2
  for attempt in 1 2; do
    timeout 30 "$tool" "$@" >/tmp/server.log 2>&1 &
    server=$!
    sleep 1
    section "$name" timeout 30 "$tool" "$@" 192.168.77.1
    if [ "$rc" = 0 ]; then
      wait $server
      return
    fi
    kill $server 2>/dev/null
    wait $server
    log_section "$name-server-try$attempt" /tmp/server.log
  done
}
if [ -x /usr/bin/ib_write_bw ] && [ -x /usr/bin/ib_send_lat ]; then
  for round in 1 2 3; do
    section "bench_ibsetup_bw_$round" /bin/ibsetup check /tmp/low.yaml --node cn1 --json \
      --loopback --bandwidth --bw-size 65536 --bw-duration 2 $only
    perftest "bench_perftest_bw_$round" /usr/bin/ib_write_bw -d rxe0 -R -s 65536 -D 2 -F \
      --report_gbits
    section "bench_ibsetup_lat_$round" /bin/ibsetup check /tmp/low.yaml --node cn1 --json \
      --loopback --latency --lat-size 2 --lat-iters 1000 $only
    perftest "bench_perftest_lat_$round" /usr/bin/ib_send_lat -d rxe0 -R -s 2 -n 1000 -F
  done
else
  echo "guest: no perftest in the guest: bench skipped"
fi
