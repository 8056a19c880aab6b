"""What the host-side judges of the guest scripts share: reading the console log, the
sections between ===BEGIN/END===, the timings and the `ibsetup check --json` results.

The judges run as `python3 tests/qemu/check_X_console.py`, so they import this module from
their own directory.
"""

import json
import re
import sys

from compare_inspect import Report, console_lines, no_markers, sections  # noqa: F401

# Slack over the deadline for process start and teardown under software emulation.
SLACK_S = 2.0


def guest_console(argv, doc):
    """(lines, {section: lines}, {section: exit code}) of the console log argv names.

    Exits (usage, or the guest never ran or finished test.sh) when there is nothing to judge.
    """
    if len(argv) != 2:
        print(doc.strip().splitlines()[2], file=sys.stderr)
        sys.exit(2)
    lines = console_lines(argv[1])
    if not any(l.strip() == "===GUEST BEGIN test.sh===" for l in lines):
        sys.exit(no_markers(lines,
                            "the guest never printed its markers (no ===GUEST BEGIN test.sh===)"))
    if not any(l.strip().startswith("===GUEST END test.sh") for l in lines):
        sys.exit(no_markers(lines, "the guest script never finished (no ===GUEST END test.sh===)"))
    out, rcs = sections(lines)
    return lines, out, rcs


def times(lines):
    """{name: seconds} from the guest's ===TIME name=start end=== lines."""
    out = {}
    for line in lines:
        m = re.fullmatch(r"===TIME (\S+)=([0-9.]+) ([0-9.]+)===", line.strip())
        if m:
            out[m.group(1)] = float(m.group(3)) - float(m.group(2))
    return out


def results(r, out, rcs, name):
    """{(id, subject): result} of one run, or None when it printed no JSON."""
    for line in out.get(f"{name}-stderr", []):
        r.info(f"{name} stderr: {line}")
    try:
        report = json.loads("\n".join(out.get(name, [])))
    except ValueError as e:
        r.check(f"{name}: output is JSON", False, error=str(e), head=out.get(name, [])[:5])
        return None
    for c in report["checks"]:
        r.info(f"{name}: {c['status']:4} {c['id']:13} {c['subject']:7} observed: {c['observed']}"
               f" | {c['message']}")
    return {(c["id"], c["subject"]): c for c in report["checks"]}


def expect(r, name, got, check_id, subject, status, *, message=(), observed=()):
    c = got.get((check_id, subject))
    if c is None:
        r.check(f"{name}: {check_id} {subject} present", False)
        return
    ok = c["status"] == status and all(m in c["message"] for m in message) and all(
        o in c["observed"] for o in observed)
    r.check(f"{name}: {check_id} {subject} is {status}", ok, status=c["status"],
            message=c["message"], observed=c["observed"], expected=c["expected"])


def bounded(r, name, elapsed, limit):
    r.check(f"{name}: finished within {limit:.1f} s (deadline + {SLACK_S:.0f} s)",
            elapsed is not None and elapsed < limit, elapsed_s=elapsed)
