#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz harnesses from the tree's own data.

    tests/fuzz/seed.py

Each harness's corpus/ gets one file per seed, named seed-*; files named otherwise there
(inputs a fuzz run found and someone kept, crash-* regressions) are left alone. Run it again
after adding fixtures; the seeds are committed so that a fuzz run and the replay test need no
generation step.
"""
import glob
import hashlib
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def rel(path):
    return os.path.relpath(path, ROOT)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def seed_name(origin):
    return "seed-" + re.sub(r"[^A-Za-z0-9._-]+", "_", origin)


def write_corpus(harness, seeds):
    """seeds: (name, bytes); duplicates of content are written once."""
    corpus = os.path.join(HERE, harness, "corpus")
    os.makedirs(corpus, exist_ok=True)
    for old in glob.glob(os.path.join(corpus, "seed-*")):
        os.remove(old)
    seen = set()
    for name, data in seeds:
        digest = hashlib.sha1(data).hexdigest()
        if digest in seen:
            continue
        seen.add(digest)
        with open(os.path.join(corpus, name), "wb") as f:
            f.write(data)
    print("%-15s %4d seeds" % (harness, len(seen)))


def yaml_files():
    files = glob.glob(os.path.join(ROOT, "profiles", "*.yaml"))
    # os.walk, not a recursive glob: the sysfs fixtures hold symlink loops, as /sys does.
    for dirpath, _, names in os.walk(os.path.join(ROOT, "tests")):
        files += [os.path.join(dirpath, n) for n in names if n.endswith(".yaml")]
    return sorted(files)


def profile_seeds():
    return [(seed_name(rel(f)), read(f)) for f in yaml_files()]


def hostlist_seeds():
    seeds = []
    # Every hostlist a profile in the tree writes ("hosts: cn[001-128]").
    for f in yaml_files():
        for m in re.finditer(rb"^\s*-?\s*hosts:\s*(.+?)\s*$", read(f), re.M):
            value = m.group(1).strip(b"\"'")
            seeds.append((seed_name(rel(f)) + "-" + hashlib.sha1(value).hexdigest()[:8], value))
    # And every one the unit tests expand or fold.
    test = os.path.join(ROOT, "tests", "unit", "hostlist_test.cpp")
    for m in re.finditer(rb'expand_hostlist\("((?:[^"\\]|\\.)*)"', read(test)):
        value = m.group(1)
        seeds.append(("seed-hostlist_test-" + hashlib.sha1(value).hexdigest()[:8], value))
    return seeds


# The lines of a terminal capture that are not mstconfig's (as in tests/unit/firmware/firmware_test.cpp).
COMMAND = re.compile(
    r"^(# (source|note):|\S+@\S+.*[#$]( |$)|\[\S+@.*\]#|\$ |sh-[0-9.]+# |(sudo )?m(st|lx)config )")


def capture_outputs(path):
    outputs = [""]
    for line in read(path).decode("utf-8", "replace").splitlines():
        if COMMAND.search(line):
            if outputs[-1]:
                outputs.append("")
            continue
        if line != "...":
            outputs[-1] += line + "\n"
    return [o for o in outputs if o]


def fake_mstconfig_outputs():
    """Every output format of tests/firmware/fake_mstconfig, query and set."""
    fake = os.path.join(ROOT, "tests", "firmware", "fake_mstconfig")
    pci = "0000:3b:00.0"
    outputs = []
    with tempfile.TemporaryDirectory() as state:
        with open(os.path.join(state, pci), "w") as f:
            f.write("LINK_TYPE_P1=IB\nLINK_TYPE_P2=ETH\n")
        formats = ["mstflint", "mft-old", "sysfs", "tabs", "extended", "grep", "garbage",
                   "garbage-error"]
        runs = [["-d", pci, "query"], ["-d", pci, "-y", "set", "LINK_TYPE_P1=2"],
                ["-d", "0000:99:00.0", "query"]]
        for fmt in formats:
            for argv in runs:
                env = dict(os.environ, FAKE_MSTCONFIG_STATE=state, FAKE_MSTCONFIG_FORMAT=fmt)
                run = subprocess.run([sys.executable, fake] + argv, env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
                outputs.append(("seed-fake_mstconfig-%s-%s" % (fmt, argv[-1].split("=")[0]),
                                run.stdout))
        env = dict(os.environ, FAKE_MSTCONFIG_STATE=state, FAKE_MSTCONFIG_SEMAPHORE="1")
        run = subprocess.run([sys.executable, fake, "-d", pci, "query"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
        outputs.append(("seed-fake_mstconfig-semaphore", run.stdout))
    return outputs


def mstconfig_seeds():
    seeds = []
    for f in sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "mstconfig", "*.txt"))):
        seeds.append((seed_name(rel(f)), read(f)))  # as captured: fails on the prompt line
        for i, output in enumerate(capture_outputs(f)):
            seeds.append((seed_name(rel(f)) + "-%d" % i, output.encode()))
    return seeds + fake_mstconfig_outputs()


def sysfs_seeds():
    # The distinct contents of the fixture trees' attribute files (states, rates, GIDs, P_Keys,
    # PCI speeds, ...); counters and other numbers collapse to a few seeds.
    seeds = []
    tree = os.path.join(ROOT, "tests", "fixtures", "sysfs")
    for dirpath, _, files in sorted(os.walk(tree)):
        for name in sorted(files):
            path = os.path.join(dirpath, name)
            if os.path.islink(path) or name.endswith(".py") or os.path.getsize(path) > 4096:
                continue
            data = read(path)
            seeds.append(("seed-%s-%s" % (name, hashlib.sha1(data).hexdigest()[:8]), data))
    return seeds


def inventory_json_seeds():
    files = [os.path.join(ROOT, "tests", "fixtures", "inspect-hdr-2hca.json")]
    files += sorted(glob.glob(os.path.join(ROOT, "tests", "data", "plan", "*", "observed.json")))
    return [(seed_name(rel(f)), read(f)) for f in files]


def inventory_sources_seeds():
    data = os.path.join(ROOT, "tests", "data", "partitions", "sources")
    files = [os.path.join(data, n) for n in ("clush.txt", "ibnetdiscover.txt", "ibsim.net")]
    files += sorted(glob.glob(os.path.join(data, "dir", "*.json")))
    return [(seed_name(rel(f)), read(f)) for f in files]


def fleet_seeds():
    hosts = os.path.join(ROOT, "tests", "fleet", "hosts")
    seeds = []
    transcript = b""
    for f in sorted(glob.glob(os.path.join(hosts, "*"))):
        host = os.path.basename(f).split(".")[0]
        data = read(f)
        seeds.append((seed_name(rel(f)) + "-bare", data))  # clush -N: no prefix
        prefixed = b"".join(host.encode() + b": " + line + b"\n" for line in data.splitlines())
        seeds.append((seed_name(rel(f)), prefixed))
        transcript += prefixed
    # What clush and ssh say about hosts that did not answer (tests/fleet/fake_check.sh).
    transcript += (b"clush: node11: exited with exit code 3\n"
                   b"clush: node12: command timeout\n"
                   b"node14: ssh: connect to host node14 port 22: Connection refused\n"
                   b"clush: node14: exited with exit code 255\n"
                   b"node13: sh: ibsetup: not found\n"
                   b"clush: node13: exited with exit code 127\n"
                   b"clush: 1/14 timeout(s)\n")
    seeds.append(("seed-tests_fleet-transcript", transcript))
    return seeds


def main():
    write_corpus("profile", profile_seeds())
    write_corpus("hostlist", hostlist_seeds())
    write_corpus("mstconfig", mstconfig_seeds())
    write_corpus("sysfs", sysfs_seeds())
    write_corpus("inventory_json", inventory_json_seeds())
    write_corpus("fleet", fleet_seeds())
    write_corpus("inventory_sources", inventory_sources_seeds())


if __name__ == "__main__":
    main()
