#!/usr/bin/env python3
"""The man pages against the program: mandoc -Tlint finds nothing; every subcommand of
`ibsetup --help` (and the hidden ones) is described and has a SYNOPSIS entry that names every
option its `--help` lists, each option has an entry in OPTIONS, the exit codes of the --help
footer are in EXIT STATUS; every profile key the readers accept is in ibsetup-profile(5); and
every example profile validates.

Usage: man_test.py IBSETUP SOURCE_DIR"""
import re
import shutil
import subprocess
import sys
from pathlib import Path

HIDDEN = ["hosts"]  # documented in ibsetup(8), not listed in --help

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


def run(*args):
    return subprocess.run(args, capture_output=True, text=True, check=False)


def help_text(binary, *sub):
    out = run(binary, *sub, "--help")
    if out.returncode != 0:
        fail(f"{' '.join(sub)} --help exited {out.returncode}")
    return out.stdout


def options_of(text):
    """The options of a --help text, each as its list of aliases (['-q', '--quiet']),
    without -h/--help."""
    options = []
    for line in text.splitlines():
        m = re.match(r"^ +((?:-[a-zA-Z],)?--[a-z0-9-]+)", line)
        if m and m.group(1) != "-h,--help":
            options.append(m.group(1).split(","))
    return options


def mdoc_flag(name):
    """`--node` is written `Fl -node`, `-q` is `Fl q` in mdoc."""
    return "Fl " + name[1:]


def synopsis_entries(page):
    """SYNOPSIS: subcommand -> the text of its entries (each from `.Cm sub` to the next
    `.Nm`; a subcommand may have several, such as apply and apply --offline)."""
    syn = page.split(".Sh SYNOPSIS", 1)[1].split(".Sh ", 1)[0]
    entries = {}
    for block in re.split(r"^\.Nm\s*$", syn, flags=re.M):
        m = re.match(r"\s*\.Cm (\S+)", block)
        if m:
            entries[m.group(1)] = entries.get(m.group(1), "") + block
    return entries


def section(page, name):
    return page.split(".Sh " + name, 1)[1].split("\n.Sh ", 1)[0]


def check_lint(page_path):
    out = run("mandoc", "-Tlint", "-W", "warning", str(page_path))
    text = (out.stdout + out.stderr).strip()
    if out.returncode != 0 or text:
        fail(f"mandoc -Tlint {page_path.name}: exit {out.returncode}: {text}")
    else:
        print(f"ok   mandoc -Tlint -W warning {page_path.name}: no messages")


def check_ibsetup8(binary, page):
    top = help_text(binary)
    subs = re.findall(r"^  ([a-z][a-z0-9-]*) ", top.split("Subcommands:", 1)[1].split("\n\n")[0],
                      flags=re.M)
    if len(subs) < 5:
        fail(f"only {subs} parsed from --help")
    synopsis = synopsis_entries(page)
    description = section(page, "DESCRIPTION")
    options = section(page, "OPTIONS")
    for sub in subs + HIDDEN:
        if sub not in synopsis:
            fail(f"ibsetup.8 SYNOPSIS has no entry for '{sub}'")
            continue
        if not re.search(r"^\.It Cm " + re.escape(sub) + r"\b", description, flags=re.M):
            fail(f"ibsetup.8 DESCRIPTION has no '.It Cm {sub}' item")
        missing_syn = []
        missing_opt = []
        for aliases in options_of(help_text(binary, sub)):
            # Either spelling of an option with a short alias will do (`Fl q | -quiet`).
            flags = [re.escape(mdoc_flag(a)) + r"(?![a-z0-9-])" for a in aliases]
            if not any(re.search(f, synopsis[sub]) for f in flags):
                missing_syn.append("/".join(aliases))
            if not any(re.search(r"^\.It .*" + f, options, flags=re.M) for f in flags):
                missing_opt.append("/".join(aliases))
        if missing_syn:
            fail(f"ibsetup.8 SYNOPSIS of '{sub}' lacks {', '.join(missing_syn)}")
        if missing_opt:
            fail(f"ibsetup.8 OPTIONS has no '.It' entry for {sub} {', '.join(missing_opt)}")
        if not missing_syn and not missing_opt:
            print(f"ok   {sub}: every --help option in SYNOPSIS and OPTIONS")
    for aliases in options_of(top):
        if not any(mdoc_flag(a) in page for a in aliases):
            fail(f"ibsetup.8 lacks the global option {'/'.join(aliases)}")

    codes = re.findall(r"^  (\d+)  ", top.split("Exit codes:", 1)[1], flags=re.M)
    exit_status = section(page, "EXIT STATUS")
    documented = re.findall(r"^\.It (\d+)$", exit_status, flags=re.M)
    if codes != documented:
        fail(f"exit codes: --help lists {codes}, EXIT STATUS lists {documented}")
    else:
        print(f"ok   exit codes {' '.join(codes)} in EXIT STATUS")
    for sec in ("ENVIRONMENT", "FILES", "EXAMPLES", "SEE ALSO"):
        if "\n.Sh " + sec not in page:
            fail(f"ibsetup.8 has no {sec} section")


def check_profile5(src, page):
    # reader.cpp and the readers of its sections (reader_hca.cpp, reader_partitions.cpp, ...).
    reader = "".join(p.read_text() for p in sorted((src / "src/profile").glob("reader*.cpp")))
    keys = set()
    # Key lists given to MapReader ({"port", "link_type", ...}) and the interface keys.
    for group in re.findall(r'\{\s*("[a-z0-9_]+"(?:\s*,\s*"[a-z0-9_]+")*)\s*\}', reader):
        keys.update(re.findall(r'"([a-z0-9_]+)"', group))
    interface = re.search(r"k_interface_keys\[\]\s*=\s*\{([^}]*)\}", reader)
    keys.update(re.findall(r'"([a-z0-9_]+)"', interface.group(1)))
    if len(keys) < 30:
        fail(f"only {len(keys)} profile keys found in reader*.cpp: {sorted(keys)}")
    missing = sorted(k for k in keys
                     if not re.search(r"\bIc (?:[a-z0-9_.]*\.)?" + re.escape(k) + r"\b", page))
    if missing:
        fail(f"ibsetup-profile.5 does not document the keys {', '.join(missing)}")
    else:
        print(f"ok   ibsetup-profile.5 documents all {len(keys)} keys of reader*.cpp")


def check_profiles(binary, src):
    for path in sorted((src / "profiles").glob("*.yaml")):
        out = run(binary, "validate", "-q", str(path))
        if out.returncode != 0:
            fail(f"profiles/{path.name} does not validate: {out.stderr.strip()}")
        else:
            print(f"ok   profiles/{path.name} validates")


def main():
    binary, src = sys.argv[1], Path(sys.argv[2])
    page8 = src / "man/ibsetup.8"
    page5 = src / "man/ibsetup-profile.5"
    have_mandoc = shutil.which("mandoc") is not None
    for p in (page8, page5):
        if have_mandoc:
            check_lint(p)
    check_ibsetup8(binary, page8.read_text())
    check_profile5(src, page5.read_text())
    check_profiles(binary, src)
    if failures:
        print(f"{len(failures)} problem(s)")
        return 1
    if not have_mandoc:
        print("SKIP mandoc is not installed (scripts/deps.sh installs it); the rest passed")
        return 77
    print("man pages agree with the program")
    return 0


if __name__ == "__main__":
    sys.exit(main())
