#!/usr/bin/env python3
# Writes the seeds of the netlink harness into DIR: real rtnetlink dumps (links without
# statistics, addresses) of the current network namespace as raw bytes, and an IPoIB child's
# RTM_NEWLINK as ipoib_netlink.c builds it. The committed seeds came from a namespace with a
# veth pair (IPv4 and IPv6 addresses) and a point-to-point address on a second pair:
#   ip netns exec NS python3 make_seeds.py DIR
import socket, struct, sys
out = sys.argv[1]
RTM_GETLINK, RTM_GETADDR, RTM_NEWLINK = 18, 22, 16
NLM_F_REQUEST, NLM_F_DUMP = 1, 0x300
def dump(msg_type, body):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    req = struct.pack('=IHHII', 16 + len(body), msg_type, NLM_F_REQUEST | NLM_F_DUMP, 1, 0) + body
    s.send(req)
    data = b''
    while True:
        chunk = s.recv(65536)
        data += chunk
        # the last message of the last datagram is NLMSG_DONE (type 3)
        off, done = 0, False
        while off + 16 <= len(chunk):
            ln, ty = struct.unpack_from('=IH', chunk, off)
            if ty == 3:
                done = True
            off += (ln + 3) & ~3
        if done:
            return data
def attr(ty, payload):
    ln = 4 + len(payload)
    return struct.pack('=HH', ln, ty) + payload + b'\0' * (((ln + 3) & ~3) - ln)
ifinfo = struct.pack('=BxHiII', 0, 0, 0, 0, 0)
ext_mask = attr(29, struct.pack('=I', 8))  # IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS
open(out + '/links.bin', 'wb').write(dump(RTM_GETLINK, ifinfo + ext_mask))
open(out + '/addresses.bin', 'wb').write(dump(RTM_GETADDR, struct.pack('=BBBBI', 0, 0, 0, 0, 0)))
# ib0.8001 (index 9) on ib0 (index 7): type 32 (ARPHRD_INFINIBAND), IFF_UP, linkinfo ipoib.
body = struct.pack('=BxHiII', 0, 32, 9, 1, 0)
body += attr(3, b'ib0.8001\0') + attr(4, struct.pack('=I', 2044)) + attr(16, b'\x06')
body += attr(33, b'\x01') + attr(1, bytes(range(20))) + attr(5, struct.pack('=I', 7))
# IFLA_IPOIB_PKEY, IFLA_IPOIB_MODE (connected), IFLA_IPOIB_UMCAST
data = attr(1, struct.pack('=H', 0x8001)) + attr(2, struct.pack('=H', 1)) + attr(3, struct.pack('=H', 1))
body += attr(18, attr(1, b'ipoib\0') + attr(2 | 0x8000, data))  # IFLA_LINKINFO { KIND, DATA }
open(out + '/ipoib-child.bin', 'wb').write(struct.pack('=IHHII', 16 + len(body), RTM_NEWLINK, 2, 1, 0) + body)
