#!/usr/bin/env python3
"""A real OpenSM over an 18-host ibsim fabric (three groups behind three leaf switches) loads
data/partitions.conf (three overlapping partitions, full and limited members, MTU codes 5, 3
and 4) without a partition error, and `smpquery pkeys` on every host port shows exactly the
pkeys of data/expected_pkeys.txt with the right membership bit. The harness is checked against
a partitions.conf OpenSM rejects too: its log check must see that. Exits 77 (skipped) when
ibsim or opensm are not installed.

Usage: pkeys_test.py"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fabric  # noqa: E402





def main():
    fabric.require_tools()
    failures = []
    expected = fabric.expected_tables()
    with fabric.Fabric() as fab:
        log = fab.sweep(fabric.read_data("partitions.conf"))
        if "SUBNET UP" not in log:
            failures.append("OpenSM did not bring the subnet up:\n" + log)
        problems = fabric.partition_problems(log)
        if problems:
            failures.append("OpenSM complained about partitions.conf:\n  " + "\n  ".join(problems))
        dump = fab.dump_pkeys()
        for host, (lid, guid, table) in dump.items():
            print("%s LID %d %s: %s" % (host, lid, guid, " ".join("0x%04x" % p for p in table)))
        if sorted(dump) != sorted(expected):
            failures.append("ibnetdiscover hosts %s, expected %s" % (sorted(dump),
                                                                     sorted(expected)))
        for host in sorted(expected):
            if host not in dump:
                continue
            lid, guid, table = dump[host]
            n = int(host[2:])
            if guid != fabric.port_guid(n):
                failures.append("%s: port GUID %s, expected %s" % (host, guid, fabric.port_guid(n)))
            if sorted(table) != expected[host]:
                failures.append("%s (LID %d): pkeys %s, expected %s" % (
                    host, lid, " ".join("0x%04x" % p for p in sorted(table)),
                    " ".join("0x%04x" % p for p in expected[host])))
        # The log check itself: a definition OpenSM cannot parse must be seen.
        bad = fabric.read_data("partitions.conf").replace("0x0002c90300000902=full",
                                                          "0xnot-a-guid=full")
        problems = fabric.partition_problems(fab.sweep(bad, "osm-bad.log"))
        if not any("PARSE ERROR" in p for p in problems):
            failures.append("a broken partitions.conf left no PARSE ERROR in OpenSM's log: %s"
                            % problems)
    for f in failures:
        print("FAIL: " + f)
    if failures:
        return 1
    print("ok: %d host ports hold exactly the expected P_Keys" % len(expected))
    return 0


if __name__ == "__main__":
    sys.exit(main())
