#!/usr/bin/env python3
"""Judges rdma.bandwidth and rdma.latency as guest_perf.sh ran them in a QEMU guest (Soft-RoCE).

Usage: check_perf_console.py CONSOLE_LOG

Loopback and to the guest's second address (cn2, `ibsetup responder`): a threshold under what
the link does passes, one above fails, and the JSON carries the measured numbers (value > 0,
unit Gb/s or us). Dead peers fail within their deadline (timed in the guest from /proc/uptime),
and the responder refuses more connections than --max-sessions and keeps serving. The bench
sections (perftest) are bench/rdma.sh's, not judged here. Prints one line per assertion and
ends with `qemu: N passed, M failed`; exit code 0 when all hold.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from console import SLACK_S, Report, bounded, guest_console, results, times  # noqa: E402

LOOP = "rxe0/1 -> rxe0/1"
PEER = "rxe0/1 -> cn2"


def measured(r, name, got, check_id, subject, status, unit, *, message=()):
    c = got.get((check_id, subject))
    if c is None:
        r.check(f"{name}: {check_id} {subject} present", False, have=sorted(map(list, got)))
        return
    value = c.get("value")
    ok = (c["status"] == status and isinstance(value, (int, float)) and value > 0
          and c.get("unit") == unit and all(m in c["message"] for m in message))
    if check_id == "rdma.latency":
        ok = ok and re.fullmatch(r"median [0-9.]+ us, p99 [0-9.]+ us", c["observed"]) is not None
    r.check(f"{name}: {check_id} {subject} is {status} with a value in {unit}", ok,
            status=c["status"], value=value, unit=c.get("unit"), message=c["message"],
            expected=c["expected"])


def failed(r, name, got, check_id, subject, *, message=()):
    c = got.get((check_id, subject))
    ok = (c is not None and c["status"] == "fail" and "value" not in c
          and all(m in c["message"] for m in message))
    r.check(f"{name}: {check_id} {subject} fails unmeasured", ok,
            result=c and {k: c[k] for k in ("status", "message")})


def main(argv):
    lines, out, rcs = guest_console(argv, __doc__)
    took = times(lines)
    r = Report()

    for name, subject in (("loop", LOOP), ("peer", PEER)):
        got = results(r, out, rcs, f"{name}_low")
        if got is not None:
            r.check(f"{name}_low: exit code 0", rcs.get(f"{name}_low") == 0, rc=rcs.get(f"{name}_low"))
            measured(r, f"{name}_low", got, "rdma.bandwidth", subject, "pass", "Gb/s",
                     message=("Gb/s, expected at least 0.001", ))
            measured(r, f"{name}_low", got, "rdma.latency", subject, "pass", "us")
        got = results(r, out, rcs, f"{name}_high")
        if got is not None:
            r.check(f"{name}_high: exit code 5", rcs.get(f"{name}_high") == 5,
                    rc=rcs.get(f"{name}_high"))
            measured(r, f"{name}_high", got, "rdma.bandwidth", subject, "fail", "Gb/s",
                     message=("expected at least 10000", ))
            measured(r, f"{name}_high", got, "rdma.latency", subject, "fail", "us",
                     message=("expected median at most 0.001 us", ))

    # 1,000,000 round trips in --timeout 4: the latency result fails, with the report, in time.
    got = results(r, out, rcs, "lat_budget")
    if got is not None:
        r.check("lat_budget: exit code 5", rcs.get("lat_budget") == 5, rc=rcs.get("lat_budget"))
        failed(r, "lat_budget", got, "rdma.latency", LOOP,
               message=("not finished within", "of 1000000 round trips"))
    bounded(r, "lat_budget", took.get("lat_budget"), 4 + SLACK_S)

    log = out.get("responder", [])
    r.check("responder: exit code 0 after its 4 sessions", rcs.get("responder") == 0,
            rc=rcs.get("responder"))
    for what in ("accepted a bandwidth session from 192.168.77.1 (65536-byte messages)",
                 "served a bandwidth session to 192.168.77.1",
                 "echoed 200 latency messages to 192.168.77.1"):
        r.check(f"responder: logged '{what}'", any(what in l for l in log), log=log)

    # Dead peers: cn2 has no responder any more (rejected at once), cn3 answers no ARP (each
    # measurement fails on its 1000 ms deadline): 2 x 1 s for cn3, plus slack.
    got = results(r, out, rcs, "dead")
    if got is not None:
        r.check("dead: exit code 5", rcs.get("dead") == 5, rc=rcs.get("dead"))
        for check_id in ("rdma.bandwidth", "rdma.latency"):
            failed(r, "dead", got, check_id, PEER, message=("nothing listens", ))
            failed(r, "dead", got, check_id, "rxe0/1 -> cn3", message=("address resolution", ))
    bounded(r, "dead", took.get("dead"), 2 * 1.0 + SLACK_S)

    got = results(r, out, rcs, "qps")
    if got is not None:
        failed(r, "qps", got, "rdma.bandwidth", PEER, message=("busy: 1 sessions at once", ))
    got = results(r, out, rcs, "after_qps")
    if got is not None:
        measured(r, "after_qps", got, "rdma.bandwidth", PEER, "pass", "Gb/s")
    log = out.get("responder2", [])
    r.check("responder2: refused the second connection",
            any("refused 192.168.77.1: busy" in l for l in log), log=log)

    # Reused connection ids: every round accepted, the responder alive after them (ended by
    # this script's SIGTERM, 143, not SIGSEGV's 139), and a real measurement still passes.
    for kind in ("latency", "bandwidth"):
        name = f"reuse_{kind}"
        r.check(f"{name}: every round accepted (exit code 0)", rcs.get(name) == 0,
                rc=rcs.get(name), out=out.get(name, []))
    got = results(r, out, rcs, "after_reuse")
    if got is not None:
        measured(r, "after_reuse", got, "rdma.bandwidth", PEER, "pass", "Gb/s")
    r.check("responder3: alive after the reuse rounds", rcs.get("responder3") == 143,
            rc=rcs.get("responder3"), log=out.get("responder3", []))
    # 50 pings on one connection: the first echo's line and one for the 49 others. The reuse
    # rounds' 40 ping-pong sessions have at most a line each (most disconnect before their
    # echo completes); one line an echo made 51 here.
    r.check("ping_again: every echo came back (exit code 0)", rcs.get("ping_again") == 0,
            rc=rcs.get("ping_again"), out=out.get("ping_again", []))
    log = out.get("responder3", [])
    r.check("responder3: one line for the 49 echoes after the first",
            any("echoed 49 more messages to 192.168.77.1" in l for l in log), log=log)
    echo_lines = sum("echoed 64 bytes to" in l for l in log)
    r.check("responder3: at most one line an echoing session", echo_lines <= 41,
            lines=echo_lines)
    r.check("big_timeout: --timeout 2147484 still listening after 3 s",
            rcs.get("big_timeout") == 143, rc=rcs.get("big_timeout"),
            out=out.get("big_timeout", []))

    # 4d. The responder ends each session after 1 s (--max-session-time 1): the client fails
    # naming the disconnect within a second or two, not after its 20 s of writes or its
    # round trips' deadlines.
    for name, check_id in (("cut_bandwidth", "rdma.bandwidth"), ("cut_latency", "rdma.latency")):
        got = results(r, out, rcs, name)
        if got is not None:
            failed(r, name, got, check_id, PEER, message=("the peer disconnected", ))
        bounded(r, name, took.get(name), 1.0 + 2 * SLACK_S)
    log = out.get("responder4", [])
    r.check("responder4: dropped both sessions at their cap",
            sum("session longer than 1 s" in l for l in log) == 2, log=log)
    return r.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
