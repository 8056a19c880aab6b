#!/usr/bin/env python3
"""Writes a large cluster profile: HOSTS hosts in GROUPS groups, four interfaces per host,
and per-host overrides for every 20th host. Usage: gen_profile.py HOSTS GROUPS > cluster.yaml"""
import sys

hosts = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
groups = int(sys.argv[2]) if len(sys.argv) > 2 else 5
per = hosts // groups
out = ["version: 1", "defaults:", "  mode: datagram", "  mtu: 4092", "nodes:"]
for g in range(groups):
    first = g * per + 1
    last = hosts if g == groups - 1 else first + per - 1
    out += [
        f'  - hosts: "g{g}n[{first:05d}-{last:05d}]"',
        "    hcas:",
        "      - device: mlx5_0",
        "        link_type: ib",
        '        firmware: {min: "20.31.1014"}',
        "        pcie: {width: 16, speed: 16.0}",
        "        ports:",
        "          - {port: 1, link_type: ib, rate: 200, state: active}",
        "      - device: mlx5_1",
        "        ports:",
        "          - {port: 1, rate: 200}",
        "    interfaces:",
        f"      - {{name: ib0, device: mlx5_0, port: 1, ipv4: 10.{100 + g}.0.0/16}}",
        f"      - {{name: ib1, device: mlx5_1, port: 1, ipv4: 10.{120 + g}.0.0/16}}",
        f"      - {{parent: ib0, pkey: 0x8001, ipv4: 10.{140 + g}.0.0/16}}",
        f"      - {{parent: ib1, pkey: 0x8002, ipv4: 10.{160 + g}.0.0/16, ipv6: 'fd00:{g}::/64'}}",
        "    checks:",
        f"      peers: [g{g}n{first:05d}]",
    ]
out.append("hosts:")
for g in range(groups):
    first = g * per + 1
    last = hosts if g == groups - 1 else first + per - 1
    for h in range(first, last + 1, 20):
        pos = h - first + 1
        out.append(f"  g{g}n{h:05d}:")
        out.append("    interfaces:")
        out.append(f"      ib0: {{ipv4: 10.{100 + g}.{200 + pos // 250}.{pos % 250 + 1}/16, mtu: 2044}}")
print("\n".join(out))
