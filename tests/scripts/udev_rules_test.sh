#!/bin/bash
# render --format udev against the real udev rules parser: `udevadm test` reads every rules
# file and names each line it cannot parse ("FILE:LINE Invalid key ..."). It runs in a
# throw-away network namespace (its lo, not the host's, is the event device) and a private
# mount namespace with tmpfs over /etc/udev/rules.d and /run (udev's database), so the host's
# rules, devices and udev state are not touched. A deliberately bad file proves the parser
# speaks up. No device has the IPoIB type here, so matching itself is not exercised.
# Needs root, ip and udevadm; exits 77 otherwise.
# Usage: udev_rules_test.sh IBSETUP SOURCE_DIR
set -uo pipefail
ibsetup=$1
src=$2
if [ "$(id -u)" != 0 ] || ! command -v udevadm >/dev/null || ! command -v ip >/dev/null; then
  echo "udev rules: skipped: needs root, ip and udevadm"
  exit 77
fi
ns="ibudev$$"
work=$(mktemp -d)
cleanup() {
  ip netns del "$ns" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
. "$(dirname "${BASH_SOURCE[0]}")/expect.sh"

mkdir "$work/root"
"$ibsetup" render "$src/profiles/lab.yaml" --node lab01 --root "$work/root" --format udev \
  --inventories "$src/tests/data/partitions/udev" -q
rules=$work/root/etc/udev/rules.d/70-ibsetup-ipoib.rules
expect rendered "$(grep -c '^ACTION==' "$rules")" 2
printf 'ACTION=="add", SUBSYSTEM=="net", ATTR{type}=="32", NOT_A_KEY=="x", NAME="ib9"\n' \
  >"$work/71-broken.rules"

ip netns add "$ns" || exit 1
ip netns exec "$ns" unshare -m sh -c '
  mount -t tmpfs none /etc/udev/rules.d && mount -t tmpfs none /run &&
  cp "$1" "$2" /etc/udev/rules.d/ && udevadm test --action=add /sys/class/net/lo' \
  sh "$rules" "$work/71-broken.rules" >"$work/out" 2>&1
expect udevadm-ran "$?" 0
expect read-ours "$(grep -c 'Reading rules file: /etc/udev/rules.d/70-ibsetup-ipoib.rules' "$work/out")" 1
# Anything udev says about a line of our file is a complaint ("FILE:LINE ...").
expect ours-clean "$(grep -c '70-ibsetup-ipoib.rules:[0-9]' "$work/out")" 0
expect broken-caught "$(grep -c "71-broken.rules:1 Invalid key 'NOT_A_KEY'" "$work/out")" 1
[ "$fail" = 0 ] || cat "$work/out"
echo "udev rules: $pass passed, $fail failed"
[ "$fail" = 0 ]
