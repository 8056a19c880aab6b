#!/bin/sh
# Runs inside the QEMU guest (as /test.sh, under busybox sh) after /init created rxe0 on dummy0
# (192.168.77.1/24). Exercises the RDMA checks on the real kernel stack; check_rdma_console.py
# on the host judges the output. Sections from guest_lib.sh (===BEGIN NAME===, ===END NAME===,
# ===TIME NAME=START END===, ===RC NAME=N===).

. /guest_lib.sh

add_peer_address

cat >/tmp/rdma.yaml <<'EOF'
version: 1
nodes:
  - hosts: "cn[1-3]"
    hcas:
      - device: rxe0
        ports: [{port: 1}]
      - device: mlx5_9
    interfaces:
      - name: dummy0
        device: rxe0
        port: 1
        ipv4: 192.168.77.0/24
    checks:
      peers: [cn2, cn3, far]
  - hosts: far
    interfaces:
      - name: dummy0
        ipv4: 198.51.100.0/24
hosts:
  cn3: {interfaces: {dummy0: {ipv4: 192.168.77.200/24}}}
EOF

# `ibsetup check` with every group but the RDMA checks disabled (what the dropped rdma-check
# command ran).
rdma_only="--disable hca --disable pcie --disable port --disable ipoib --disable ip"

# 1. Devices and routes, 1000 ms per peer.
section route /bin/ibsetup check /tmp/rdma.yaml --node cn1 --json --peer-timeout-ms 1000 \
  $rdma_only

# 2. The RC exchange with a responder on cn2's address.
/bin/ibsetup responder --bind 192.168.77.2 --once --timeout 30 >/tmp/responder.log 2>&1 &
responder=$!
wait_listening || echo "guest: the responder did not start listening"
section pingpong /bin/ibsetup check /tmp/rdma.yaml --node cn1 --json --rdma-pingpong \
  --peer-timeout-ms 2000 $rdma_only
wait $responder
log_section responder /tmp/responder.log $?

# 3. Nothing listens on port 18516: the connection is rejected, well within the deadline.
section norespond /bin/ibsetup check /tmp/rdma.yaml --node cn1 --json --rdma-pingpong \
  --peer-timeout-ms 2000 --rdma-port 18516 $rdma_only

# 5. The same exchange once more, with a second responder run.
: >/tmp/responder.log
/bin/ibsetup responder --bind 192.168.77.2 --once --timeout 30 >/tmp/responder.log 2>&1 &
responder=$!
wait_listening || echo "guest: the responder did not start listening"
section check /bin/ibsetup check /tmp/rdma.yaml --node cn1 --json --rdma-pingpong \
  --peer-timeout-ms 2000 --disable hca --disable pcie --disable port --disable ipoib \
  --disable ip
wait $responder

# 4. The responder's own errors: a bind address this host does not have.
section badbind /bin/ibsetup responder --bind 192.168.77.99 --once --timeout 5

# 6. RDMA devices removed under running responders (`rdma link delete`, as a driver unload or
# an HCA's reset does): a responder must neither hold the removal up nor go on serving a dead
# device. Soft-RoCE cannot take a device's contexts back from a process, so the kernel waits
# for every process that has the device open; the 60 s --timeout is what the old responder
# held each removal up for.
# A second device, rxe1, stays until 6c: the responders always have a device left.
/usr/sbin/ip link add dummy1 type dummy
/usr/sbin/ip link set dummy1 up
/usr/sbin/rdma link add rxe1 type rxe netdev dummy1
wait_active rxe1 || echo "guest: rxe1 not ACTIVE"
# 6a. Bound to an address on rxe0: it ends (exit 4, for systemd's Restart=on-failure).
: >/tmp/responder.log
/bin/ibsetup responder --bind 192.168.77.2 --timeout 60 >/tmp/responder.log 2>&1 &
responder=$!
wait_listening || echo "guest: the responder did not start listening"
section unbound /usr/sbin/rdma link delete rxe0
wait $responder
log_section unbound_responder /tmp/responder.log $?

# 6b. On every address: it lets rxe0 go after serving through it, and serves through the rxe0
# that comes back.
/usr/sbin/rdma link add rxe0 type rxe netdev dummy0
wait_active rxe0 || echo "guest: rxe0 not ACTIVE again"
: >/tmp/responder.log
/bin/ibsetup responder --timeout 60 >/tmp/responder.log 2>&1 &
responder=$!
wait_listening || echo "guest: the responder did not start listening"
section before_removal /bin/ibsetup check /tmp/rdma.yaml --node cn1 --json --rdma-pingpong \
  --peer-timeout-ms 2000 $rdma_only
# A bandwidth session under way when rxe0 goes: its client lets go at once too (it used to
# write on for the rest of --bw-duration, holding the removal up).
/bin/ibsetup check /tmp/rdma.yaml --node cn1 --json --peer cn2 --bandwidth --bw-duration 30 \
  --timeout 60 $rdma_only >/tmp/bw.json 2>/tmp/bw.err &
client=$!
i=0
while [ $i -lt 100 ] && ! grep -q "accepted a bandwidth session" /tmp/responder.log; do
  sleep 0.1
  i=$((i + 1))
done
section removal /usr/sbin/rdma link delete rxe0
wait $client
log_section removal_bandwidth /tmp/bw.json $?
log_section removal_bandwidth-stderr /tmp/bw.err
/usr/sbin/rdma link add rxe0 type rxe netdev dummy0
wait_active rxe0 || echo "guest: rxe0 not ACTIVE again"
section after_removal /bin/ibsetup check /tmp/rdma.yaml --node cn1 --json --rdma-pingpong \
  --peer-timeout-ms 2000 $rdma_only

# 6c. The last device goes while the responder holds it (it served through rxe0): it ends, so
# that the removal can finish.
section last_device sh -c '/usr/sbin/rdma link delete rxe1 && /usr/sbin/rdma link delete rxe0'
wait $responder
log_section wildcard_responder /tmp/responder.log $?

# 6d. A responder that never served holds no device: the only device goes and comes back (an
# HCA's reset on a single-HCA node) under it, and it serves through the device that came back.
/usr/sbin/rdma link add rxe0 type rxe netdev dummy0
wait_active rxe0 || echo "guest: rxe0 not ACTIVE again"
: >/tmp/responder.log
/bin/ibsetup responder --once --timeout 60 >/tmp/responder.log 2>&1 &
responder=$!
wait_listening || echo "guest: the responder did not start listening"
section idle_removal /usr/sbin/rdma link delete rxe0
sleep 2
/usr/sbin/rdma link add rxe0 type rxe netdev dummy0
wait_active rxe0 || echo "guest: rxe0 not ACTIVE again"
section idle_after /bin/ibsetup check /tmp/rdma.yaml --node cn1 --json --rdma-pingpong \
  --peer-timeout-ms 2000 $rdma_only
wait $responder
log_section idle_responder /tmp/responder.log $?
