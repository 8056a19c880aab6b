#!/usr/bin/env python3
"""Judges the mpi checks run by guest_mpi.sh in a QEMU guest (Soft-RoCE, real kernel stack).

Usage: check_mpi_console.py CONSOLE_LOG

As root with memlock unlimited every mpi check passes; as an unprivileged user a 64 KiB memlock
limit fails mpi.memlock (with its hint) and mpi.reg_mr (with a message, no crash), a uverbs
device at mode 0600 fails mpi.devices, and unloaded modules fail mpi.modules. Prints one line
per assertion and ends with `qemu: N passed, M failed`; exit code 0 when all hold.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from console import Report, expect, guest_console, results  # noqa: E402

# ibsetup's exit code when a check failed (README, "Exit codes").
CHECK_FAILED = 5


def exit_code(r, rcs, name, want):
    r.check(f"{name}: exit code {want}", rcs.get(name) == want, rc=rcs.get(name))


def mpi_ids(got):
    return sorted({k[0] for k in got if k[0].startswith("mpi.")})


def main(argv):
    lines, out, rcs = guest_console(argv, __doc__)
    r = Report()
    for line in lines:
        if line.startswith("guest:"):
            r.info(line.strip())
    all_ids = ["mpi.devices", "mpi.memlock", "mpi.modules", "mpi.reg_mr"]

    # 1. Root, memlock unlimited, IPoIB declared: everything passes.
    got = results(r, out, rcs, "root")
    exit_code(r, rcs, "root", 0)
    if got is not None:
        r.check("root: all four mpi checks ran", mpi_ids(got) == all_ids, ids=mpi_ids(got))
        expect(r, "root", got, "mpi.memlock", "memlock", "pass", observed=("unlimited",))
        r.check("root: an unlimited memlock carries no value",
                "value" not in got.get(("mpi.memlock", "memlock"), {}))
        expect(r, "root", got, "mpi.devices", "rxe0", "pass",
               message=("/dev/infiniband/uverbs", "usable by every user"))
        expect(r, "root", got, "mpi.devices", "rdma_cm", "pass",
               message=("/dev/infiniband/rdma_cm",))
        for module in ("ib_uverbs", "rdma_ucm", "ib_umad", "ib_ipoib"):
            expect(r, "root", got, "mpi.modules", module, "pass")
        expect(r, "root", got, "mpi.reg_mr", "rxe0", "pass", message=("registered 64 MiB",))

    # 2. The job's user, memlock unlimited: passes too.
    got = results(r, out, rcs, "user")
    exit_code(r, rcs, "user", 0)
    r.check("user: ran with memlock unlimited",
            "memlock unlimited" in out.get("user-stderr", []), stderr=out.get("user-stderr"))
    if got is not None:
        expect(r, "user", got, "mpi.devices", "rxe0", "pass")
        expect(r, "user", got, "mpi.reg_mr", "rxe0", "pass")
        r.check("user: no ib_ipoib check without a declared interface",
                ("mpi.modules", "ib_ipoib") not in got)

    # 3. The job's user under a 64 KiB limit.
    got = results(r, out, rcs, "user_memlock64")
    exit_code(r, rcs, "user_memlock64", CHECK_FAILED)
    r.check("user_memlock64: ran with memlock 64",
            "memlock 64" in out.get("user_memlock64-stderr", []),
            stderr=out.get("user_memlock64-stderr"))
    if got is not None:
        expect(r, "user_memlock64", got, "mpi.memlock", "memlock", "fail",
               message=("RLIMIT_MEMLOCK 64 KiB, expected unlimited", "LimitMEMLOCK=infinity",
                        "/etc/security/limits.d"), observed=("64 KiB",))
        c = got.get(("mpi.memlock", "memlock"), {})
        r.check("user_memlock64: mpi.memlock value 64 KiB",
                c.get("value") == 64 and c.get("unit") == "KiB", value=c.get("value"),
                unit=c.get("unit"))
        expect(r, "user_memlock64", got, "mpi.reg_mr", "rxe0", "fail",
               message=("ibv_reg_mr failed", "likely the memlock limit",
                        "RLIMIT_MEMLOCK is 64 KiB, below 64 MiB"))
        expect(r, "user_memlock64", got, "mpi.devices", "rxe0", "pass")

    # 4. uverbs0 at 0600: the user cannot open it.
    got = results(r, out, rcs, "user_uverbs0600")
    exit_code(r, rcs, "user_uverbs0600", CHECK_FAILED)
    if got is not None:
        expect(r, "user_uverbs0600", got, "mpi.devices", "rxe0", "fail",
               message=("is not usable by unprivileged users",), observed=("mode 0600",))
        expect(r, "user_uverbs0600", got, "mpi.devices", "rdma_cm", "pass")
        expect(r, "user_uverbs0600", got, "mpi.reg_mr", "rxe0", "fail",
               message=("ibv_open_device failed", "this user cannot open the device"))

    # 5. ib_umad and ib_ipoib unloaded.
    got = results(r, out, rcs, "nomodules")
    exit_code(r, rcs, "nomodules", CHECK_FAILED)
    if got is not None:
        expect(r, "nomodules", got, "mpi.modules", "ib_umad", "fail",
               message=("not loaded", "modprobe ib_umad"))
        expect(r, "nomodules", got, "mpi.modules", "ib_ipoib", "fail",
               message=("the IPoIB interfaces this node declares",))
        expect(r, "nomodules", got, "mpi.modules", "ib_uverbs", "pass")
        expect(r, "nomodules", got, "mpi.modules", "rdma_ucm", "pass")
        expect(r, "nomodules", got, "mpi.reg_mr", "rxe0", "pass")

    # 6. NHC lines and the text table: memlock fails, the missing module only warns, and
    # registration is disabled.
    exit_code(r, rcs, "nhc", CHECK_FAILED)
    nhc = out.get("nhc", [])
    r.check("nhc: an ERROR line for mpi.memlock with the hint",
            any(l.startswith("ERROR:  ibsetup:  Health check failed:  memlock: RLIMIT_MEMLOCK 64 KiB")
                and "LimitMEMLOCK=infinity" in l for l in nhc), lines=nhc)
    r.check("nhc: a WARNING line for ib_umad",
            any(l.startswith("WARNING:  ibsetup:  ib_umad: not loaded") for l in nhc), lines=nhc)
    r.check("nhc: nothing about mpi.reg_mr", not any("reg_mr" in l or "registered" in l
                                                     for l in nhc), lines=nhc)
    exit_code(r, rcs, "text", CHECK_FAILED)
    text = out.get("text", [])
    r.check("text: mpi.reg_mr is skipped as disabled",
            any("mpi.reg_mr" in l and "skip" in l and "disabled" in l for l in text), lines=text)
    r.check("text: mpi.modules ib_umad is a warning",
            any("mpi.modules" in l and "warn" in l and "ib_umad" in l for l in text), lines=text)
    return r.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
