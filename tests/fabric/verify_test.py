#!/usr/bin/env python3
"""The fabric verification (issue 16 item 5) against a real OpenSM over the ibsim fabric of
fabric.py, through libibmad from one host (cn18's HCA, the SM running on cn01's):
- with data/partitions.conf, every port of data/layout.json passes and shows exactly the
  P_Keys of data/expected_pkeys.txt (the same oracle as pkeys_test.py);
- with data/partitions_broken.conf, exactly the four broken host ports fail, each naming the
  pkey and what differs, in the text and the JSON report;
- a member whose GUID is not in the fabric and a port that does not answer P_Key table queries
  are reported unreachable while the other ports are still checked, an unresolved member is
  listed as not checked, and with no SM every port is unreachable;
- the local CA and port are the ones given, and a CA that is not there is an error naming it.
Exits 77 (skipped) when ibsim or opensm are not installed.

Usage: verify_test.py FABRIC_VERIFY"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fabric  # noqa: E402

failures = []


def check(cond, message):
    if not cond:
        failures.append(message)
    return cond




def verify(fab, driver, layout, *args):
    r = subprocess.run([driver, layout] + list(args), env=fab.env("cn18"), capture_output=True,
                       text=True, timeout=120, cwd=fab.dir, stdin=subprocess.DEVNULL)
    return r.returncode, r.stdout, r.stderr


def by_host(report):
    return {p["host"]: p for p in report["ports"]}


def matching(fab, driver, layout):
    rc, out, err = verify(fab, driver, layout, "--json")
    check(rc == 0, "matching fabric: exit %d, expected 0:\n%s%s" % (rc, out, err))
    report = json.loads(out)
    check(report["ok"] is True, "matching fabric: ok is not true")
    ports = by_host(report)
    expected = fabric.expected_tables()
    check(sorted(ports) == sorted(expected), "matching fabric: ports of %s" % sorted(ports))
    for host, pkeys in expected.items():
        p = ports.get(host, {})
        check(p.get("status") == "pass", "%s: status %s" % (host, p.get("status")))
        check(sorted(int(x, 16) for x in p.get("observed") or []) == pkeys,
              "%s: observed %s, expected_pkeys.txt says %s" % (host, p.get("observed"), pkeys))
        check(p.get("guid") == fabric.port_guid(int(host[2:])),
              "%s: guid %s" % (host, p.get("guid")))
    rc, out, _ = verify(fab, driver, layout)
    check(rc == 0 and "fabric: ok (18 ports match, 0 differ, 0 unreachable, 0 not checked)" in out,
          "matching fabric, text report:\n" + out)


# What data/partitions_broken.conf breaks, per host port: (missing, extra, membership).
BROKEN = {
    "cn03": ([], ["0x8002"], []),
    "cn05": (["0x8001"], [], []),
    "cn14": ([], [], [{"pkey": "0x0001", "expected": "limited", "observed": "full"}]),
    "cn16": ([], [], [{"pkey": "0x0003", "expected": "full", "observed": "limited"}]),
}
BROKEN_TEXT = [
    "fail    cn03  mlx5_0/1  LID 5: extra 0x8002; expected 0x8001 0x0003 0xffff, observed "
    "0x8001 0x8002 0x0003 0xffff",
    "fail    cn05  mlx5_0/1  LID 7: missing 0x8001; expected 0x8001 0x0003 0xffff, observed "
    "0x0003 0xffff",
    "fail    cn14  mlx5_0/1  LID 16: 0x0001 full member, expected limited;",
    "fail    cn16  mlx5_0/1  LID 18: 0x0003 limited member, expected full;",
    "fabric: FAILED (14 ports match, 4 differ, 0 unreachable, 0 not checked)",
]


def broken(fab, driver, layout):
    rc, out, err = verify(fab, driver, layout, "--json")
    check(rc == 1, "broken fabric: exit %d, expected 1:\n%s" % (rc, err))
    report = json.loads(out)
    check(report["ok"] is False, "broken fabric: ok is not false")
    for host, p in sorted(by_host(report).items()):
        if host not in BROKEN:
            check(p["status"] == "pass",
                  "broken fabric: %s %s, expected pass" % (host, p["status"]))
            continue
        missing, extra, membership = BROKEN[host]
        got = (p["missing"], p["extra"], p["membership"])
        check(p["status"] == "fail" and got == (missing, extra, membership),
              "broken fabric: %s: %s %s, expected fail %s" % (host, p["status"], got,
                                                             (missing, extra, membership)))
    rc, out, _ = verify(fab, driver, layout)
    for line in BROKEN_TEXT:
        check(line in out, "broken fabric, text report lacks %r:\n%s" % (line, out))


def unreachable(fab, driver, layout_path):
    with open(layout_path) as f:
        layout = json.load(f)
    # cn99 is in the Layout, not in the fabric; cn20 could not be resolved at all.
    layout["partitions"][1]["members"].append(["cn99", "mlx5_0", 1, "0x0002c90300009902", "full"])
    layout["missing"] = [["cn20", "no inventory"]]
    path = fab.path("layout-unreachable.json")
    with open(path, "w") as f:
        json.dump(layout, f)
    rc, out, _ = verify(fab, driver, path, "--json", "--timeout-ms", "200", "--retries", "1")
    check(rc == 1, "unreachable member: exit %d, expected 1" % rc)
    report = json.loads(out)
    p = by_host(report).get("cn99", {})
    check(p.get("status") == "unreachable" and "no path" in (p.get("error") or ""),
          "cn99 not in the fabric: %s" % p)
    check(report["not_checked"] == [{"host": "cn20", "what": "no inventory", "pkeys": []}],
          "not_checked: %s" % report["not_checked"])
    check(sum(q["status"] == "pass" for q in report["ports"]) == 18,
          "unreachable member: the 18 fabric ports no longer pass")
    rc, out, _ = verify(fab, driver, path)
    check("fail    cn99  mlx5_0/1  0x0002c90300009902 unreachable: the SA at LID 1 has no path"
          in out
          and "skip    cn20  -         not checked: no inventory" in out
          and "(18 ports match, 0 differ, 1 unreachable, 1 not checked)" in out,
          "unreachable member, text report:\n" + out)


def silent_port(fab, driver, layout):
    # ibsim drops every P_Key table SMP (attribute 0x16) to cn05's port: the verification
    # reports that port and still checks the others.
    fab.console('Error "cn05 mlx5_0"[1] 100 22')
    rc, out, _ = verify(fab, driver, layout, "--json", "--timeout-ms", "200", "--retries", "1")
    report = json.loads(out)
    p = by_host(report).get("cn05", {})
    check(rc == 1 and p.get("status") == "unreachable" and
          (p.get("error") or "").startswith("P_Key table block 0 of LID "),
          "cn05 not answering: exit %d, %s" % (rc, p))
    check(sum(q["status"] == "pass" for q in report["ports"]) == 17,
          "cn05 not answering: the other 17 ports no longer pass")
    fab.console('Error "cn05 mlx5_0"[1] 0')


def local_port(fab, driver, layout):
    # The queries leave from the CA and port given, and a CA that is not there is an error
    # that names it, not a report.
    rc, out, err = verify(fab, driver, layout, "--ca", "ibsim0", "--port", "1")
    check(rc == 0 and "fabric: ok (18 ports match" in out,
          "--ca ibsim0 --port 1: exit %d %s" % (rc, err))
    rc, out, err = verify(fab, driver, layout, "--ca", "mlx5_9")
    check(rc == 2 and out == "" and
          "fabric_verify: error: cannot open mlx5_9 (first active port) for MADs" in err,
          "--ca mlx5_9: exit %d, stdout %r, stderr %r" % (rc, out, err))


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1])
        return 2
    fabric.require_tools()
    driver = sys.argv[1]
    layout = os.path.join(fabric.DATA, "layout.json")
    # A fresh fabric per partitions.conf: nothing programmed by the other run stays behind.
    with fabric.Fabric() as fab:
        log = fab.start_sm(fabric.read_data("partitions.conf"))
        check(not fabric.partition_problems(log), "OpenSM: %s" % fabric.partition_problems(log))
        matching(fab, driver, layout)
        local_port(fab, driver, layout)
        unreachable(fab, driver, layout)
        silent_port(fab, driver, layout)
        fab.stop()
        rc, out, _ = verify(fab, driver, layout, "--json", "--timeout-ms", "200", "--retries", "1")
        report = json.loads(out) if out else {"ports": []}
        check(rc == 1 and len(report["ports"]) == 18 and
              all(p["status"] == "unreachable" for p in report["ports"]),
              "no SM: exit %d, %s" % (rc, [(p["host"], p["status"]) for p in report["ports"]]))
    with fabric.Fabric() as fab:
        log = fab.start_sm(fabric.read_data("partitions_broken.conf"))
        check(not fabric.partition_problems(log), "OpenSM: %s" % fabric.partition_problems(log))
        broken(fab, driver, layout)
    for f in failures:
        print("FAIL: " + f)
    if failures:
        return 1
    print("ok: verification passes on the matching fabric and names the broken ports")
    return 0


if __name__ == "__main__":
    sys.exit(main())
