#!/usr/bin/env python3
"""Oracle test: for every sysfs fixture, `ibsetup inspect --json --sysfs-root FIXTURE` must agree
field by field with the real ibstat and ibstatus (infiniband-diags) reading the same tree,
mounted over /sys in a private mount namespace. Where a peer prints a malformed value, ibsetup
must report null and a warning naming the file. Needs root (mount namespace); exits 77 (skip)
otherwise.

Usage: oracle_ibstat.py IBSETUP FIXTURES_DIR"""
import json
import os
import re
import subprocess
import sys
import tempfile

STATE_NAMES = {"Down": "DOWN", "Initializing": "INIT", "Armed": "ARMED", "Active": "ACTIVE"}
PHYS_CODES = {"Sleep": 1, "Polling": 2, "Disabled": 3, "PortConfigurationTraining": 4,
              "LinkUp": 5, "LinkErrorRecovery": 6, "Phy Test": 7, "PhyTest": 7}


def in_namespace(fixture, command):
    script = ('mount -t tmpfs ibsetup-oracle /sys && cp -a "$0"/. /sys/ && exec "$@"')
    return subprocess.run(["unshare", "-m", "sh", "-c", script, fixture] + command,
                          capture_output=True, text=True, timeout=60)


def parse_ibstat(text):
    cas = {}
    ca = port = None
    for line in text.splitlines():
        m = re.match(r"^CA '(.+)'$", line)
        if m:
            ca = cas.setdefault(m.group(1), {"ports": {}})
            port = None
            continue
        m = re.match(r"^\tPort (\d+):$", line)
        if m and ca is not None:
            port = ca["ports"].setdefault(int(m.group(1)), {})
            continue
        m = re.match(r"^\t+([^:]+): ?(.*)$", line)
        if m and ca is not None:
            (port if port is not None and line.startswith("\t\t") else ca)[m.group(1)] = m.group(2)
    return cas


def parse_ibstatus(text):
    ports = {}
    cur = None
    for line in text.splitlines():
        m = re.match(r"^Infiniband device '(.+)' port (\d+) status:$", line)
        if m:
            cur = ports.setdefault((m.group(1), int(m.group(2))), {})
            continue
        m = re.match(r"^\t([^:]+):\s*(.*)$", line)
        if m and cur is not None:
            cur[m.group(1)] = m.group(2).strip()
    return ports


class Checker:
    def __init__(self, fixture, inv):
        self.fixture = fixture
        self.inv = inv
        self.failures = []
        self.compared = 0

    def fail(self, msg):
        self.failures.append("%s: %s" % (os.path.basename(self.fixture), msg))

    def same(self, what, ours, theirs, rel=None):
        self.compared += 1
        if ours == theirs:
            return
        # A malformed sysfs value: peers print whatever they make of it; ibsetup must give
        # null and a warning naming the file.
        if ours is None and rel is not None and any(rel in w for w in self.inv["warnings"]):
            return
        self.fail("%s: ibsetup %r, peer %r" % (what, ours, theirs))

    def warned(self, what, rel):
        self.compared += 1
        if not any(rel in w for w in self.inv["warnings"]):
            self.fail("%s: malformed in sysfs but ibsetup gave no warning naming %s" % (what, rel))

    def device(self, name):
        for d in self.inv["devices"]:
            if d["name"] == name:
                return d
        self.fail("device %s: ibstat shows it, ibsetup does not" % name)
        return None

    def port(self, dev, n):
        for p in dev["ports"]:
            if p["port"] == n:
                return p
        self.fail("%s port %d missing in ibsetup" % (dev["name"], n))
        return None

    def check_ibstat(self, cas):
        for name, ca in cas.items():
            dev = self.device(name)
            if dev is None:
                continue
            what = "ibstat %s" % name
            self.same(what + " CA type", dev["hca_type"] or "", ca.get("CA type", ""))
            self.same(what + " firmware", dev["fw_ver"] or "", ca.get("Firmware version", ""))
            self.same(what + " node GUID", dev["node_guid"], ca.get("Node GUID"))
            self.same(what + " system image GUID", dev["sys_image_guid"],
                      ca.get("System image GUID"))
            self.same(what + " number of ports", len(dev["ports"]), int(ca["Number of ports"]))
            for n, p in ca["ports"].items():
                ours = self.port(dev, n)
                if ours is None:
                    continue
                w = "%s port %d" % (what, n)
                self.same(w + " state", ours["state"], STATE_NAMES.get(p["State"], p["State"]))
                self.same(w + " physical state", PHYS_CODES.get(ours["phys_state"]),
                          PHYS_CODES.get(p["Physical state"]))
                rel = "class/infiniband/%s/ports/%d/" % (name, n)
                rate = ours["rate_gbps"]
                self.same(w + " rate", None if rate is None else ("%g" % rate), p["Rate"],
                          rel + "rate")
                self.same(w + " base lid", ours["lid"], int(p["Base lid"]), rel + "lid")
                self.same(w + " LMC", ours["lmc"], int(p["LMC"]), rel + "lid_mask_count")
                self.same(w + " SM lid", ours["sm_lid"], int(p["SM lid"]), rel + "sm_lid")
                self.same(w + " capability mask", ours["cap_mask"], p["Capability mask"],
                          rel + "cap_mask")
                self.same(w + " port GUID", ours["port_guid"], p["Port GUID"])
                self.same(w + " link layer", ours["link_layer"], p["Link layer"])

    def check_ibstatus(self, ports):
        for (name, n), st in ports.items():
            dev = self.device(name)
            if dev is None:
                continue
            ours = self.port(dev, n)
            if ours is None:
                continue
            w = "ibstatus %s port %d" % (name, n)
            rel = "class/infiniband/%s/ports/%d/" % (name, n)
            gid = st.get("default gid", "unknown")
            if gid == "unknown":
                self.same(w + " port GUID", ours["port_guid"], None)
            else:
                self.same(w + " port GUID", ours["port_guid"], "0x" + gid.replace(":", "")[16:])
            for field, key, conv in (("base lid", "lid", lambda v: int(v, 16)),
                                     ("sm lid", "sm_lid", lambda v: int(v, 16))):
                v = st.get(field, "unknown")
                if v == "unknown":
                    self.same(w + " " + field, ours[key], None)
                elif not re.match(r"^0x[0-9a-fA-F]+$", v):
                    self.same(w + " " + field + " (malformed)", ours[key], None)
                    self.warned(w + " " + field, rel + key)
                else:
                    self.same(w + " " + field, ours[key], conv(v))
            for field, key in (("state", "state"), ("phys state", "phys_state")):
                v = st.get(field, "unknown")
                if v == "unknown":
                    self.same(w + " " + field, ours[key], None)
                    continue
                code = int(v.split(":")[0])
                if key == "state":
                    names = ["NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"]
                    self.same(w + " state", ours["state"], names[code])
                else:
                    self.same(w + " phys state", PHYS_CODES.get(ours["phys_state"]), code)
            rate = st.get("rate", "unknown")
            m = re.match(r"^([\d.]+) Gb/sec \((\d+X)(?: (\w+))?\)$", rate)
            if rate == "unknown":
                self.same(w + " rate", ours["rate_gbps"], None)
            elif m:
                self.same(w + " rate", ours["rate_gbps"], float(m.group(1)))
                self.same(w + " width", ours["width"], m.group(2))
                self.same(w + " speed", ours["speed"], m.group(3))
            else:
                self.same(w + " rate (malformed)", ours["rate_gbps"], None)
                self.warned(w + " rate", rel + "rate")
            ll = st.get("link_layer")
            # ibstatus prints "IB" when link_layer is missing; ibsetup reports null.
            self.same(w + " link layer", ours["link_layer"], None if ll == "IB" and
                      not os.path.exists(os.path.join(self.fixture, rel, "link_layer")) else ll)


def many_hcas(ibsetup, fixtures):
    """40 dual-port HCAs (80 P_Key tables): read on several threads, each reader recycling its
    directory descriptors, as a captured tree and as the live /sys; the same devices both ways,
    every P_Key table complete, and ibstat agreeing."""
    name = "generated-40-hcas"
    with tempfile.TemporaryDirectory() as tmp:
        tree = os.path.join(tmp, name)
        subprocess.run([sys.executable, os.path.join(fixtures, "make_fixtures.py"), "--bench",
                        tree, "40"], check=True)
        out = subprocess.run([ibsetup, "inspect", "--json", "--sysfs-root", tree],
                             capture_output=True, text=True, timeout=60)
        if out.returncode != 0:
            return ["%s: ibsetup inspect exited %d: %s" % (name, out.returncode, out.stderr)]
        inv = json.loads(out.stdout)
        c = Checker(tree, inv)
        names = [d["name"] for d in inv["devices"]]
        if names != sorted("mlx5_%d" % i for i in range(40)):
            c.fail("devices %s" % names)
        for d in inv["devices"]:
            for p in d["ports"]:
                if p["pkeys"] != ["0xffff"] or p["netdev"] is None:
                    c.fail("%s/%d: pkeys %s netdev %s" % (d["name"], p["port"], p["pkeys"],
                                                          p["netdev"]))
        live = in_namespace(tree, [ibsetup, "inspect", "--json"])
        if live.returncode != 0 or json.loads(live.stdout)["devices"] != inv["devices"]:
            c.fail("the live /sys gives other devices than --sysfs-root: %s" % live.stderr)
        c.check_ibstat(parse_ibstat(in_namespace(tree, ["ibstat"]).stdout))
        print("oracle %-28s %3d fields compared, %d disagreements" % (name, c.compared,
                                                                     len(c.failures)))
        return c.failures + ([] if c.compared > 0 else ["%s: no field compared" % name])


def main():
    if os.geteuid() != 0:
        print("oracle: skipped: needs root for a private mount namespace")
        return 77
    ibsetup, fixtures = sys.argv[1], sys.argv[2]
    failures = []
    total = 0
    names = sorted(d for d in os.listdir(fixtures) if os.path.isdir(os.path.join(fixtures, d)))
    for name in names:
        fixture = os.path.join(fixtures, name)
        out = subprocess.run([ibsetup, "inspect", "--json", "--sysfs-root", fixture],
                             capture_output=True, text=True, timeout=60)
        if out.returncode != 0:
            failures.append("%s: ibsetup inspect exited %d: %s" % (name, out.returncode, out.stderr))
            continue
        inv = json.loads(out.stdout)
        c = Checker(fixture, inv)
        ibstat = in_namespace(fixture, ["ibstat"])
        cas = parse_ibstat(ibstat.stdout)
        c.check_ibstat(cas)
        ibstatus = in_namespace(fixture, ["ibstatus"])
        c.check_ibstatus(parse_ibstatus(ibstatus.stdout))
        if c.compared == 0:
            c.fail("no field compared: ibstat rc=%d %s / ibstatus rc=%d %s" % (
                ibstat.returncode, ibstat.stderr.strip(), ibstatus.returncode,
                ibstatus.stderr.strip()))
        print("oracle %-28s %3d fields compared, ibstat %s, ibstatus %s, %d disagreements" % (
            name, c.compared, "ok" if ibstat.returncode == 0 else "failed (%d)" % ibstat.returncode,
            "ok" if ibstatus.returncode == 0 else "failed (%d)" % ibstatus.returncode,
            len(c.failures)))
        failures += c.failures
        total += 1
    failures += many_hcas(ibsetup, fixtures)
    total += 1
    for f in failures:
        print("FAIL " + f)
    print("oracle: %d passed, %d failed" % (total - len({f.split(':')[0] for f in failures}),
                                            len({f.split(':')[0] for f in failures})))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
