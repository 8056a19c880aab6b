#!/usr/bin/env python3
"""nonblocking_stdin.py INPUT_FILE COMMAND...: runs COMMAND with standard input a pipe whose
read end is O_NONBLOCK (as a shell pipeline leaves it when another reader set the flag; the
flag belongs to the pipe, not to one process), and writes INPUT_FILE into it only after 0.3 s,
so the first read finds the pipe empty (EAGAIN). Exits with COMMAND's status."""
import os
import sys
import time

r, w = os.pipe()
os.set_blocking(r, False)
pid = os.fork()
if pid == 0:
    os.close(w)
    os.dup2(r, 0)
    os.close(r)
    os.execvp(sys.argv[2], sys.argv[2:])
os.close(r)
time.sleep(0.3)
with open(sys.argv[1], "rb") as f:
    data = f.read()
try:
    os.write(w, data)
except BrokenPipeError:
    pass
os.close(w)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status >> 8)
