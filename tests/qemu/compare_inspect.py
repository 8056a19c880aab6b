#!/usr/bin/env python3
"""Compares `ibsetup inspect --json` with ibv_devinfo -v and ibstat, as printed by a QEMU guest.

Usage: compare_inspect.py CONSOLE_LOG [DEVICE]

CONSOLE_LOG is the guest's serial console as captured by run_inspect_test.sh; the guest script
(guest_inspect.sh) printed each tool's output between ===BEGIN NAME=== and ===END NAME===, its
exit code as ===RC NAME=N===. DEVICE defaults to rxe0.

Prints one line per field comparison and ends with `qemu: N passed, M failed`. Exit code 0 when
every comparison agrees, 1 otherwise (also when the guest never printed its markers).
"""

import json
import re
import sys

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1bc")


def console_lines(path):
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    return [ANSI.sub("", line).rstrip("\r") for line in text.split("\n")]


def sections(lines):
    """Returns ({name: [lines]}, {name: rc}) for the guest script's sections."""
    out, rcs = {}, {}
    current = None
    for line in lines:
        m = re.fullmatch(r"===BEGIN (\S+)===", line.strip())
        if m and current is None:
            current, out[m.group(1)] = m.group(1), []
            continue
        if current is not None and line.strip() == f"===END {current}===":
            current = None
            continue
        m = re.fullmatch(r"===RC (\S+)=(\d+)===", line.strip())
        if m and current is None:
            rcs[m.group(1)] = int(m.group(2))
            continue
        if current is not None:
            out[current].append(line)
    return out, rcs


def parse_ibv_devinfo(lines):
    """{hca: {"attrs": {...}, "ports": {n: {...}}}} from `ibv_devinfo -v`."""
    devices, dev, port = {}, None, None
    for line in lines:
        m = re.match(r"^hca_id:\s*(\S+)", line)
        if m:
            dev = devices.setdefault(m.group(1), {"attrs": {}, "ports": {}})
            port = None
            continue
        if dev is None:
            continue
        m = re.match(r"^\s*port:\s*(\d+)\s*$", line)
        if m:
            port = dev["ports"].setdefault(int(m.group(1)), {"gids": []})
            continue
        m = re.match(r"^\s*GID\[\s*(\d+)\]:\s*(\S+?),?(\s.*)?$", line)
        if m and port is not None:
            port["gids"].append(m.group(2))
            continue
        m = re.match(r"^\s*([A-Za-z_][A-Za-z0-9_]*):\s*(.*?)\s*$", line)
        if m:
            target = port if port is not None else dev["attrs"]
            target.setdefault(m.group(1), m.group(2))
    return devices


def parse_ibstat(lines):
    """{ca: {"attrs": {...}, "ports": {n: {...}}}} from `ibstat`."""
    devices, dev, port = {}, None, None
    for line in lines:
        m = re.match(r"^CA '([^']+)'", line)
        if m:
            dev = devices.setdefault(m.group(1), {"attrs": {}, "ports": {}})
            port = None
            continue
        if dev is None:
            continue
        m = re.match(r"^\s*Port (\d+):\s*$", line)
        if m:
            port = dev["ports"].setdefault(int(m.group(1)), {})
            continue
        m = re.match(r"^\s*([^:]+):\s?(.*?)\s*$", line)
        if m:
            target = port if port is not None else dev["attrs"]
            target.setdefault(m.group(1).strip(), m.group(2))
    return devices


def guid(value):
    """A GUID in any of the three tools' spellings as 16 lower-case hex digits, or None."""
    if value is None:
        return None
    v = value.strip().lower()
    if v.startswith("0x"):
        v = v[2:]
    v = v.replace(":", "")
    return v.zfill(16) if re.fullmatch(r"[0-9a-f]{1,16}", v) else None


def interface_id(gid):
    """The port GUID in a GID's low 64 bits (fe80::1cdf:ccff:fe50:c9a7 -> 1cdfccfffe50c9a7)."""
    import ipaddress

    try:
        return format(int(ipaddress.IPv6Address(gid)) & ((1 << 64) - 1), "016x")
    except ValueError:
        return None


def code_name(value):
    """'PORT_ACTIVE (4)' -> 'PORT_ACTIVE'; '1024 (3)' -> '1024'."""
    return None if value is None else re.sub(r"\s*\(\d+\)\s*$", "", value.strip())


def number(value, base=10):
    if value is None:
        return None
    try:
        return int(value.strip(), 0 if base == 0 else base)
    except ValueError:
        try:
            return float(value.strip())
        except ValueError:
            return None


IBSTAT_STATES = {"Down": "DOWN", "Initializing": "INIT", "Armed": "ARMED", "Active": "ACTIVE"}
# ibv_devinfo prints active_width/active_speed as "TEXT (code)"; the codes are the verbs
# enums ibv_port_attr.active_width / active_speed.
IBV_WIDTHS = {1: "1X", 2: "4X", 4: "8X", 8: "12X", 16: "2X"}
IBV_SPEEDS = {1: "SDR", 2: "DDR", 4: "QDR", 8: "FDR10", 16: "FDR", 32: "EDR", 64: "HDR",
              128: "NDR", 256: "XDR"}
LANE_GBPS = {"SDR": 2.5, "DDR": 5, "QDR": 10, "FDR10": 10, "FDR": 14, "EDR": 25, "HDR": 50,
             "NDR": 100, "XDR": 200}


def paren_code(value):
    m = re.search(r"\((\d+)\)\s*$", value or "")
    return int(m.group(1)) if m else None


def phys(value):
    return None if value is None else code_name(value).replace("_", "").lower()


class Report:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, field, ok, **values):
        shown = "  ".join(f"{k}={json.dumps(v)}" for k, v in values.items())
        print(f"{'ok  ' if ok else 'FAIL'} {field}: {shown}")
        if ok:
            self.passed += 1
        else:
            self.failed += 1

    def info(self, text):
        print(f"info {text}")

    def finish(self):
        print(f"qemu: {self.passed} passed, {self.failed} failed")
        return 0 if self.failed == 0 and self.passed > 0 else 1


def no_markers(lines, why):
    print(f"qemu: {why}", file=sys.stderr)
    print("qemu: last 40 console lines:", file=sys.stderr)
    for line in [l for l in lines if l.strip()][-40:]:
        print(f"  | {line}", file=sys.stderr)
    print("qemu: 0 passed, 1 failed")
    return 1


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    lines = console_lines(argv[1])
    device = argv[2] if len(argv) == 3 else "rxe0"
    if not any(l.strip() == "===GUEST BEGIN test.sh===" for l in lines):
        return no_markers(lines, "the guest never printed its markers (no ===GUEST BEGIN test.sh===)")
    if not any(l.strip().startswith("===GUEST END test.sh") for l in lines):
        return no_markers(lines, "the guest script never finished (no ===GUEST END test.sh===)")
    out, rcs = sections(lines)
    missing = [n for n in ("ibsetup", "ibv_devinfo", "ibstat") if n not in out]
    if missing:
        return no_markers(lines, f"the guest printed no section for {', '.join(missing)}")
    for name in ("ibsetup", "ibv_devinfo", "ibstat"):
        if f"{name}-stderr" in out:
            for line in out[f"{name}-stderr"]:
                print(f"info {name} stderr: {line}")

    r = Report()
    for name in ("ibsetup", "ibv_devinfo", "ibstat"):
        r.check(f"{name} exit code", rcs.get(name) == 0, rc=rcs.get(name))
    try:
        host = json.loads("\n".join(out["ibsetup"]))
    except ValueError as e:
        r.check("ibsetup output is JSON", False, error=str(e))
        for line in out["ibsetup"][:20]:
            print(f"  | {line}")
        return r.finish()
    verbs = parse_ibv_devinfo(out["ibv_devinfo"])
    diag = parse_ibstat(out["ibstat"])

    names = sorted(d.get("name") for d in host.get("devices", []))
    r.check("device list", names == sorted(verbs) == sorted(diag) and device in names,
            ibsetup=names, ibv_devinfo=sorted(verbs), ibstat=sorted(diag))
    r.check("warnings", host.get("warnings") == [], ibsetup=host.get("warnings"))
    dev = next((d for d in host.get("devices", []) if d.get("name") == device), None)
    if dev is None or device not in verbs or device not in diag:
        r.check(f"device {device} in all three", False, ibsetup=dev is not None,
                ibv_devinfo=device in verbs, ibstat=device in diag)
        return r.finish()
    v, s = verbs[device], diag[device]
    va, sa = v["attrs"], s["attrs"]

    for field, vkey, skey in (("node_guid", "node_guid", "Node GUID"),
                              ("sys_image_guid", "sys_image_guid", "System image GUID")):
        mine = dev.get(field)
        ok = (mine is not None and re.fullmatch(r"0x[0-9a-f]{16}", mine) is not None
              and guid(mine) == guid(va.get(vkey)) == guid(sa.get(skey)))
        r.check(f"{device} {field}", ok, ibsetup=mine, ibv_devinfo=va.get(vkey),
                ibstat=sa.get(skey))

    # fw_ver: ibsetup and ibstat read sysfs fw_ver, empty for a device without a firmware
    # version string; ibv_devinfo formats the verbs attribute fw_ver (a 64-bit number), which
    # such a device leaves 0, as "0.0.0".
    mine, vfw, sfw = dev.get("fw_ver"), va.get("fw_ver"), sa.get("Firmware version")
    if mine is None:
        ok = (sfw or "") == "" and (vfw or "") in ("", "0.0.0")
    else:
        ok = mine == vfw == sfw
    r.check(f"{device} fw_ver", ok, ibsetup=mine, ibv_devinfo=vfw, ibstat=sfw)

    ports = dev.get("ports") or []
    r.check(f"{device} port count", len(ports) > 0 and
            len(ports) == number(va.get("phys_port_cnt")) == number(sa.get("Number of ports")),
            ibsetup=len(ports), ibv_devinfo=va.get("phys_port_cnt"),
            ibstat=sa.get("Number of ports"))

    for p in ports:
        n = p.get("port")
        vp, sp = v["ports"].get(n), s["ports"].get(n)
        tag = f"{device}/{n}"
        if vp is None or sp is None:
            r.check(f"{tag} present", False, ibv_devinfo=vp is not None, ibstat=sp is not None)
            continue

        vstate = code_name(vp.get("state"))
        r.check(f"{tag} state", p.get("state") is not None
                and vstate == "PORT_" + p["state"]
                and IBSTAT_STATES.get(sp.get("State")) == p["state"],
                ibsetup=p.get("state"), ibv_devinfo=vp.get("state"), ibstat=sp.get("State"))
        r.check(f"{tag} phys_state", p.get("phys_state") is not None
                and phys(p["phys_state"]) == phys(vp.get("phys_state")) == phys(sp.get("Physical state")),
                ibsetup=p.get("phys_state"), ibv_devinfo=vp.get("phys_state"),
                ibstat=sp.get("Physical state"))
        r.check(f"{tag} link_layer", p.get("link_layer") is not None
                and p["link_layer"] == vp.get("link_layer") == sp.get("Link layer"),
                ibsetup=p.get("link_layer"), ibv_devinfo=vp.get("link_layer"),
                ibstat=sp.get("Link layer"))

        width = IBV_WIDTHS.get(paren_code(vp.get("active_width")))
        speed = IBV_SPEEDS.get(paren_code(vp.get("active_speed")))
        r.check(f"{tag} width", p.get("width") is not None and p["width"] == width,
                ibsetup=p.get("width"), ibv_devinfo=vp.get("active_width"))
        r.check(f"{tag} speed", p.get("speed") is not None and p["speed"] == speed,
                ibsetup=p.get("speed"), ibv_devinfo=vp.get("active_speed"))
        srate = number(sp.get("Rate"))
        vrate = (LANE_GBPS[speed] * int(width[:-1])) if width and speed else None
        r.check(f"{tag} rate_gbps", p.get("rate_gbps") is not None and srate is not None
                and abs(p["rate_gbps"] - srate) < 1e-9 and vrate is not None
                and abs(p["rate_gbps"] - vrate) < 1e-9,
                ibsetup=p.get("rate_gbps"), ibstat=sp.get("Rate"), ibv_devinfo_width_x_lane=vrate)

        for field, vkey, skey in (("lid", "port_lid", "Base lid"), ("sm_lid", "sm_lid", "SM lid"),
                                  ("lmc", "port_lmc", "LMC")):
            mine = p.get(field)
            r.check(f"{tag} {field}", mine is not None
                    and mine == number(vp.get(vkey), 0) == number(sp.get(skey), 0),
                    ibsetup=mine, ibv_devinfo=vp.get(vkey), ibstat=sp.get(skey))

        mine = p.get("cap_mask")
        r.check(f"{tag} cap_mask", mine is not None
                and number(mine, 0) == number(vp.get("port_cap_flags"), 0)
                == number(sp.get("Capability mask"), 0),
                ibsetup=mine, ibv_devinfo=vp.get("port_cap_flags"),
                ibstat=sp.get("Capability mask"))

        mine = p.get("port_guid")
        gid0 = vp["gids"][0] if vp.get("gids") else None
        r.check(f"{tag} port_guid", mine is not None
                and re.fullmatch(r"0x[0-9a-f]{16}", mine) is not None
                and guid(mine) == guid(sp.get("Port GUID")) == interface_id(gid0 or ""),
                ibsetup=mine, ibstat=sp.get("Port GUID"), ibv_devinfo_gid0=gid0)

        # The one value ibsetup takes from libibverbs rather than sysfs.
        mine = p.get("active_mtu")
        vmtu = number(code_name(vp.get("active_mtu")))
        r.check(f"{tag} active_mtu", mine is not None and mine == vmtu,
                ibsetup=mine, ibv_devinfo=vp.get("active_mtu"))

        # RoCE ports: the netdev under the port's GID table (gid_attrs/ndevs), as `rdma link`.
        if "rdma-link" in out:
            rdma_netdev = None
            for line in out["rdma-link"]:
                m = re.search(rf"^link {re.escape(device)}/{n} .*\bnetdev (\S+)", line)
                if m:
                    rdma_netdev = m.group(1)
            r.check(f"{tag} netdev", p.get("netdev") is not None and p.get("netdev") == rdma_netdev,
                    ibsetup=p.get("netdev"), rdma_link=rdma_netdev)

    return r.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
