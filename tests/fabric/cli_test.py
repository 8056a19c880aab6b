#!/usr/bin/env python3
"""`ibsetup partitions` end to end on the ibsim fabric of fabric.py (issue 16 item 7):
- the file it generates from data/cluster.yaml, with the fabric's own topology file as the
  inventory source, is loaded by a real OpenSM without a partition error, and `smpquery pkeys`
  then shows on every host port exactly the pkeys of data/expected_pkeys.txt (the oracle
  written by hand for data/partitions.conf);
- `ibsetup partitions --verify` run on a host of that fabric passes (exit 0), and against
  data/partitions_broken.conf fails (exit 5, check failed), naming the broken host ports and
  pkeys in the text and in --json; --ca/--ca-port without --verify and --verify with --output
  are usage errors, an HCA that is not there an environment error (exit 4);
- with `default: {membership: limited}` the file says `ALL=limited, SELF=full`, OpenSM gives
  the port it runs on (cn01's) 0xffff and every other port 0x7fff, and --verify agrees.
Exits 77 (skipped) when ibsim or opensm are not installed.

Usage: cli_test.py IBSETUP"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fabric  # noqa: E402

PROFILE = os.path.join(fabric.DATA, "cluster.yaml")
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures = []


def check(cond, message):
    if not cond:
        failures.append(message)
    return cond




def schema_errors(text, schema="partitions-verify"):
    """What tests/schema/validate_json.py says of text against docs/schema/SCHEMA.schema.json:
    "" when it conforms (or when python3 jsonschema is missing: schema_test.sh skips then)."""
    try:
        from jsonschema import Draft7Validator  # noqa: F401
    except ImportError:
        return ""
    r = subprocess.run([sys.executable, os.path.join(SOURCE, "tests/schema/validate_json.py"),
                        os.path.join(SOURCE, "docs/schema/%s.schema.json" % schema), "-"],
                       input=text, capture_output=True, text=True, timeout=60)
    return r.stdout + r.stderr


def ibsetup(fab, binary, *args, profile=PROFILE):
    r = subprocess.run([binary, "partitions", profile, "--inventories", fab.path("net")] +
                       list(args), env=fab.env("cn18"), capture_output=True, text=True,
                       timeout=120, cwd=fab.dir, stdin=subprocess.DEVNULL)
    return r.returncode, r.stdout, r.stderr


def limited_default(fab, binary):
    # Default as limited: SELF=full makes the subnet manager's own port (OpenSM runs on cn01's
    # HCA) a full member, which --verify must expect there and only there.
    profile = fab.path("limited.yaml")
    with open(PROFILE) as f:
        text = f.read()
    with open(profile, "w") as f:
        f.write(text.replace("partitions:\n", "partitions:\n  default: {membership: limited}\n", 1))
    rc, conf, err = ibsetup(fab, binary, profile=profile)
    check(rc == 0 and "\nDefault=0x7fff, ipoib, mtu=5 : ALL=limited, SELF=full ;\n" in conf,
          "limited Default: exit %d %s\n%s" % (rc, err, conf))
    log = fab.start_sm(conf)
    check(not fabric.partition_problems(log), "OpenSM: %s" % fabric.partition_problems(log))
    dump = fab.dump_pkeys()
    defaults = {host: [p for p in table if p & 0x7fff == 0x7fff]
                for host, (_, _, table) in dump.items()}
    check(len(defaults) == 18 and
          all(d == ([0xffff] if host == "cn01" else [0x7fff]) for host, d in defaults.items()),
          "limited Default, smpquery: %s" % defaults)
    rc, out, err = ibsetup(fab, binary, "--verify", profile=profile)
    check(rc == 0 and "fabric: ok (18 ports match, 0 differ, 0 unreachable, 0 not checked)"
          in out and "pass    cn01  mlx5_0/1  LID 1: " in out and " 0xffff\n" in out,
          "--verify, limited Default: exit %d\n%s%s" % (rc, out, err))


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1])
        return 2
    fabric.require_tools()
    binary = sys.argv[1]
    with fabric.Fabric() as fab:
        rc, conf, err = ibsetup(fab, binary)
        check(rc == 0, "partitions: exit %d: %s" % (rc, err))
        log = fab.sweep(conf)
        check("SUBNET UP" in log, "OpenSM did not bring the subnet up with the generated file")
        problems = fabric.partition_problems(log)
        check(not problems, "OpenSM on the generated file:\n  " + "\n  ".join(problems))
        expected = fabric.expected_tables()
        dump = fab.dump_pkeys()
        check(sorted(dump) == sorted(expected), "hosts %s" % sorted(dump))
        for host, (lid, _, table) in dump.items():
            check(sorted(table) == expected.get(host),
                  "generated file: %s (LID %d): pkeys %s, expected %s" % (
                      host, lid, " ".join("0x%04x" % p for p in sorted(table)),
                      " ".join("0x%04x" % p for p in expected.get(host, []))))

        fab.start_sm(conf)
        rc, out, err = ibsetup(fab, binary, "--verify")
        check(rc == 0 and "fabric: ok (18 ports match, 0 differ, 0 unreachable, 0 not checked)"
              in out, "--verify on the generated file's fabric: exit %d\n%s%s" % (rc, out, err))
        rc, out, err = ibsetup(fab, binary, "--verify", "--ca", "ibsim0", "--ca-port", "1", "-q")
        check(rc == 0 and out == "", "--verify -q on a matching fabric: exit %d, %r" % (rc, out))
        rc, out, err = ibsetup(fab, binary, "--verify", "--json")
        check(rc == 0 and schema_errors(out) == "",
              "--verify --json on a matching fabric: exit %d, %s" % (rc, schema_errors(out)))
        rc, out, err = ibsetup(fab, binary, "--json")
        check(rc == 0 and schema_errors(out, "partitions") == "",
              "partitions --json: exit %d, %s" % (rc, schema_errors(out, "partitions")))
        rc, out, err = ibsetup(fab, binary, "--ca", "ibsim0")
        check(rc == 2 and "--ca and --ca-port go with --verify" in err,
              "--ca without --verify: exit %d %s" % (rc, err))
        rc, out, err = ibsetup(fab, binary, "--verify", "--output", fab.path("p.conf"))
        check(rc == 2 and "writes no file" in err and not os.path.exists(fab.path("p.conf")),
              "--verify --output: exit %d %s" % (rc, err))
        rc, out, err = ibsetup(fab, binary, "--verify", "--ca", "mlx5_9")
        check(rc == 4 and "cannot open mlx5_9" in err and out == "",
              "--verify --ca mlx5_9: exit %d, expected 4: %s" % (rc, err))

    with fabric.Fabric() as fab:
        fab.start_sm(fabric.read_data("partitions_broken.conf"))
        rc, out, err = ibsetup(fab, binary, "--verify")
        for host, what in (("cn03", "extra 0x8002"), ("cn05", "missing 0x8001"),
                           ("cn14", "0x0001 full member, expected limited"),
                           ("cn16", "0x0003 limited member, expected full")):
            check(any(line.startswith("fail    %s " % host) and what in line
                      for line in out.splitlines()),
                  "--verify, broken file: no failing row for %s with %r:\n%s" % (host, what, out))
        check(rc == 5 and "fabric: FAILED (14 ports match, 4 differ" in out,
              "--verify, broken file: exit %d, expected 5:\n%s%s" % (rc, out, err))
        rc, out, err = ibsetup(fab, binary, "--verify", "--json")
        report = json.loads(out) if rc in (0, 5) else {"ports": []}
        failed = sorted(p["host"] for p in report["ports"] if p["status"] != "pass")
        check(rc == 5 and report.get("ok") is False and failed == ["cn03", "cn05", "cn14", "cn16"],
              "--verify --json, broken file: exit %d, failing %s" % (rc, failed))
        check(schema_errors(out) == "", "--verify --json, broken file: %s" % schema_errors(out))
        # The schema is strict: a status outside its vocabulary is rejected (when there is a
        # validator: schema_errors says "" without one).
        if report["ports"] and schema_errors("{}"):
            strict = json.dumps(dict(report, ports=[dict(report["ports"][0], status="skip")]))
            check("$.ports[0].status" in schema_errors(strict),
                  "--verify --json: the schema accepted status skip: %r" % schema_errors(strict))

    with fabric.Fabric() as fab:
        limited_default(fab, binary)
    for f in failures:
        print("FAIL: " + f)
    if failures:
        return 1
    print("ok: the generated partitions.conf programs the expected P_Keys; --verify agrees")
    return 0


if __name__ == "__main__":
    sys.exit(main())
