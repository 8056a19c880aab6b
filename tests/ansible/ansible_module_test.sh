#!/bin/bash
# The Ansible module (contrib/ansible) under a real ansible-playbook, against localhost with
# connection local, run inside a throw-away network namespace where veth pairs named ib0/ib1
# stand in for IPoIB interfaces (TESTING.md tiers 3 and 7). Offline: Ansible's state, temp and
# home directories are under the test's temp directory. Needs root and ansible-playbook;
# exits 77 otherwise.
# Usage: ansible_module_test.sh IBSETUP SOURCE_DIR BUILD_DIR
set -uo pipefail
ibsetup=$1
src=$2
build=$3
here="$src/tests/ansible"
if [ "$(id -u)" != 0 ]; then
  echo "ansible: skipped: needs root"
  exit 77
fi
if ! command -v ansible-playbook >/dev/null 2>&1; then
  echo "ansible: skipped: ansible-playbook not found (package ansible-core; scripts/deps.sh)"
  exit 77
fi
ns="ibans$$"
work=$(mktemp -d)
cleanup() {
  touch "$work/release"  # lets the lock holder of 3b go, should the test stop before
  ip netns del "$ns" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=SCRIPTDIR/../scripts/expect.sh
. "$src/tests/scripts/expect.sh"

# Nothing read from or written to the user's Ansible setup: no ansible.cfg, no ~/.ansible.
mkdir -p "$work/home"
export HOME="$work/home" ANSIBLE_HOME="$work/home/.ansible" ANSIBLE_CONFIG="$work/ansible.cfg"
export ANSIBLE_LOCAL_TEMP="$work/tmp" ANSIBLE_REMOTE_TEMP="$work/remote-tmp"
export ANSIBLE_COLLECTIONS_PATH="$src/contrib/ansible" ANSIBLE_COLLECTIONS_SCAN_SYS_PATH=false
export ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 ANSIBLE_RETRY_FILES_ENABLED=0
export ANSIBLE_PYTHON_INTERPRETER=auto_silent ANSIBLE_GATHERING=explicit
export ANSIBLE_LOCALHOST_WARNING=0 ANSIBLE_INVENTORY_UNPARSED_WARNING=0
: >"$ANSIBLE_CONFIG"

ip netns add "$ns"
ip -n "$ns" link add ib0 type veth peer name ib9
ip -n "$ns" link add ib1 type veth peer name ib8
in_ns() { ip netns exec "$ns" "$@"; }
snapshot() { echo "$(in_ns ip -j addr show)$(in_ns ip -j link show)"; }
# play PLAYBOOK PROFILE [ansible-playbook options...]: prints the output; returns its exit code.
play() {
  local book=$1 profile=$2
  shift 2
  in_ns ansible-playbook -i localhost, "$here/$book" -e "profile=$work/$profile" \
    -e "ibsetup=$ibsetup" -e "lock=$work/lock" "$@" 2>&1
}
recap() { grep -o 'changed=[0-9]* *unreachable=[0-9]* *failed=[0-9]*' <<<"$1" | tr -s ' '; }
has() {  # has NAME TEXT NEEDLE
  if grep -qF -- "$3" <<<"$2"; then expect "$1" yes yes; else
    expect "$1" "$(tail -25 <<<"$2")" "output containing: $3"; fi
}

# 0. The module's documentation: ansible-doc renders it; ansible-test's validate-modules
#    (run directly: ansible-test sanity wants to pip-install it) checks it against the argument
#    spec when its one dependency, python3-voluptuous, is there; the collection builds and
#    installs with ansible-galaxy, as a site would install it.
collection="$src/contrib/ansible/ansible_collections/ibsetup/ibsetup"
out=$(ansible-doc ibsetup.ibsetup.ibsetup 2>&1); rc=$?
expect "ansible-doc renders the module's documentation" "$rc" 0
has "ansible-doc shows the options" "$out" "choices: [applied, checked]"
out=$(ansible-doc -j ibsetup.ibsetup.ibsetup 2>&1 | python3 -c 'import json, sys
d = json.load(sys.stdin)["ibsetup.ibsetup.ibsetup"]
print(sorted(k for k in ("doc", "examples", "return") if d.get(k)))')
expect "ansible-doc -j: DOCUMENTATION, EXAMPLES and RETURN" "$out" "['doc', 'examples', 'return']"
ansible_python=$(head -1 "$(command -v ansible-playbook)" | sed 's/^#! *//; s/ .*//')
validate="$(dirname "$("$ansible_python" -c 'import ansible_test; print(ansible_test.__file__)' 2>/dev/null)")/_util/controller/sanity/validate-modules"
if "$ansible_python" -c 'import voluptuous' 2>/dev/null && [ -f "$validate/validate.py" ]; then
  # Codes the collection's tests/sanity/ignore-2.14.txt waives, as ansible-test would.
  waived=$(awk '{split($2, a, ":"); print a[2]}' "$collection/tests/sanity/ignore-2.14.txt")
  out=$(cd "$collection" && PYTHONPATH="$validate:$src/contrib/ansible" "$ansible_python" \
    "$validate/validate.py" --format json --arg-spec --collection ansible_collections/ibsetup/ibsetup \
    --collection-version 0.1.0 plugins/modules/ibsetup.py 2>&1 | WAIVED="$waived" python3 -c '
import json, os, sys
waived = os.environ["WAIVED"].split()
for path, r in json.load(sys.stdin).items():
    for e in r["errors"] + r["warnings"]:
        if e["code"] not in waived:
            print(path, e["code"], e["msg"])' 2>&1)
  expect "validate-modules: no findings besides the waived ones" "$out" ""
else
  echo "skip validate-modules: python3-voluptuous or ansible_test missing"
fi
(cd "$work" && ansible-galaxy collection build "$collection" --output-path "$work/dist" >/dev/null &&
  ansible-galaxy collection install "$work"/dist/ibsetup-ibsetup-*.tar.gz -p "$work/installed" \
    >/dev/null 2>&1)  # it warns that the path is not on ANSIBLE_COLLECTIONS_PATH: on purpose
expect "ansible-galaxy builds and installs the collection" \
  "$(ANSIBLE_COLLECTIONS_PATH="$work/installed" ansible-doc -l ibsetup.ibsetup 2>&1 | awk '{print $1}')" \
  ibsetup.ibsetup.ibsetup
# Where cmake --install (and so the rpm and deb) puts it: PREFIX/share/ibsetup/ansible.
DESTDIR="$work/root" cmake --install "$build" >/dev/null 2>&1
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
shipped="$work/root$prefix/share/ibsetup/ansible"
expect "cmake --install ships the collection under share/ibsetup/ansible" \
  "$(ANSIBLE_COLLECTIONS_PATH="$shipped" ansible-doc -l ibsetup.ibsetup 2>&1 | awk '{print $1}')" \
  ibsetup.ibsetup.ibsetup
expect "the shipped collection has no sanity waivers or bytecode" \
  "$(find "$shipped" -name tests -o -name __pycache__ | wc -l)" 0

cat >"$work/cluster.yaml" <<'YAML'
version: 1
nodes:
  - hosts: "n[1-2]"
    interfaces:
      - {name: ib0, mtu: 2044, ipv4: 10.77.0.0/24}
      - {name: ib1, mtu: 4092, ipv4: 10.78.0.0/24}
YAML
# Refused by plan on this kernel: modes and pkey children need IPoIB, which veth is not.
cat >"$work/ipoib-only.yaml" <<'YAML'
version: 1
nodes:
  - hosts: n1
    interfaces:
      - {name: ib0, mode: datagram}
      - {parent: ib0, pkey: 0x8001}
YAML
# Invalid: refused before anything is read from the host.
printf 'version: 1\nnodes:\n  - hosts: n1\n    interfaces:\n      - {name: ib0, mtu: 99999}\n' \
  >"$work/invalid.yaml"
sed 's|ipv4: 10.78.0.0/24|ipv4: 10.78.0.0/24, ipv6: "fd00:78::/64"|' "$work/cluster.yaml" \
  >"$work/v6.yaml"

# 1. Check mode with --diff: shows the planned actions, reports changed, changes nothing.
before=$(snapshot)
out=$(play converge.yml cluster.yaml --check --diff); rc=$?
expect "check mode: playbook exits 0" "$rc" 0
expect "check mode: reports changed" "$(recap "$out")" "changed=1 unreachable=0 failed=0"
has "check mode: diff shows the MTU change" "$out" "~ ib0 mtu 1500 -> 2044"
has "check mode: diff shows the address" "$out" "+ 10.77.0.1/24 on ib0"
has "check mode: plan warnings become task warnings" "$out" \
  "[WARNING]: ibsetup: ib0: not an IPoIB interface"
expect "check mode: nothing changed (ip -j addr, ip -j link)" "$(snapshot)" "$before"
expect "check mode: no address on ib0" "$(in_ns ip -o -4 addr show ib0 | wc -l)" 0

# 2. Apply converges: MTUs, addresses and link state are there afterwards.
out=$(play converge.yml cluster.yaml --diff); rc=$?
expect "apply: playbook exits 0" "$rc" 0
expect "apply: reports changed" "$(recap "$out")" "changed=1 unreachable=0 failed=0"
has "apply: diff lists what was done" "$out" "+ 10.78.0.1/24 on ib1"
has "apply: plan warnings become task warnings" "$out" \
  "[WARNING]: ibsetup: ib0: not an IPoIB interface"
expect "apply: ib0 mtu" "$(in_ns ip -j link show ib0 | grep -o '"mtu":[0-9]*')" '"mtu":2044'
expect "apply: ib1 mtu" "$(in_ns ip -j link show ib1 | grep -o '"mtu":[0-9]*')" '"mtu":4092'
expect "apply: ib0 address" "$(in_ns ip -o -4 addr show ib0 | awk '{print $4}')" 10.77.0.1/24
expect "apply: ib1 address" "$(in_ns ip -o -4 addr show ib1 | awk '{print $4}')" 10.78.0.1/24
expect "apply: ib0 admin up" "$(in_ns ip -o link show ib0 | grep -c '[<,]UP[,>]')" 1

# 3. A second run changes nothing and says so; so does check mode now.
before=$(snapshot)
out=$(play converge.yml cluster.yaml); rc=$?
expect "second apply: playbook exits 0" "$rc" 0
expect "second apply: changed=0" "$(recap "$out")" "changed=0 unreachable=0 failed=0"
expect "second apply: host unchanged" "$(snapshot)" "$before"
out=$(play converge.yml cluster.yaml --check --diff); rc=$?
expect "check mode after apply: changed=0" "$(recap "$out")" "changed=0 unreachable=0 failed=0"
out=$(play converge.yml cluster.yaml -e firmware=off -v); rc=$?
has "firmware: off passes --no-firmware" "$out" '"--no-firmware"'

# 3b. Another apply holds the lock (flock(1) stands in for it, until told to let go): with the
#     default wait 0 the task fails at once with exit 8 naming the lock; with wait: true the
#     module runs apply --wait 300, which is let go only once that apply is seen waiting.
flock "$work/lock" sh -c "while [ ! -e '$work/release' ]; do sleep 0.1; done" &
holder=$!
for _ in $(seq 50); do flock -n "$work/lock" true 2>/dev/null || break; sleep 0.1; done
out=$(play converge.yml cluster.yaml); rc=$?
expect "lock held: the task fails" "$rc/$(recap "$out")" "2/changed=0 unreachable=0 failed=1"
has "lock held: ibsetup's message" "$out" "holds $work/lock; waited 0 s"
has "lock held: rc 8" "$out" '"rc": 8'
play converge.yml cluster.yaml -e wait=true -v >"$work/wait.out" &
waiter=$!
seen=no
for _ in $(seq 300); do
  if pgrep -f -- "apply --json .*--wait 300 .*-- $work/cluster.yaml" >/dev/null; then seen=yes; break; fi
  sleep 0.1
done
expect "wait: true runs apply with --wait 300 while the lock is held" "$seen" yes
touch "$work/release"
wait "$waiter"; rc=$?
out=$(cat "$work/wait.out")
expect "wait: true: ok once the holder lets go" "$rc/$(recap "$out")" \
  "0/changed=0 unreachable=0 failed=0"
wait "$holder"

# 4. Refusals fail the task with ibsetup's message and exit code, and change nothing.
before=$(snapshot)
out=$(play converge.yml ipoib-only.yaml); rc=$?
expect "plan refusal: playbook fails (exit 2)" "$rc" 2
expect "plan refusal: the task failed" "$(recap "$out")" "changed=0 unreachable=0 failed=1"
has "plan refusal: ibsetup's message" "$out" \
  "ib0: mode datagram asked, but setting a mode needs an IPoIB interface"
has "plan refusal: the pkey child's message" "$out" \
  "ib0.8001: cannot create pkey child: parent ib0 is not an IPoIB interface"
expect "plan refusal: nothing changed" "$(snapshot)" "$before"
out=$(play registered.yml ipoib-only.yaml -e want_rc=3 \
  -e "want_msg='the plan has errors; nothing was changed'"); rc=$?
expect "plan refusal: rc 3 and message in the registered result" "$(recap "$out")" \
  "changed=0 unreachable=0 failed=0"
out=$(play converge.yml invalid.yaml --check); rc=$?
expect "invalid profile in check mode: playbook fails" "$rc" 2
has "invalid profile: ibsetup's FILE:LINE:COLUMN message" "$out" \
  "invalid.yaml:5:26: nodes[0].interfaces[0].mtu:"
# A lock_file the real run would refuse fails check mode too (it used to pass a preview).
printf 'not a pid\n' >"$work/notalock"
out=$(play converge.yml cluster.yaml --check -e "lock=$work/notalock"); rc=$?
expect "a bad lock_file in check mode: playbook fails" "$rc" 2
has "a bad lock_file in check mode: ibsetup's message" "$out" \
  "as the lock file: it holds something other than a pid"
expect "a bad lock_file in check mode: the file kept" "$(cat "$work/notalock")" "not a pid"
out=$(play registered.yml invalid.yaml -e want_rc=3 -e "want_msg='is not a whole number from 68 to 65520'")
expect "invalid profile: rc 3 in the registered result" "$(recap "$out")" \
  "changed=0 unreachable=0 failed=0"

# 5. A rollback (the kernel refuses the IPv6 address) fails the task with exit 7 and leaves
#    the host as it was.
in_ns sysctl -q -w net.ipv6.conf.ib1.disable_ipv6=1
in_ns ip addr flush dev ib1
before=$(snapshot)
out=$(play registered.yml v6.yaml -e want_rc=7 -e "want_msg='ib1: add fd00:78::1/64: the kernel refused'")
expect "rollback: rc 7 and the refused step in the registered result" "$(recap "$out")" \
  "changed=0 unreachable=0 failed=0"
has "rollback: the rollback is in the returned report" "$out" "remove 10.78.0.1/24 from ib1: ok"
expect "rollback: host as before" "$(snapshot)" "$before"
in_ns sysctl -q -w net.ipv6.conf.ib1.disable_ipv6=0
play converge.yml cluster.yaml >/dev/null

# 6. state: checked fails the task when the node fails (the veth peers are down, so ib0 and
#    ib1 have no carrier), and passes once they are up.
out=$(play converge.yml cluster.yaml -e state=checked); rc=$?
expect "checked, no carrier: playbook fails" "$rc" 2
has "checked, no carrier: the failed check's message" "$out" \
  "ib0: not up with carrier (up, operstate lowerlayerdown, carrier off)"
out=$(play registered.yml cluster.yaml -e state=checked -e want_rc=5 \
  -e "want_msg='ibsetup check failed on n1'")
expect "checked, no carrier: rc 5 in the registered result" "$(recap "$out")" \
  "changed=0 unreachable=0 failed=0"
in_ns ip link set ib9 up
in_ns ip link set ib8 up
out=$(play converge.yml cluster.yaml -e state=checked); rc=$?
expect "checked, carrier up: passes, changed=0" "$rc/$(recap "$out")" \
  "0/changed=0 unreachable=0 failed=0"

# 7. A firmware link type set for the next boot (exit 9) is a change, not a failure. No HCA here
#    for apply to find: the real ibsetup makes the firmware report (its fake-mstconfig tier,
#    over a sysfs fixture), and a stand-in executable replays it with exit 9 as apply would.
mkdir -p "$work/fw/state"
printf 'LINK_TYPE_P1=IB\nLINK_TYPE_P2=ETH\n' >"$work/fw/state/0000:5e:00.0"
printf '#!/bin/sh\nexport FAKE_MSTCONFIG_STATE=%s FAKE_MSTCONFIG_LOG=%s\nexec python3 %s "$@"\n' \
  "$work/fw/state" "$work/fw/log" "$src/tests/firmware/fake_mstconfig" >"$work/fw/mstconfig"
chmod +x "$work/fw/mstconfig"
cat >"$work/vpi.yaml" <<'YAML'
version: 1
nodes:
  - hosts: v1
    hcas:
      - device: mlx5_0
        ports:
          - {port: 1, link_type: ib}
          - {port: 2, link_type: ib}
    interfaces:
      - {name: ib0, device: mlx5_0, port: 1}
YAML
"$ibsetup" firmware "$work/vpi.yaml" --node v1 --sysfs-root "$src/tests/fixtures/sysfs/vpi-eth-port" \
  --mstconfig "$work/fw/mstconfig" --apply --json --lock-file "$work/lock" \
  --reboot-marker "$work/fw/marker" >"$work/fw/report.json" 2>/dev/null
expect "firmware --apply on the fixture owes a reboot (exit 9)" "$?" 9
printf '#!/bin/sh\necho "$@" >%s\ncat %s\nexit 9\n' "$work/fw/argv" "$work/fw/report.json" \
  >"$work/fw/ibsetup"
chmod +x "$work/fw/ibsetup"
out=$(in_ns ansible-playbook -i localhost, "$here/reboot.yml" -e "profile=$work/vpi.yaml" \
  -e "ibsetup=$work/fw/ibsetup" 2>&1); rc=$?
expect "reboot required: task ok, changed, reboot_required, firmware report returned" \
  "$rc/$(recap "$out")" "0/changed=1 unreachable=0 failed=0"
expect "reboot required: the module ran apply" "$(cut -d' ' -f1,2 "$work/fw/argv")" "apply --json"
expect "reboot required: the profile last, after --" "$(awk '{print $(NF-1), $NF}' "$work/fw/argv")" \
  "-- $work/vpi.yaml"

# 8. Results from replayed output (the real ibsetup's where it can make it): the task's fields
#    say what stays changed, and odd output is a clean failure, not a Python traceback.
mkdir -p "$work/replay"
# stand_in NAME RC STDOUT_FILE: an ibsetup that writes its argv to NAME.argv, one per line,
# then prints STDOUT_FILE and exits RC.
stand_in() {
  printf '#!/bin/sh\nprintf "%%s\\n" "$@" >"%s"\ncat "%s"\nexit %s\n' \
    "$work/replay/$1.argv" "$3" "$2" >"$work/replay/$1"
  chmod +x "$work/replay/$1"
}
replay() {  # replay NAME [ansible-playbook options...]: runs replay.yml with stand-in NAME
  local name=$1
  shift
  ansible-playbook -i localhost, "$here/replay.yml" -e "ibsetup=$work/replay/$name" \
    -e "result_file=$work/replay/$name.json" "$@" >"$work/replay/$name.log" 2>&1
}
field() {  # field NAME EXPRESSION: a Python expression over the registered result r
  python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(eval(sys.argv[2], {"r": r}))' "$work/replay/$1.json" "$2" 2>&1
}
# Values reach ibsetup as given: no ~ or $VAR expansion, and a profile named like an option
# comes after -- (ibsetup reads it as a path, see cli_test.sh).
printf '{"host":"n1","backend":"netlink","ok":true,"changes":0,"done":[],"rollback":[],"not_converged":[],"failure":null}\n' \
  >"$work/replay/noop.out"
stand_in noop 0 "$work/replay/noop.out"
replay noop -e "profile=-cluster.yaml" -e 'node=~root$HOME'
expect "argv: node as given, profile after --" \
  "$(grep -A1 -- --node "$work/replay/noop.argv" | tr '\n' ' ')$(tail -2 "$work/replay/noop.argv" | tr '\n' ' ')" \
  '--node ~root$HOME -- -cluster.yaml '
expect "argv: a no-op is ok and unchanged" "$(field noop '(r["failed"], r["changed"])')" "(False, False)"
# A firmware step that set one HCA and failed on the next (exit 4): the set link type stays,
# so the task is changed, a reboot is owed, and the failure is in msg.
mkdir -p "$work/fw2/state"
printf 'LINK_TYPE_P1=ETH\n' >"$work/fw2/state/0000:3b:00.0"
printf 'LINK_TYPE_P1=ETH\n' >"$work/fw2/state/0000:86:00.0"
printf '#!/bin/sh\nexport FAKE_MSTCONFIG_STATE=%s FAKE_MSTCONFIG_LOG=%s FAKE_MSTCONFIG_FAIL=set:0000:86:00.0\nexec python3 %s "$@"\n' \
  "$work/fw2/state" "$work/fw2/log" "$src/tests/firmware/fake_mstconfig" >"$work/fw2/mstconfig"
chmod +x "$work/fw2/mstconfig"
cat >"$work/two.yaml" <<'YAML'
version: 1
nodes:
  - hosts: n1
    hcas:
      - device: mlx5_0
        ports: [{port: 1, link_type: ib}]
      - device: mlx5_1
        ports: [{port: 1, link_type: ib}]
    interfaces:
      - {name: ib0, device: mlx5_0, port: 1}
YAML
"$ibsetup" firmware "$work/two.yaml" --node n1 --sysfs-root "$src/tests/fixtures/sysfs/hdr-2hca" \
  --mstconfig "$work/fw2/mstconfig" --apply --json --lock-file "$work/lock" \
  --reboot-marker "$work/fw2/marker" >"$work/replay/midway.out" 2>/dev/null
expect "firmware --apply that fails on the second HCA exits 4" "$?" 4
stand_in midway 4 "$work/replay/midway.out"
replay midway -e "profile=$work/two.yaml"
expect "firmware failed midway: failed, changed, reboot required" \
  "$(field midway '(r["failed"], r["changed"], r["reboot_required"], r["rc"])')" "(True, True, True, 4)"
expect "firmware failed midway: the failure in msg" \
  "$(field midway '"mstconfig cannot open the device 0000:86:00.0" in r["msg"]')" "True"
# Exit 0 without a report says nothing of what apply did.
printf 'Usage: ibsetup apply [OPTIONS] PROFILE\n' >"$work/replay/help.out"
stand_in help 0 "$work/replay/help.out"
replay help -e "profile=$work/two.yaml"
expect "exit 0 without a report fails the task" \
  "$(field help '(r["failed"], "no JSON report on standard output" in r["msg"])')" "(True, True)"
# A rollback step that failed: the task says changed and names the step.
printf '{"host":"n1","backend":"netlink","ok":false,"changes":0,"done":["~ ib0 mtu 1500 -> 2044"],"rollback":["ib0 mtu back to 1500: FAILED: netlink: No such device"],"not_converged":[],"failure":"ib1: add fd00:78::1/64: the kernel refused"}\n' \
  >"$work/replay/rbfail.out"
stand_in rbfail 7 "$work/replay/rbfail.out"
replay rbfail -e "profile=$work/two.yaml"
expect "a failed rollback step: failed, changed, the step in msg" \
  "$(field rbfail '(r["failed"], r["changed"], "rollback: ib0 mtu back to 1500: FAILED" in r["msg"])')" \
  "(True, True, True)"
# The same with the NetworkManager backend, whose rollback says "... failed:" (src/nm/live.cpp).
printf '{"host":"n1","backend":"networkmanager","ok":false,"changes":0,"done":["update ibsetup-ib0"],"unchanged":[],"foreign":[],"rollback":["roll back checkpoint /org/freedesktop/NetworkManager/Checkpoint/1 ... failed: timed out"],"not_converged":[],"checkpoint":"/org/freedesktop/NetworkManager/Checkpoint/1","failure":"activate ibsetup-ib0: timed out"}\n' \
  >"$work/replay/nmfail.out"
stand_in nmfail 7 "$work/replay/nmfail.out"
replay nmfail -e "profile=$work/two.yaml"
expect "a failed NetworkManager rollback: failed, changed, the step in msg" \
  "$(field nmfail '(r["failed"], r["changed"], "rollback: roll back checkpoint" in r["msg"])')" \
  "(True, True, True)"
# The report's rollback_failed list decides when it is there: a step whose words the module's
# own rule does not know is still a failure, and a listed-as-ok report is not.
printf '{"host":"n1","backend":"netlink","ok":false,"changes":0,"done":["~ ib0 mtu 1500 -> 2044"],"rollback":["ib0 mtu back to 1500: refused"],"rollback_failed":["ib0 mtu back to 1500: refused"],"not_converged":[],"failure":"ib1: add fd00:78::1/64: the kernel refused"}\n' \
  >"$work/replay/rblist.out"
stand_in rblist 7 "$work/replay/rblist.out"
replay rblist -e "profile=$work/two.yaml"
expect "rollback_failed lists the step: failed, changed, the step in msg" \
  "$(field rblist '(r["failed"], r["changed"], "rollback: ib0 mtu back to 1500: refused" in r["msg"])')" \
  "(True, True, True)"
# A NetworkManager profile id may hold "... failed:" (anyone names them): ibsetup's list says the
# undo worked, and the module's own text rule, which would say failed, is not used.
printf '{"host":"n1","backend":"networkmanager","ok":false,"changes":0,"done":["update ibsetup-ib0"],"unchanged":[],"foreign":[],"rollback":["remove x ... failed: y ... ok"],"rollback_failed":[],"not_converged":[],"checkpoint":"/org/freedesktop/NetworkManager/Checkpoint/1","failure":"activate ibsetup-ib0: timed out"}\n' \
  >"$work/replay/rbok.out"
stand_in rbok 7 "$work/replay/rbok.out"
replay rbok -e "profile=$work/two.yaml"
expect "rollback_failed empty: failed, not changed, no rollback line in msg" \
  "$(field rbok '(r["failed"], r["changed"], "rollback: " in r["msg"])')" "(True, False, False)"
# Killed by SIGKILL (the OOM killer, a cgroup's end): no rollback ran and no report came, so
# the task is changed (it said unchanged while the MTUs had been set) and says the signal.
printf '#!/bin/sh\nkill -KILL $$\n' >"$work/replay/killed"
chmod +x "$work/replay/killed"
replay killed -e "profile=$work/two.yaml"
expect "apply killed by SIGKILL: failed, changed, the signal and no rollback in msg" \
  "$(field killed '(r["failed"], r["changed"], "(killed by SIGKILL)" in r["msg"], "no rollback ran" in r["msg"])')" \
  "(True, True, True, True)"
# Ended by SIGTERM after its last step (an async timeout): ibsetup printed its whole report,
# then ended by the signal. Failed and changed, but not "may be half-applied".
printf '{"host":"n1","backend":"netlink","ok":true,"changes":1,"done":["~ ib0 mtu 1500 -> 2044"],"rollback":[],"rollback_failed":[],"not_converged":[],"failure":null}\n' \
  >"$work/replay/late.out"
printf '#!/bin/sh\ncat "%s"\necho "ibsetup: SIGTERM received after apply'"'"'s last step; its changes stay" >&2\nkill -TERM $$\n' \
  "$work/replay/late.out" >"$work/replay/late"
chmod +x "$work/replay/late"
replay late -e "profile=$work/two.yaml"
expect "apply ended by SIGTERM after its last step: failed, changed, not half-applied" \
  "$(field late '(r["failed"], r["changed"], "(killed by SIGTERM)" in r["msg"], "every change was made and verified" in r["msg"], "half-applied" in r["msg"])')" \
  "(True, True, True, True, False)"
# An error line is an error even when the path it quotes holds "warning:" (it was dropped, and
# the task failed with "no message").
printf '#!/bin/sh\necho "ibsetup: error: /srv/warning: staging/cluster.yaml: cannot open the profile: No such file or directory" >&2\nexit 4\n' \
  >"$work/replay/warnpath"
chmod +x "$work/replay/warnpath"
replay warnpath -e "profile=$work/two.yaml"
expect "an error quoting 'warning:' is in msg, not an Ansible warning" \
  "$(field warnpath '("cannot open the profile" in r["msg"], "no message" in r["msg"], any("cannot open" in w for w in r.get("warnings", [])))')" \
  "(True, False, False)"
# Bytes that are not UTF-8 in a warning, and JSON nested past Python's stack: a clean result,
# not a MODULE FAILURE traceback (syslog could not encode the warning; json recursed).
printf '#!/bin/sh\nprintf "ibsetup: warning: bad \\377\\376 bytes\\n" >&2\npython3 -c "print(\\"[\\" * 200000)"\nexit 3\n' \
  >"$work/replay/bytes"
chmod +x "$work/replay/bytes"
replay bytes -e "profile=$work/two.yaml"
expect "non-UTF-8 warning, deep JSON: a clean failure" \
  "$(field bytes '(r["failed"], r["rc"], "MODULE FAILURE" in r["msg"], any("bad" in w for w in r.get("warnings", [])))')" \
  "(True, 3, False, True)"
# JSON of the wrong shapes: clean failures or results, never a MODULE FAILURE traceback.
printf '{"host":"n1","backend":"netlink","errors":[{"x":1}],"done":[{"y":2}],"rollback":"z","failure":"f"}\n' \
  >"$work/replay/shapes.out"
stand_in shapes 3 "$work/replay/shapes.out"
replay shapes -e "profile=$work/two.yaml"
expect "odd JSON shapes: a clean failure with rc 3" \
  "$(field shapes '(r["failed"], r["rc"], "MODULE FAILURE" in r["msg"], "{\"x\": 1}" in r["msg"])')" \
  "(True, 3, False, True)"
printf '{"host":"n1","actions":[{"text":null},"x",{"op":"set_mtu"}],"errors":[],"warnings":[]}\n' \
  >"$work/replay/plan.out"
stand_in plan 0 "$work/replay/plan.out"
replay plan -e "profile=$work/two.yaml" --check
expect "odd plan actions in check mode: changed, no traceback" \
  "$(field plan '(r["failed"], r["changed"], r["diff"]["prepared"].count("\n"))')" "(False, True, 3)"
# Check mode is apply's dry run with the task's backend: with NetworkManager, a node whose
# kernel state is in order but whose profiles are not active is changed (the would-be steps
# in the diff). (Output of tests/nm's dry runs.) A link type to set comes first, and then the
# real run stops for the reboot (exit 9): check mode says reboot_required, and the interfaces'
# steps are listed as after the reboot.
printf '{"host":"n1","declared":true,"queried":true,"devices":[{"device":"mlx5_0","pci":"0000:3b:00.0","ports":[{"port":1,"desired":"ib","next_boot":"eth","running":"Ethernet","change":true,"reboot_pending":false}]}],"changes":1,"reboot_required":false,"applied":false,"done":[],"failure":null,"warnings":[]}\n{"host":"n1","backend":"networkmanager","ok":true,"changes":0,"done":["would update ibsetup-ib0 (infiniband.mtu)","would activate ibsetup-ib0"],"unchanged":[],"foreign":[],"rollback":[],"not_converged":[],"checkpoint":"","failure":null}\n' \
  >"$work/replay/nmdry.out"
stand_in nmdry 0 "$work/replay/nmdry.out"
replay nmdry -e "profile=$work/two.yaml" -e backend=networkmanager --check
expect "check mode runs apply --dry-run with the backend" \
  "$(head -5 "$work/replay/nmdry.argv" | tr '\n' ' ')" "apply --dry-run --json --backend networkmanager "
expect "NetworkManager check mode: changed, firmware then profiles after the reboot" \
  "$(field nmdry '(r["failed"], r["changed"], r["reboot_required"], r["diff"]["prepared"].splitlines(), r["report"]["backend"])')" \
  "(False, True, True, ['plan for n1: 1 changes, then a reboot; the interfaces wait for it', '  firmware mlx5_0 port 1: next boot eth -> ib', '  after the reboot: would update ibsetup-ib0 (infiniband.mtu)', '  after the reboot: would activate ibsetup-ib0'], 'networkmanager')"
# A link type an earlier run set, waiting for the reboot: the real run changes nothing and
# exits 9, so check mode is not changed, and says reboot_required.
sed 's/"next_boot":"eth"/"next_boot":"ib"/; s/"change":true,"reboot_pending":false/"change":false,"reboot_pending":true/; s/"changes":1,/"changes":0,/' \
  "$work/replay/nmdry.out" >"$work/replay/pending.out"
stand_in pending 0 "$work/replay/pending.out"
replay pending -e "profile=$work/two.yaml" -e backend=networkmanager --check
expect "check mode, a reboot pending from an earlier run: not changed, reboot_required" \
  "$(field pending '(r["failed"], r["changed"], r["reboot_required"], len(r["diff"]["prepared"].splitlines()))')" \
  "(False, False, True, 3)"
# Link types the real run sets and goes on (ibsetup decides after the set): back to the type
# that runs (undoing an earlier run's pending change), or vpi. Changed, no reboot, the
# interfaces' steps as they are.
sed 's/"desired":"ib"/"desired":"eth"/; s/"next_boot":"eth"/"next_boot":"ib"/; s/"reboot_pending":false/"reboot_pending":true/' \
  "$work/replay/nmdry.out" >"$work/replay/undo.out"
sed 's/"desired":"ib"/"desired":"vpi"/' "$work/replay/nmdry.out" >"$work/replay/vpi.out"
for fw in undo vpi; do
  stand_in "$fw" 0 "$work/replay/$fw.out"
  replay "$fw" -e "profile=$work/two.yaml" -e backend=networkmanager --check
  expect "check mode, a link type set with no reboot owed ($fw): changed, no reboot" \
    "$(field "$fw" '(r["failed"], r["changed"], r["reboot_required"], "after the reboot" in r["diff"]["prepared"], len(r["diff"]["prepared"].splitlines()))')" \
    "(False, True, False, False, 4)"
done
printf '{"host":"n1","backend":"networkmanager","ok":true,"changes":0,"done":[],"unchanged":["ibsetup-ib0"],"foreign":[],"rollback":[],"not_converged":[],"checkpoint":"","failure":null}\n' \
  >"$work/replay/nmsame.out"
stand_in nmsame 0 "$work/replay/nmsame.out"
replay nmsame -e "profile=$work/two.yaml" -e backend=networkmanager --check
expect "NetworkManager check mode, nothing to do: not changed, no reboot" \
  "$(field nmsame '(r["failed"], r["changed"], r["reboot_required"])')" "(False, False, False)"
# state=checked: a failed check's message quotes sysfs and peers; decoded by json.loads, its
# control characters would reach msg raw (a forged line, a cleared terminal).
printf '{"host":"n1","ok":false,"checks":[{"id":"ip.peer","subject":"cn002","status":"fail","message":"cn002: \\u001b[2J ALL OK\\nfake line"}]}\n' \
  >"$work/replay/hostile.out"
stand_in hostile 5 "$work/replay/hostile.out"
replay hostile -e "profile=$work/two.yaml" -e state=checked
expect "state=checked: control characters in msg escaped" \
  "$(field hostile '(r["failed"], "\n" in r["msg"], "\x1b" in r["msg"], "cn002: \\x1b[2J ALL OK\\x0afake line" in r["msg"])')" \
  "(True, False, False, True)"
# A missing executable is named, with no rc that would read as ibsetup's own exit codes.
ansible-playbook -i localhost, "$here/replay.yml" -e "ibsetup=$work/replay/no-such-ibsetup" \
  -e "result_file=$work/replay/missing.json" -e "profile=$work/two.yaml" >"$work/replay/missing.log" 2>&1
expect "missing executable: failed, named, no rc" \
  "$(field missing '(r["failed"], "no-such-ibsetup is not an executable file" in r["msg"], "rc" in r)')" \
  "(True, True, False)"
# wait is checked in check mode as in a real run.
replay plan -e "profile=$work/two.yaml" -e wait=abc --check
expect "wait: abc fails in check mode too" \
  "$(field plan '(r["failed"], "wait:" in r["msg"])')" "(True, True)"

expect "Ansible's home is the test's temp directory" \
  "$(find "$work/home" -maxdepth 1 -name .ansible | wc -l)" 1

echo "ansible: $pass passed, $fail failed"
[ "$fail" = 0 ]
