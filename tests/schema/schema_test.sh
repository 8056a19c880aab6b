#!/bin/bash
# Every --json output ibsetup can produce without root, from the repository's fixtures, against
# its JSON Schema in docs/schema/ (tests/schema/validate_json.py, python3-jsonschema): validate,
# show, inspect, plan, firmware (fake mstconfig), apply --dry-run, render, check, report and
# partitions. Then the schemas' strictness: for each schema, real outputs changed by one member
# (an unknown member, a wrong type, a missing member, a value outside the vocabulary) must be
# rejected. apply's reports and partitions --verify need root, NetworkManager or a fabric: the
# tests that produce them validate them too (scripts/netns_apply_test.sh,
# nm/live_apply_test.sh, fabric/cli_test.py). Exit 77 (skipped) without python3 jsonschema.
# Usage: schema_test.sh IBSETUP SOURCE_DIR
set -u
bin=$1
src=$2
if ! python3 -c 'from jsonschema import Draft7Validator' 2>/dev/null; then
  echo "SKIP: python3 jsonschema with Draft7Validator (3.0 or later) is not installed"
  exit 77
fi
# shellcheck source=../scripts/expect.sh
source "$src/tests/scripts/expect.sh"
schemas=$src/docs/schema
validator=$src/tests/schema/validate_json.py
fixtures=$src/tests/fixtures/sysfs
checks=$src/tests/data/check/cluster.yaml
work=$(mktemp -d)
trap 'if [ "$fail" = 0 ]; then rm -rf "$work"; else echo "kept $work"; fi' EXIT
declare -A validated=()

# conforms NAME SCHEMA FILE: FILE (one document, or one per line) must be valid against SCHEMA;
# rejected NAME SCHEMA FILE: must be invalid, with an error naming a JSON path. Both are queued
# and judged by judge, one validate_json.py run per schema (an interpreter start is half a
# second; the outputs are hundreds).
conforms() { printf '%s\t%s\n' "$1" "$3" >>"$work/conforms.$2"; }
rejected() { printf '%s\t%s\n' "$1" "$3" >>"$work/rejected.$2"; }
judge() {
  local q schema out name file errors kind rc
  for q in "$work"/conforms.* "$work"/rejected.*; do
    [ -f "$q" ] || continue
    kind=${q##*/}
    kind=${kind%%.*}
    schema=${q##*.}
    out=$(cut -f2 "$q" | tr '\n' '\0' | xargs -0 python3 "$validator" "$schemas/$schema.schema.json" 2>&1)
    rc=$?
    # xargs says 0 when every run found its documents valid and 123 when a run said 1
    # (invalid) or 2 (usage, unreadable); a validator that crashed (Python's own exit 1)
    # must not pass a queue of valid outputs, nor one of mutated outputs on the errors it
    # printed before it died: validate_json.py turns an unexpected exception into exit 3.
    if [ "$kind" = conforms ]; then
      expect "$schema: the validator found every queued output valid" "$rc" 0
    else
      expect "$schema: the validator found the mutated outputs invalid" "$rc" 123
      expect "$schema: the validator did not fail" "$(grep -c 'validate_json.py: internal error' <<<"$out")" 0
    fi
    while IFS=$'\t' read -r name file; do
      errors=$(awk -v f="$file" 'index($0, f ":") == 1 || index($0, f "[document ") == 1 ||
        index($0, "validate_json.py: " f ":") == 1' <<<"$out")
      if [ "$kind" = conforms ]; then
        expect "$schema: $name" "$errors" ""
        validated[$schema]=$((${validated[$schema]:-0} + 1))
      else
        grep -q ': \$' <<<"$errors" && errors=rejected
        expect "$schema rejects $name" "$errors" rejected
      fi
    done <"$q"
  done
}
# run NAME WANT SCHEMA ARGS...: runs ibsetup ARGS (standard output to $work/NAME.json), expects
# exit status WANT (- for any) and the output to conform to SCHEMA.
run() {
  local name=$1 want=$2 schema=$3 code
  shift 3
  "$bin" "$@" >"$work/$name.json" 2>"$work/$name.err"
  code=$?
  [ "$want" = - ] || expect "$schema: $name: exit $want" "$code" "$want"
  conforms "$name" "$schema" "$work/$name.json"
}
# mutate FILE NAME PYTHON: $work/NAME.json is FILE's document after PYTHON has changed `d`.
mutate() {
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))' "$1" "$work/$2.json" "$3"
}

# The schemas themselves: valid draft-07 schemas, $id the file's name, a title and a
# description, and every object closed (additionalProperties false, or a schema for them).
out=$(python3 - "$schemas"/*.schema.json <<'EOF' 2>&1
import json, sys, jsonschema
def objects(node, path):
    if isinstance(node, dict):
        if node.get("type") == "object" or (isinstance(node.get("type"), list) and "object" in node["type"]):
            if "additionalProperties" not in node:
                yield path
        for k, v in node.items():
            yield from objects(v, path + "/" + k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from objects(v, "%s/%d" % (path, i))
for f in sys.argv[1:]:
    s = json.load(open(f))
    jsonschema.Draft7Validator.check_schema(s)
    name = f.rsplit("/", 1)[1]
    assert s["$schema"] == "http://json-schema.org/draft-07/schema#", (name, s["$schema"])
    assert s["$id"] == name, (name, s["$id"])
    assert s["title"] and s["description"], name
    for p in objects(s, "#"):
        print("%s: %s: an object without additionalProperties" % (name, p))
    print(name)
# apply's plan is plan.schema.json's object, copied (a schema file refers to no other).
a = json.load(open(sys.argv[1].rsplit("/", 1)[0] + "/apply.schema.json"))
p = json.load(open(sys.argv[1].rsplit("/", 1)[0] + "/plan.schema.json"))
for k in ("type", "additionalProperties", "required", "properties"):
    if a["definitions"]["plan"][k] != p[k]:
        print("apply.schema.json: definitions/plan/%s differs from plan.schema.json" % k)
for k in p["definitions"]:
    if a["definitions"][k] != p["definitions"][k]:
        print("apply.schema.json: definitions/%s differs from plan.schema.json" % k)
EOF
)
expect "schemas: valid draft-07, named, described and closed" "$out" \
  "$(cd "$schemas" && ls -- *.schema.json)"
# validate_json.py's own contract: usage 2, invalid JSON 1, valid 0.
python3 "$validator" >/dev/null 2>&1
expect "validate_json.py: no arguments: exit 2" "$?" 2
python3 "$validator" "$schemas/check.schema.json" "$work/absent" >/dev/null 2>&1
expect "validate_json.py: unreadable file: exit 2" "$?" 2
echo '{"host":' >"$work/broken.json"
python3 "$validator" "$schemas/check.schema.json" "$work/broken.json" >/dev/null 2>&1
expect "validate_json.py: not JSON: exit 1" "$?" 1
# A failure of the validator itself (here Python's RecursionError on 100,000 nested arrays) is
# exit 3, never the 1 of an invalid document or the 0 of a valid one.
head -c 100000 /dev/zero | tr '\0' '[' >"$work/deep.json"
python3 "$validator" "$schemas/check.schema.json" "$work/deep.json" >/dev/null 2>&1
expect "validate_json.py: its own failure: exit 3" "$?" 3

# --- validate: every example profile (valid), every invalid profile, an unreadable file.
for p in "$src"/profiles/*.yaml; do
  run "validate-$(basename "$p" .yaml)" 0 validate validate "$p" --json
done
for p in "$src"/tests/data/profile/invalid/*.yaml; do
  run "validate-invalid-$(basename "$p" .yaml)" 3 validate validate "$p" --json
done
run validate-unreadable 4 validate validate "$work/no-such-profile.yaml" --json

# --- show: the first and last host of every example profile, the check cluster's hdr01.
for p in "$src"/profiles/*.yaml; do
  hosts=$("$bin" hosts "$p" 2>/dev/null)
  for h in "$(head -1 <<<"$hosts")" "$(tail -1 <<<"$hosts")"; do
    run "show-$(basename "$p" .yaml)-$h" 0 show show "$p" --node "$h" --json -q
  done
done
run show-check-hdr01 0 show show "$checks" --node hdr01 --json

# --- inspect: every sysfs fixture (odd-tree has warnings), and this machine as it is.
for f in "$fixtures"/*/; do
  run "inspect-$(basename "$f")" 0 inspect inspect --sysfs-root "$f" --json
done
expect "inspect: odd-tree has warnings" \
  "$(python3 -c 'import json,sys; print(len(json.load(sys.stdin)["warnings"]) > 0)' \
    <"$work/inspect-odd-tree.json")" True
run inspect-live 0 inspect inspect --json
conforms "the saved fixture inventory" inspect "$src/tests/fixtures/inspect-hdr-2hca.json"

# --- plan: the check cluster on its healthy tree and on broken ones, a plan with every kind of
# change (and errors), --prune.
run plan-hdr01 0 plan plan "$checks" --node hdr01 --sysfs-root "$fixtures/hdr-2hca" --no-firmware --json
for f in no-netdev pkey-child mlx4-connectx3 vpi-eth-port; do
  run "plan-hdr01-on-$f" - plan plan "$checks" --node hdr01 --sysfs-root "$fixtures/$f" --no-firmware --json -q
done
cat >"$work/children.yaml" <<'EOF'
version: 1
defaults:
  mode: connected
nodes:
  - hosts: "pc01"
    interfaces:
      - {name: ib0, device: mlx5_0, port: 1, mtu: 65520, ipv4: 10.0.0.0/24}
      - {parent: ib0, pkey: 0x8005, mode: datagram, mtu: 2044, ipv4: 10.5.0.0/24}
EOF
run plan-children 3 plan plan "$work/children.yaml" --node pc01 --sysfs-root "$fixtures/pkey-child" --prune --json -q
cat >"$work/mode.yaml" <<'EOF'
version: 1
nodes:
  - hosts: "m01"
    interfaces:
      - {name: ib0, mode: datagram, mtu: 2044, ipv4: 10.0.0.0/24}
EOF
run plan-mode 0 plan plan "$work/mode.yaml" --node m01 --sysfs-root "$fixtures/mlx4-connectx3" --json
expect "plan: every kind of action was seen" "$(cat "$work"/plan-*.json | python3 -c '
import json, sys
print(" ".join(sorted({a["op"] for line in sys.stdin for a in json.loads(line)["actions"]})))')" \
  "add_address create_child delete_child set_mode set_mtu set_up"

# --- firmware, with the fake mstconfig of tests/firmware (its settings baked into a wrapper,
# as firmware_test.sh does): queried, applied, a reboot owed, nothing declared, a failure.
fake() {
  {
    echo '#!/bin/sh'
    echo "export FAKE_MSTCONFIG_STATE='$work/state' FAKE_MSTCONFIG_LOG='$work/mst.log'"
    for kv in "$@"; do echo "export $kv"; done
    echo "exec python3 '$src/tests/firmware/fake_mstconfig' \"\$@\""
  } >"$work/mstconfig"
  chmod +x "$work/mstconfig"
  rm -rf "$work/state"
  mkdir -p "$work/state"
}
cp "$src/tests/data/firmware/two.yaml" "$src/tests/data/firmware/vpi.yaml" "$work/"
fw=(--mstconfig "$work/mstconfig" --lock-file "$work/lock" --reboot-marker "$work/reboot-required")
two=("$work/two.yaml" --node n1 --sysfs-root "$fixtures/hdr-2hca")
vpi=("$work/vpi.yaml" --node v1 --sysfs-root "$fixtures/vpi-eth-port")
fake
printf 'LINK_TYPE_P1=ETH\n' >"$work/state/0000:3b:00.0"
printf 'LINK_TYPE_P1=IB\n' >"$work/state/0000:86:00.0"
run firmware-show 0 firmware firmware "${two[@]}" "${fw[@]}" --json
run firmware-apply 0 firmware firmware "${two[@]}" "${fw[@]}" --apply --json
run firmware-reapply 0 firmware firmware "${two[@]}" "${fw[@]}" --apply --json
fake
printf 'LINK_TYPE_P1=IB\nLINK_TYPE_P2=ETH\n' >"$work/state/0000:5e:00.0"
run firmware-reboot 9 firmware firmware "${vpi[@]}" "${fw[@]}" --apply --json
run firmware-pending 0 firmware firmware "${vpi[@]}" "${fw[@]}" --json
cp "$src/tests/data/firmware/none.yaml" "$work/"
run firmware-none 0 firmware firmware "$work/none.yaml" --node n1 --sysfs-root "$fixtures/hdr-2hca" \
  "${fw[@]}" --json
# A plan --json with the firmware warnings among its own.
run plan-firmware - plan plan "${vpi[@]}" --mstconfig "$work/mstconfig" --json -q
fake FAKE_MSTCONFIG_FAIL=set:0000:3b:00.0
printf 'LINK_TYPE_P1=ETH\n' >"$work/state/0000:3b:00.0"
printf 'LINK_TYPE_P1=IB\n' >"$work/state/0000:86:00.0"
run firmware-failed - firmware firmware "${two[@]}" "${fw[@]}" --apply --json
expect "firmware: four reports of --apply" "$(grep -l '"applied":true' "$work"/firmware-*.json | wc -l)" 4

# --- apply --dry-run --json on this machine (netlink: the plan, here with errors: the check
# cluster's interfaces are not on this host), after the firmware step's object when link types
# are declared; apply --offline --json prints render's object.
"$bin" apply "$checks" --node hdr01 --dry-run --json --backend netlink "${fw[@]}" \
  >"$work/apply-dry.out" 2>"$work/apply-dry.err"
expect "apply --dry-run --json: two lines" "$(wc -l <"$work/apply-dry.out")" 2
head -1 "$work/apply-dry.out" >"$work/apply-dry-firmware.json"
tail -1 "$work/apply-dry.out" >"$work/apply-dry.json"
conforms "apply --dry-run's firmware line" firmware "$work/apply-dry-firmware.json"
conforms "apply --dry-run's plan" apply "$work/apply-dry.json"
run apply-dry-no-firmware - apply apply "$checks" --node hdr01 --dry-run --json --backend netlink --no-firmware
conforms "apply --dry-run's plan is plan's object" plan "$work/apply-dry-no-firmware.json"
mkdir -p "$work/offline"
run apply-offline 0 render apply "$checks" --node hdr01 --offline --root "$work/offline" --json -q

# --- render: each format, a dry run before and after the write, and the write itself.
inventory() {
  "$bin" inspect --json --sysfs-root "$fixtures/$2" | sed "s/\"host\":\"[^\"]*\"/\"host\":\"$1\"/"
}
inventory hdr01 hdr-2hca >"$work/hdr01.inv"
for format in nm-keyfile ifcfg hosts udev; do
  root=$work/root-$format
  mkdir -p "$root"
  args=(render "$checks" --node hdr01 --root "$root" --format "$format" --templates "$src/templates")
  [ "$format" = udev ] && args+=(--inventories "$work/hdr01.inv")
  run "render-$format-dry" 0 render "${args[@]}" --dry-run --json
  run "render-$format" 0 render "${args[@]}" --json
  run "render-$format-again" 0 render "${args[@]}" --json
  run "render-$format-dry-again" 0 render "${args[@]}" --dry-run --json
done
sed 's/mtu: 4092/mtu: 2044/' "$checks" >"$work/cluster-2044.yaml"
run render-update-dry 0 render render "$work/cluster-2044.yaml" --node hdr01 \
  --root "$work/root-nm-keyfile" --dry-run --json
run render-update 0 render render "$work/cluster-2044.yaml" --node hdr01 \
  --root "$work/root-nm-keyfile" --json
expect "render: every result was seen" "$(cat "$work"/render-*.json "$work/apply-offline.json" |
  python3 -c '
import json, sys
print(" / ".join(sorted({f["result"] for line in sys.stdin for f in json.loads(line)["files"]})))')" \
  "created / unchanged / updated / would create / would update"

# --- check: every sysfs fixture judged as hdr01 (healthy, and failing), --format json,
# --warn and --disable, a saved inventory, and the fleet tests' canned results.
for f in "$fixtures"/*/; do
  run "check-$(basename "$f")" - check check "$checks" --node hdr01 --sysfs-root "$f" --json -q
done
expect "check: hdr-2hca passes" "$(grep -c '"ok":true' "$work/check-hdr-2hca.json")" 1
run check-format-json 5 check check "$checks" --node hdr01 --sysfs-root "$fixtures/no-sm" --format json -q
run check-warn-disable - check check "$checks" --node hdr01 --sysfs-root "$fixtures/no-sm" --json -q \
  --warn port --disable pcie
inventory hdr01 hdr-2hca >"$work/hdr01-plain.json"
run check-inventory 0 check check "$checks" --node hdr01 --inventory "$work/hdr01-plain.json" --json -q
for f in "$src"/tests/fleet/hosts/*.json; do
  conforms "the fleet tests' canned $(basename "$f")" check "$f"
done

# --- report: real check results as clush prints them, the fleet tests' canned ones with
# garbage and a host that does not answer, --profile and --expect.
for f in "$fixtures"/*/; do
  h=$(basename "$f")
  "$bin" check "$checks" --node hdr01 --sysfs-root "$f" --json -q 2>&1 | sed "s/\"host\":\"hdr01\"/\"host\":\"$h\"/; s/^/$h: /"
done >"$work/fleet-real.txt"
run report-real - report report "$work/fleet-real.txt" --json
{
  for f in "$src"/tests/fleet/hosts/*.json; do
    h=$(basename "$f" .json)
    sed "s/^/$h: /" "$f"
    echo
  done
  sed 's/^/node11: /' "$src/tests/fleet/hosts/node11.garbage"
  echo "clush: node12: command timeout"
  echo "a line naming no host"
} >"$work/fleet-canned.txt"
run report-canned - report report "$work/fleet-canned.txt" --profile "$src/tests/fleet/cluster.yaml" --json
run report-expect - report report --expect 'node[01-16]' --format json <"$work/fleet-canned.txt"
run report-empty - report report --expect 'node[01-02]' --json </dev/null
expect "report: invalid and no_answer problems were seen" "$(python3 -c '
import json, sys
print(" ".join(sorted({p["outcome"] for p in json.load(open(sys.argv[1]))["problems"]})))' \
  "$work/report-canned.json")" "invalid no_answer"

# --- partitions: the inventories of four fixtures (partitions_cli_test.sh's cluster),
# complete, with a member missing, and with --allow-missing.
hosts=(hdr-2hca pkey-child no-sm mlx4-connectx3)
for h in "${hosts[@]}"; do printf 'n-%s: ' "$h"; inventory "n-$h" "$h"; done >"$work/all.txt"
# A member with no inventory (n-absent), in a node group and in the partition.
sed -e 's/^\(  - hosts: n-no-sm,n-mlx4-connectx3\)$/\1,n-absent/' \
  -e 's/^\(      limited: n-no-sm\)$/\1,n-absent/' "$src/tests/data/partitions/cluster.yaml" >"$work/c.yaml"
expect "partitions: the profile names n-absent twice" "$(grep -c 'n-absent$' "$work/c.yaml")" 2
run partitions-missing 3 partitions partitions "$work/c.yaml" --inventories - --json <"$work/all.txt"
run partitions-allow-missing 0 partitions partitions "$work/c.yaml" --inventories - --json --allow-missing <"$work/all.txt"
sed -i 's/,n-absent//g' "$work/c.yaml"
run partitions-complete 0 partitions partitions "$work/c.yaml" --inventories - --json <"$work/all.txt"
echo "n-stray: not json" >>"$work/all.txt"
run partitions-problems - partitions partitions "$work/c.yaml" --inventories - --json <"$work/all.txt"

# --- strictness: one real output of each schema, changed by one member, is rejected.
neg() {  # neg SCHEMA SOURCE NAME PYTHON
  mutate "$work/$2.json" "neg-$1-$3" "$4"
  rejected "$3" "$1" "$work/neg-$1-$3.json"
}
neg validate validate-lab unknown-member 'd["schema_version"] = 1'
neg validate validate-invalid-backend-mixed line-as-string 'd["errors"][0]["line"] = str(d["errors"][0]["line"])'
neg validate validate-lab count-negative 'd["hosts"] = -1'
neg validate validate-invalid-backend-mixed ok-with-errors 'd["ok"] = True'
neg validate validate-lab not-ok-without-errors 'd["ok"] = False'
neg validate validate-invalid-backend-mixed counts-when-invalid 'd["hosts"] = 3'
neg show show-lab-"$("$bin" hosts "$src/profiles/lab.yaml" | head -1)" interface-unknown-member 'd["interfaces"][0]["gateway"] = "10.0.0.254"'
neg show show-check-hdr01 pkey-not-hex 'd["interfaces"].append(dict(d["interfaces"][0], pkey="8001"))'
neg show show-check-hdr01 backend-outside-vocabulary 'd["interfaces"][0]["backend"] = "nm"'
neg show show-check-hdr01 port-missing-member 'del d["hcas"][0]["ports"][0]["state"]'
neg inspect inspect-hdr-2hca lid-as-string 'd["devices"][0]["ports"][0]["lid"] = "5"'
neg inspect inspect-hdr-2hca netdev-missing-carrier 'del d["netdevs"][0]["carrier"]'
neg inspect inspect-hdr-2hca pci-unknown-member 'd["devices"][0]["pci"]["slot"] = "3"'
neg inspect inspect-hdr-2hca counters-without-saturated 'd["devices"][0]["ports"][0]["counters"] = {"symbol_error": 0}'
neg inspect inspect-odd-tree warnings-not-strings 'd["warnings"] = [{"text": w} for w in d["warnings"]]'
neg plan plan-children op-outside-vocabulary 'd["actions"][0]["op"] = "rename"'
neg plan plan-children set-mtu-to-string 'a = [a for a in d["actions"] if a["op"] == "set_mtu"][0]; a["to"] = str(a["to"])'
neg plan plan-children set-up-with-address 'a = [a for a in d["actions"] if a["op"] == "set_up"][0]; a["address"] = "10.0.0.1/24"'
neg plan plan-children child-without-pkey 'del d["actions"][0]["pkey"]'
neg firmware firmware-show desired-outside-vocabulary 'd["devices"][0]["ports"][0]["desired"] = "infiniband"'
neg firmware firmware-show running-outside-vocabulary 'd["devices"][0]["ports"][0]["running"] = "IB"'
neg firmware firmware-apply done-unknown-member 'd["done"][0]["confirmed"] = True'
neg firmware firmware-show not-applied-with-done 'd["done"] = [{"device": "mlx5_0", "pci": "0000:3b:00.0", "port": 1, "from": "eth", "to": "ib"}]'
neg apply apply-dry plan-unknown-member 'd["backend"] = "netlink"'
neg apply apply-dry plan-missing-errors 'del d["errors"]'
neg apply apply-dry netlink-report-with-nm-members 'd.clear(); d.update(host="h", backend="netlink", ok=True, changes=0, done=[], rollback=[], rollback_failed=[], not_converged=[], failure=None, checkpoint=None)'
neg apply apply-dry report-ok-with-failure 'd.clear(); d.update(host="h", backend="netlink", ok=True, changes=0, done=[], rollback=[], rollback_failed=[], not_converged=[], failure="x")'
neg apply apply-dry report-ok-with-rollback 'd.clear(); d.update(host="h", backend="netlink", ok=True, changes=1, done=["x"], rollback=["x: ok"], rollback_failed=[], not_converged=[], failure=None)'
neg apply apply-dry report-failed-with-changes 'd.clear(); d.update(host="h", backend="netlink", ok=False, changes=1, done=["x"], rollback=[], rollback_failed=[], not_converged=[], failure="x")'
neg apply apply-dry nm-report-ok-not-converged 'd.clear(); d.update(host="h", backend="networkmanager", ok=True, changes=1, done=["x"], unchanged=[], foreign=[], rollback=[], rollback_failed=[], not_converged=["ib0: mtu"], checkpoint=None, failure=None)'
neg render render-nm-keyfile result-outside-vocabulary 'd["files"][0]["result"] = "written"'
neg render render-nm-keyfile-dry-again unchanged-with-content 'd["files"][0]["content"] = "x"'
neg render render-nm-keyfile-dry dry-run-false 'd["dry_run"] = False'
neg render render-nm-keyfile write-with-would 'd["files"][0]["result"] = "would create"'
neg check check-no-sm status-outside-vocabulary 'd["checks"][0]["status"] = "error"'
neg check check-no-sm ok-with-a-failure 'd["ok"] = True'
neg check check-hdr-2hca value-without-unit 'd["checks"][0]["value"] = 1.0'
neg check check-hdr-2hca id-unknown 'd["checks"][0]["id"] = "port.colour"'
neg check check-hdr-2hca result-unknown-member 'd["checks"][0]["severity"] = "high"'
neg report report-canned total-as-string 'd["totals"]["hosts"] = str(d["totals"]["hosts"])'
neg report report-canned outcome-outside-vocabulary 'd["problems"][0]["outcome"] = "passed"'
neg report report-canned hosts-unknown-member 'd["hosts"]["skipped"] = ""'
neg report report-canned hosts-as-array 'd["hosts"]["passed"] = d["hosts"]["passed"].split(",")'
neg partitions partitions-complete all-outside-vocabulary 'd["partitions"][0]["all"] = "some"'
neg partitions partitions-complete member-port-as-string 'p = [p for p in d["partitions"] if p["members"]][0]; p["members"][0]["port"] = "1"'
neg partitions partitions-missing complete-with-missing 'd["complete"] = True'
neg partitions partitions-missing missing-unknown-member 'd["missing"][0]["guid"] = None'

judge
echo "schema outputs validated:$(for s in $(printf '%s\n' "${!validated[@]}" | sort); do
  printf ' %s %s' "$s" "${validated[$s]}"; done)"
echo "schema: $pass passed, $fail failed"
[ "$fail" = 0 ]
