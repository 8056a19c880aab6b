#!/usr/bin/env python3
"""Judges the RDMA checks run by guest_rdma.sh in a QEMU guest (Soft-RoCE, real kernel stack).

Usage: check_rdma_console.py CONSOLE_LOG

Each `ibsetup check --json` run (every check but the RDMA ones disabled) must give the expected verdict per check, and must end
within its deadline plus 2 s (measured in the guest from /proc/uptime): a correctness bound
that proves an unreachable peer cannot hang the check, not a benchmark. Prints one line per
assertion and ends with `qemu: N passed, M failed`; exit code 0 when all hold.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from console import SLACK_S, Report, bounded, expect, guest_console, results, times  # noqa: E402

def main(argv):
    lines, out, rcs = guest_console(argv, __doc__)
    took = times(lines)
    r = Report()

    # 1. Devices and routes, deadline 1000 ms.
    got = results(r, out, rcs, "route")
    if got is not None:
        r.check("route: exit code 5 (a check failed)", rcs.get("route") == 5, rc=rcs.get("route"))
        expect(r, "route", got, "rdma.device", "rxe0/1", "pass", observed=("ACTIVE", "Ethernet"))
        expect(r, "route", got, "rdma.device", "mlx5_9", "fail",
               message=("no such RDMA device", "rxe0"))
        expect(r, "route", got, "rdma.route", "cn2", "pass", observed=("via rxe0 port 1",))
        expect(r, "route", got, "rdma.route", "cn3", "fail",
               message=("192.168.77.200", "not resolved within 1000 ms"))
        expect(r, "route", got, "rdma.route", "far", "fail", message=("198.51.100.", ))
        r.check("route: no pingpong results without --pingpong",
                not any(k[0] == "rdma.pingpong" for k in got))
    bounded(r, "route", took.get("route"), 1.0 + SLACK_S)

    # 2. The RC exchange with the responder, deadline 2000 ms per phase.
    got = results(r, out, rcs, "pingpong")
    if got is not None:
        expect(r, "pingpong", got, "rdma.route", "cn2", "pass")
        expect(r, "pingpong", got, "rdma.pingpong", "cn2", "pass",
               observed=("round trip", "64-byte send/recv echo"))
        expect(r, "pingpong", got, "rdma.pingpong", "cn3", "skip")
        expect(r, "pingpong", got, "rdma.pingpong", "far", "skip")
    bounded(r, "pingpong", took.get("pingpong"), 2 * 2.0 + SLACK_S)
    r.check("responder: exit code 0", rcs.get("responder") == 0, rc=rcs.get("responder"))
    log = out.get("responder", [])
    r.check("responder: listened on 192.168.77.2 port 18515",
            any("listening on 192.168.77.2 port 18515" in l for l in log), log=log)
    r.check("responder: echoed 64 bytes to 192.168.77.1",
            any("echoed 64 bytes to 192.168.77.1" in l for l in log), log=log)

    # 3. No responder on port 18516.
    got = results(r, out, rcs, "norespond")
    if got is not None:
        expect(r, "norespond", got, "rdma.pingpong", "cn2", "fail", message=("port 18516", ))
    bounded(r, "norespond", took.get("norespond"), 2 * 2.0 + SLACK_S)

    # 5. A second exchange with a fresh responder.
    got = results(r, out, rcs, "check")
    if got is not None:
        expect(r, "check", got, "rdma.route", "cn2", "pass")
        expect(r, "check", got, "rdma.pingpong", "cn2", "pass", observed=("round trip", ))
    bounded(r, "check", took.get("check"), 2 * 2.0 + SLACK_S)

    # 4. The responder cannot bind an address the host does not have.
    r.check("badbind: exit code 4 (environment)", rcs.get("badbind") == 4, rc=rcs.get("badbind"))
    err = out.get("badbind-stderr", [])
    r.check("badbind: says it cannot listen on 192.168.77.99",
            any("cannot listen on 192.168.77.99 port 18515" in l for l in err), stderr=err)
    # 6. Devices removed under running responders: each removal within a couple of seconds
    # (the old responder held it up for its whole 60 s --timeout).
    bounded(r, "unbound", took.get("unbound"), SLACK_S)
    r.check("unbound: rdma link delete rxe0 succeeded", rcs.get("unbound") == 0,
            rc=rcs.get("unbound"))
    r.check("unbound_responder: exit code 4 (environment)", rcs.get("unbound_responder") == 4,
            rc=rcs.get("unbound_responder"))
    log = out.get("unbound_responder", [])
    r.check("unbound_responder: says its device was removed",
            any("RDMA device under 192.168.77.2 port 18515 was removed" in l for l in log),
            log=log)
    for name in ("before_removal", "after_removal"):
        got = results(r, out, rcs, name)
        if got is not None:
            expect(r, name, got, "rdma.pingpong", "cn2", "pass", observed=("round trip", ))
        bounded(r, name, took.get(name), 2 * 2.0 + SLACK_S)
    bounded(r, "removal", took.get("removal"), 1.0 + SLACK_S)
    got = results(r, out, rcs, "removal_bandwidth")
    if got is not None:
        r.check("removal_bandwidth: exit code 5 (a check failed)",
                rcs.get("removal_bandwidth") == 5, rc=rcs.get("removal_bandwidth"))
        expect(r, "removal_bandwidth", got, "rdma.bandwidth", "rxe0/1 -> cn2", "fail",
               message=("the RDMA device rxe0 was removed", ))
    r.check("removal: rdma link delete rxe0 succeeded", rcs.get("removal") == 0,
            rc=rcs.get("removal"))
    # rxe1 within a sync (1 s); rxe0, the last, after its grace of 5 syncs, so at most 7.
    bounded(r, "last_device", took.get("last_device"), 1.0 + 7.0 + 2 * SLACK_S)
    r.check("last_device: both deleted", rcs.get("last_device") == 0, rc=rcs.get("last_device"))
    r.check("wildcard_responder: exit code 4 (environment)",
            rcs.get("wildcard_responder") == 4, rc=rcs.get("wildcard_responder"))
    log = out.get("wildcard_responder", [])
    r.check("wildcard_responder: echoed before and after the removal",
            sum("echoed 64 bytes to 192.168.77.1" in l for l in log) == 2, log=log)
    r.check("wildcard_responder: says it ends for rxe0's removal",
            any("the RDMA device rxe0 is being removed and it was the last one" in l
                for l in log), log=log)
    # 6d. A responder that never served survives its only device's removal and return.
    bounded(r, "idle_removal", took.get("idle_removal"), SLACK_S)
    got = results(r, out, rcs, "idle_after")
    if got is not None:
        expect(r, "idle_after", got, "rdma.pingpong", "cn2", "pass", observed=("round trip", ))
    r.check("idle_responder: exit code 0 (--once)", rcs.get("idle_responder") == 0,
            rc=rcs.get("idle_responder"))
    return r.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
