#!/bin/sh
# Stands in for `ibsetup check --json` on simulated host $1, from canned files in $2:
# HOST.json is its result (exit 5 when it failed, as check does), HOST.garbage is output that
# is no result (exit 3), HOST.hang never answers and writes its pid to $3/HOST.pid (clush's
# timeout stops waiting but does not kill the command: the test does), HOST.unreachable fails
# as ssh does when it cannot connect (its message on stderr, exit 255). No file: the command
# fails like a missing program would.
host=$1
dir=$2
piddir=${3:-}
if [ -f "$dir/$host.json" ]; then
  cat "$dir/$host.json"
  grep -q '"ok":false' "$dir/$host.json" && exit 5
  exit 0
fi
if [ -f "$dir/$host.garbage" ]; then
  cat "$dir/$host.garbage"
  echo "ibsetup: error: internal error: simulated crash" >&2
  exit 3
fi
if [ -f "$dir/$host.unreachable" ]; then
  echo "ssh: connect to host $host port 22: Connection refused" >&2
  exit 255
fi
if [ -f "$dir/$host.hang" ]; then
  [ -n "$piddir" ] && echo $$ >"$piddir/$host.pid"
  exec sleep 120  # exec keeps the pid just written
fi
echo "sh: ibsetup: not found" >&2
exit 127
