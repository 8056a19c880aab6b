#!/bin/bash
# The fleet path with pdsh instead of clush: the real pdsh (exec module, no ssh) runs the real
# `ibsetup check --json --node %h --sysfs-root TREE/%h` on simulated hosts, and `ibsetup report`
# sums it up. pdsh speaks of a host as "pdsh@NODE: HOST: ..." (exit codes, timeouts): those lines
# belong to the host, not to "lines naming no host". node01-04 are healthy, node05 has port 1
# DOWN, node06 has no tree (check fails with an error, not a result), node07 hangs (pdsh -u
# times it out and ends it) and node08 is expected but not asked. Exit 77 without pdsh.
set -u
bin=$1 src=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
fleet_setup pdsh "pdsh"
for n in 01 02 03 04 05; do
  cp -a "$fixture" "$tmp/node$n"
done
echo "1: DOWN" >"$tmp/node05/$port/state"

# pdsh runs one command line for every host (%h is the host, maybe in full): node07's hangs.
cat >"$tmp/host.sh" <<SCRIPT
#!/bin/sh
host=\${1%%.*}
[ "\$host" != node07 ] || exec sleep 60
exec "$bin" check "$here/check_cluster.yaml" --json --node "\$host" --sysfs-root "$tmp/\$host" \\
  --no-peers
SCRIPT
chmod +x "$tmp/host.sh"
pdsh -R exec -u 5 -w 'node[01-07]' "$tmp/host.sh" %h >"$tmp/out" 2>"$tmp/err" </dev/null
cat "$tmp/out" "$tmp/err" >"$tmp/in"
expect "pdsh: five results" "$(grep -c '^node0[1-5]: {"host"' "$tmp/out")" 5
expect "pdsh: its own lines about node05, node06 and node07" \
  "$(grep -c '^pdsh@[^:]*: node0[5-7]: ' "$tmp/in")" 4

"$bin" report --expect 'node[01-08]' "$tmp/in" >"$tmp/report"
expect "report: exit 5 (failures)" "$?" 5
expect "report: summary" "$(tail -1 "$tmp/report")" \
  "fleet: FAILED: 8 hosts: 4 passed, 1 failed, 1 invalid output, 2 did not answer"
expect "report: every line names its host" "$(grep -c '^lines naming no host' "$tmp/report")" 0
expect "report: node06's error and pdsh's exit code, quoted" \
  "$(grep -cE '^    "(node06: ibsetup: error: .*cannot read the sysfs root|pdsh@[^:]*: node06: host\.sh exited with exit code 4)"$' "$tmp/report")" 2
expect "report: node07 timed out" "$(grep -cE '^  node07: "pdsh@[^:]*: node07: command timeout"$' "$tmp/report")" 1
expect "report: node05's failure" "$(grep -c '^  1 host  node05  port.state' "$tmp/report")" 1

# Names in full: pdsh prints them up to the first dot, except in the line of its timeout
# ("sending signal 15 to node07.site ..."). Still eight hosts, node07 one of them.
pdsh -R exec -u 5 -w 'node[01-07].site' "$tmp/host.sh" %h >"$tmp/out" 2>"$tmp/err" </dev/null
cat "$tmp/out" "$tmp/err" >"$tmp/full.in"
expect "full names: the timeout's line names node07 in full" \
  "$(grep -c '^sending signal [0-9]* to node07\.site \[' "$tmp/full.in")" 1
"$bin" report --expect 'node[01-08].site' "$tmp/full.in" >"$tmp/full"
expect "full names: exit 5" "$?" 5
expect "full names: summary" "$(tail -1 "$tmp/full")" \
  "fleet: FAILED: 8 hosts: 4 passed, 1 failed, 1 invalid output, 2 did not answer"
expect "full names: node07 timed out" \
  "$(grep -cE '^  node07\.site: "sending signal [0-9]+ to node07\.site \[host\.sh\] pid [0-9]+"$' "$tmp/full")" 1

echo "pdsh check: $pass passed, $fail failed"
[ "$fail" = 0 ]
