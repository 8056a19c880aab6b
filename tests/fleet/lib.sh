# shellcheck shell=bash
# Sourced by the fleet end-to-end tests (clush_check_test.sh, pdsh_check_test.sh), which set
# src first. fleet_setup COMMAND NAME: exits 77 without COMMAND, else makes $tmp (removed on
# exit) and sets $fixture (the sysfs tree every simulated host starts from) and $port.
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/expect.sh"
# shellcheck disable=SC2034,SC2154 # src comes from, and fixture and port go to, the test
fleet_setup() {
  command -v "$1" >/dev/null 2>&1 || { echo "SKIP: $2 is not installed"; exit 77; }
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  fixture=$src/tests/fixtures/sysfs/hdr-2hca
  port=class/infiniband/mlx5_0/ports/1
}
