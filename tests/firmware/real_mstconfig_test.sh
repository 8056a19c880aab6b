#!/bin/bash
# ibsetup with the real mstconfig (Debian's or Rocky's mstflint) on a machine without the
# adapter: it must report mstconfig's own error and exit status. Skips (77) without mstflint.
# Usage: real_mstconfig_test.sh IBSETUP SOURCE_DIR
set -u
bin=$1
src=$2
real=/usr/bin/mstconfig
if [ ! -x "$real" ]; then
  echo "SKIP: $real not installed (scripts/deps.sh installs mstflint)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/p.yaml" <<'YAML'
version: 1
nodes:
  - hosts: "n1"
    hcas:
      - {device: mlx5_0, link_type: ib}
YAML
# What mstconfig itself says for this address on this machine.
"$real" -d 0000:3b:00.0 query LINK_TYPE_P1 >"$work/direct" 2>&1
want_status=$?
want_error=$(grep -- '-E-' "$work/direct" | head -1)
echo "mstconfig alone: exit $want_status, '$want_error'"
fail=0
for program in "$real" mstconfig; do  # a path, and the name looked up in the clean PATH
  out=$("$bin" firmware "$work/p.yaml" --node n1 --sysfs-root "$src/tests/fixtures/sysfs/hdr-2hca" \
    --mstconfig "$program" 2>&1)
  code=$?
  echo "ibsetup (--mstconfig $program): exit $code: $out"
  [ "$code" = 4 ] || { echo "FAIL: exit $code, want 4"; fail=1; }
  grep -qF -- "$want_error (exit status $want_status)" <<<"$out" ||
    { echo "FAIL: mstconfig's error and status not reported"; fail=1; }
  grep -qF -- "0000:3b:00.0" <<<"$out" || { echo "FAIL: the device is not named"; fail=1; }
done
[ "$fail" = 0 ] && echo "real mstconfig: ok"
exit "$fail"
