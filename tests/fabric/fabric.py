"""A simulated InfiniBand fabric with a real OpenSM (TESTING.md tier 6), for the fabric tests.

ibsim (ibsim-utils) simulates the switches and HCAs; libumad2sim's LD_PRELOAD library connects
any libibumad program to it, so the real opensm programs the P_Key tables and the real
infiniband-diags (ibnetdiscover, smpquery) read them back. Every process started here is
killed by its pid when the Fabric closes, on an exception or a SIGTERM/SIGINT (ctest's timeout)
as well, and the temporary directory is removed.

Only one ibsim can run on a machine (a fixed local socket): the tests that use this module
carry RESOURCE_LOCK ibsim."""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SIM_LIB = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"
SKIP = 77

# Three groups of six hosts behind three leaf switches, joined by a spine.
GROUPS = {"sw-cpu": range(1, 7), "sw-gpu": range(7, 13), "sw-io": range(13, 19)}
HCA = "mlx5_0"


DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def read_data(name):
    """A file of tests/fabric/data."""
    with open(os.path.join(DATA, name)) as f:
        return f.read()


def expected_tables():
    """data/expected_pkeys.txt: host -> the sorted P_Keys its port must hold, as numbers."""
    out = {}
    for line in read_data("expected_pkeys.txt").splitlines():
        if line and not line.startswith("#"):
            host, *pkeys = line.split()
            out[host] = sorted(int(p, 16) for p in pkeys)
    return out


def host_name(n):
    return "cn%02d" % n


def node_guid(n):
    # The host number's decimal digits, readable in every GUID: cn16 -> 0x0002c90300001601.
    return "0x0002c90300%04d01" % n


def port_guid(n):
    return "0x0002c90300%04d02" % n


def hosts():
    return [n for group in GROUPS.values() for n in group]


def require_tools():
    """Exits 77 (skipped) when ibsim, opensm or the preload library are not installed."""
    missing = [t for t in ("ibsim", "opensm", "ibnetdiscover", "smpquery") if not shutil.which(t)]
    if not os.path.exists(SIM_LIB):
        missing.append(SIM_LIB + " (libumad2sim0)")
    if missing:
        print("SKIPPED: not installed: " + ", ".join(missing) + " (scripts/deps.sh installs them)")
        sys.exit(SKIP)


def topology():
    """The ibnetdiscover-format net file ibsim reads: switches, then one CA per host."""
    lines = []
    spine_port = 1
    leaf_ports = 12
    for i, (leaf, group) in enumerate(GROUPS.items()):
        lines.append('switchguid=0x0002c9030000f%03d' % (i + 1))
        lines.append('Switch %d "%s"' % (leaf_ports, leaf))
        for port, n in enumerate(group, start=1):
            lines.append('[%d] "%s %s"[1]' % (port, host_name(n), HCA))
        lines.append('[%d] "spine"[%d]' % (leaf_ports, spine_port + i))
        lines.append("")
    lines.append("switchguid=0x0002c9030000f100")
    lines.append('Switch %d "spine"' % leaf_ports)
    for i, leaf in enumerate(GROUPS):
        lines.append('[%d] "%s"[%d]' % (spine_port + i, leaf, leaf_ports))
    lines.append("")
    for leaf, group in GROUPS.items():
        for port, n in enumerate(group, start=1):
            lines.append("sysimgguid=%s" % node_guid(n))
            lines.append("caguid=%s" % node_guid(n))
            lines.append('Ca 1 "%s %s"' % (host_name(n), HCA))
            lines.append('[1](%s) "%s"[%d]' % (port_guid(n)[2:], leaf, port))
            lines.append("")
    return "\n".join(lines)


def parse_pkeys(text):
    """The non-empty entries of `smpquery pkeys` output, in table order."""
    out = []
    for line in text.splitlines():
        m = re.match(r"^\s*\d+:\s+(.*)$", line)
        if m:
            out += [int(v, 16) for v in m.group(1).split() if int(v, 16) & 0x7FFF]
    return out


def partition_problems(log_text):
    """OpenSM's complaints about partitions.conf (parse errors and warnings, partition
    errors) and any error it logged, one line each."""
    pattern = re.compile(r"PARSE (ERROR|WARN)|[Pp]artition.*(error|fail|ignor|invalid)"
                         r"|ERR [0-9A-F]{4}")
    return [line for line in log_text.splitlines() if pattern.search(line)]


class Fabric:
    """Usage: with Fabric() as fab: fab.sweep(conf) ... Processes are killed on exit."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="ibsetup-fabric-")
        self.procs = []
        self.keep = False
        self._old_handlers = {}

    def __enter__(self):
        for sig in (signal.SIGTERM, signal.SIGINT):
            self._old_handlers[sig] = signal.signal(sig, self._on_signal)
        try:
            self._start_ibsim()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, kind, value, tb):
        if kind is not None and os.environ.get("IBSETUP_KEEP_FABRIC"):
            self.keep = True
        self.close()

    def _on_signal(self, signum, frame):
        raise SystemExit(128 + signum)

    def close(self):
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        self.procs = []
        for sig, handler in self._old_handlers.items():
            signal.signal(sig, handler)
        self._old_handlers = {}
        if self.keep:
            print("fabric: kept " + self.dir)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.dir, name)

    def env(self, host="cn01"):
        """The environment of a libibumad program that runs on host's HCA."""
        env = dict(os.environ)
        env["LD_PRELOAD"] = SIM_LIB
        env["SIM_HOST"] = "%s %s" % (host, HCA)
        env["OSM_TMP_DIR"] = self.dir
        env["OSM_CACHE_DIR"] = self.dir
        return env

    def _start_ibsim(self):
        with open(self.path("net"), "w") as f:
            f.write(topology())
        log = open(self.path("ibsim.log"), "w")
        # -s: start the simulation at once. Its console reads stdin: console() writes to it.
        proc = subprocess.Popen(["ibsim", "-s", self.path("net")], stdin=subprocess.PIPE,
                                stdout=log, stderr=subprocess.STDOUT, cwd=self.dir, text=True)
        log.close()
        self.procs.append(proc)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError("ibsim exited (%d): %s" % (proc.returncode,
                                                             self.read("ibsim.log")))
            if "Network simulator ready" in self.read("ibsim.log"):
                return
            time.sleep(0.1)
        raise RuntimeError("ibsim not ready after 20 s: " + self.read("ibsim.log"))

    def console(self, command):
        """Runs an ibsim console command ("Error \"cn05 mlx5_0\"[1] 100 22": drop every P_Key
        table SMP to that port) and waits until ibsim has taken it."""
        ibsim = self.procs[0]
        # The console prints a new prompt once it has carried out a line.
        before = self.read("ibsim.log").count("sim>")
        ibsim.stdin.write(command + "\n")
        ibsim.stdin.flush()
        deadline = time.monotonic() + 10
        while self.read("ibsim.log").count("sim>") <= before:
            if time.monotonic() > deadline:
                raise RuntimeError("ibsim console: no prompt after " + command)
            time.sleep(0.05)

    def read(self, name):
        try:
            with open(self.path(name), errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def run(self, argv, host="cn01", timeout=60, check=True):
        """Runs a libibumad program on host's HCA; its umad2sim files stay in the temp dir."""
        r = subprocess.run(argv, env=self.env(host), capture_output=True, text=True,
                           timeout=timeout, cwd=self.dir, stdin=subprocess.DEVNULL)
        if check and r.returncode != 0:
            raise RuntimeError("%s exited %d: %s%s" % (" ".join(argv), r.returncode, r.stdout,
                                                       r.stderr))
        return r

    def sweep(self, conf_text, log_name="osm.log"):
        """One OpenSM sweep with this partitions.conf (opensm -o); returns its log text."""
        conf = self.path("partitions.conf")
        with open(conf, "w") as f:
            f.write(conf_text)
        log = self.path(log_name)
        self.run(["opensm", "-P", conf, "-f", log, "-o"], timeout=120)
        return self.read(log_name)

    def start_sm(self, conf_text, log_name="osm-bg.log"):
        """A running OpenSM (for SA queries) with this partitions.conf, up once the subnet is.
        Its log text is returned; the process is killed on close."""
        conf = self.path("partitions.conf")
        with open(conf, "w") as f:
            f.write(conf_text)
        # OpenSM buffers its log; readiness is read from it, so every line is flushed.
        options = self.path("opensm.conf")
        with open(options, "w") as f:
            f.write("force_log_flush TRUE\n")
        out = open(self.path(log_name + ".out"), "w")
        proc = subprocess.Popen(["opensm", "-F", options, "-P", conf, "-f", self.path(log_name)],
                                env=self.env(), stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, cwd=self.dir)
        out.close()
        self.procs.append(proc)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError("opensm exited (%d): %s" % (proc.returncode,
                                                              self.read(log_name + ".out")))
            if "SUBNET UP" in self.read(log_name):
                return self.read(log_name)
            time.sleep(0.2)
        raise RuntimeError("opensm: no SUBNET UP after 60 s: " + self.read(log_name))

    def stop(self, proc_index=-1):
        proc = self.procs.pop(proc_index)
        proc.terminate()
        proc.wait(timeout=10)

    def ca_ports(self):
        """{host: (lid, port guid)} from ibnetdiscover -p (node descriptions "HOST HCA")."""
        out = {}
        text = self.run(["ibnetdiscover", "-p"]).stdout
        for line in text.splitlines():
            m = re.match(r"^CA\s+(\d+)\s+(\d+)\s+(0x[0-9a-f]+)\s.*\(\s*'(\S+) (\S+)' -", line)
            if m:
                out[m.group(4)] = (int(m.group(1)), m.group(3))
        return out

    def pkeys(self, lid):
        """The P_Key table OpenSM programmed on the port with this LID (smpquery pkeys)."""
        return parse_pkeys(self.run(["smpquery", "pkeys", str(lid)]).stdout)

    def dump_pkeys(self):
        """{host: (lid, port guid, P_Key table)} of every host port, read with smpquery."""
        return {host: (lid, guid, self.pkeys(lid))
                for host, (lid, guid) in sorted(self.ca_ports().items())}
