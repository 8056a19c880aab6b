#!/usr/bin/env python3
"""Writes the observed.json of each golden plan case from a sysfs fixture's inspect output,
with the live-only fields (addresses, active MTU, admin state) a case needs filled in.
Usage: make_cases.py IBSETUP   (then review each case's plan.txt by hand)"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "fixtures", "sysfs")


def inspect(ibsetup, fixture):
    out = subprocess.run([ibsetup, "inspect", "--json", "--sysfs-root",
                          os.path.join(FIXTURES, fixture)], capture_output=True, text=True,
                         check=True).stdout
    host = json.loads(out)
    host["host"] = "n1"
    host["warnings"] = []
    return host


def netdev(host, name):
    return next(n for n in host["netdevs"] if n["name"] == name)


def port(host, dev, n):
    d = next(d for d in host["devices"] if d["name"] == dev)
    return next(p for p in d["ports"] if p["port"] == n)


def case(name, host):
    os.makedirs(os.path.join(HERE, name), exist_ok=True)
    with open(os.path.join(HERE, name, "observed.json"), "w") as f:
        json.dump(host, f, indent=1)
        f.write("\n")


def main():
    ibsetup = sys.argv[1]
    # Two HDR HCAs, ib0/ib1 up with their addresses: the starting point of most cases.
    h = inspect(ibsetup, "hdr-2hca")
    for dev in ("mlx5_0", "mlx5_1"):
        port(h, dev, 1)["active_mtu"] = 4096
    netdev(h, "ib0")["addresses"] = ["10.10.0.1/16", "fe80::ec4:7aff:fe16:e7e0/64"]
    netdev(h, "ib1")["addresses"] = ["10.11.0.1/16"]
    for c in ("noop", "create-child", "binding-mismatch", "base-missing", "parent-missing",
              "connected-on-mlx5", "extra-addresses", "mtu-default", "mtu-above-ib-mtu",
              "pkey-not-in-table"):
        case(c, h)
    small = json.loads(json.dumps(h))
    netdev(small, "ib0")["mtu"] = 2044
    case("mtu-default", small)
    low = json.loads(json.dumps(h))
    port(low, "mlx5_0", 1)["active_mtu"] = 2048
    netdev(low, "ib0")["mtu"] = 2044
    case("mtu-above-ib-mtu", low)
    down = json.loads(json.dumps(h))
    netdev(down, "ib0")["admin_up"] = False
    netdev(down, "ib0")["operstate"] = "down"
    netdev(down, "ib0")["mode"] = "connected"
    netdev(down, "ib0")["mtu"] = 65520
    case("mode-mtu-up", down)
    # A pkey child next to ib0 (table 0xffff, 0x8001, 0x8002).
    c = inspect(ibsetup, "pkey-child")
    port(c, "mlx5_0", 1)["active_mtu"] = 4096
    netdev(c, "ib0")["addresses"] = ["10.10.0.1/16"]
    netdev(c, "ib0.8001")["addresses"] = ["10.20.0.1/16"]
    for x in ("prune-off", "prune-on", "mtu-order"):
        case(x, c)
    other = json.loads(json.dumps(c))
    netdev(other, "ib0.8001")["pkey"] = "0x8002"
    case("child-pkey-mismatch", other)
    # 10.10.0.10/24, wanted, is a secondary of 10.10.0.50/24, which goes (and takes its
    # secondaries with it): secondaries go first, and the wanted one comes back after.
    sec = json.loads(json.dumps(h))
    netdev(sec, "ib0")["addresses"] = ["10.10.0.50/24", "10.12.0.1/16", "10.10.0.60/24",
                                       "10.10.0.10/24", "fe80::ec4:7aff:fe16:e7e0/64"]
    case("ipv4-secondaries", sec)
    # An IPv6 address the profile does not manage on an interface whose MTU would go below
    # 1280: the kernel would take it away, so the plan refuses.
    v6 = json.loads(json.dumps(h))
    netdev(v6, "ib0")["addresses"] = ["10.10.0.10/24", "fd00:99::5/64",
                                      "fe80::ec4:7aff:fe16:e7e0/64"]
    case("mtu-below-ipv6", v6)
    # A 1024-byte IB MTU gives ib0 a datagram MTU of 1020, too small for the IPv6 address the
    # profile asks for: refused in the plan (validate sees no MTU in the profile).
    small_ib = json.loads(json.dumps(h))
    port(small_ib, "mlx5_0", 1)["active_mtu"] = 1024
    case("derived-mtu-below-ipv6", small_ib)
    # A ConnectX-3 (mlx4: connected mode allowed) in connected mode, MTU 2044.
    m = inspect(ibsetup, "mlx4-connectx3")
    port(m, "mlx4_0", 1)["active_mtu"] = 4096
    case("mode-change-resets-mtu", m)
    # Port 2 of a VPI card in Ethernet mode.
    e = inspect(ibsetup, "vpi-eth-port")
    case("ethernet-port", e)
    # A veth stand-in: not IPoIB.
    v = {"host": "n1", "devices": [], "warnings": [], "netdevs": [
        {"name": "ib0", "ipoib": False, "device": None, "port": None, "mode": None,
         "pkey": None, "parent": None, "umcast": None, "mtu": 1500, "operstate": "down",
         "admin_up": False, "carrier": False, "addresses": []}]}
    case("not-ipoib", v)


if __name__ == "__main__":
    main()
