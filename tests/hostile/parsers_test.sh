#!/bin/bash
# Issue 13, item 4: parsers never turn bad data into a standard exception ("internal error",
# exit 1). A firmware version that is not dotted numbers is unknown and never satisfies
# firmware.min; mstconfig output ibsetup cannot place is a located error.
source "$(dirname "$0")/lib.sh" "$@"
profile=$src/tests/data/check/cluster.yaml
fw_file=class/infiniband/mlx5_0/fw_ver

# sys_with_fw VALUE: a copy of the healthy fixture whose mlx5_0 reports VALUE as fw_ver.
sys_with_fw() {
  rm -rf "$tmp/sys"
  cp -a "$src/tests/fixtures/sysfs/hdr-2hca" "$tmp/sys"
  local real
  real=$(readlink -f "$tmp/sys/$fw_file")
  printf '%s\n' "$1" >"$real"
}
check_fw=(check "$profile" --node hdr01 --sysfs-root "$tmp/sys" --no-peers --format)

sys_with_fw 'N/A'
hostile fw-not-available 5 "mlx5_0: firmware 'N/A' is not a version number, expected at least 20.31.1014" \
  -- "${check_fw[@]}" nhc
sys_with_fw '20.31.99999999999999999999'
hostile fw-twenty-digits 0 'mlx5_0: firmware 20.31.99999999999999999999' -- "${check_fw[@]}" text
sys_with_fw "$(printf '99.\033]0;owned\007.1')"
hostile fw-binary 5 "firmware '99.\\x1b]0;owned\\x07.1' is not a version number" -- "${check_fw[@]}" nhc
sys_with_fw '20.31.1014'
hostile fw-good 0 'mlx5_0: firmware 20.31.1014' -- "${check_fw[@]}" text

# A firmware.min with a 20-digit number in the profile is compared, not converted.
sed 's/min: "20.31.1014"/min: "20.99999999999999999999"/' "$profile" >"$tmp/min.yaml"
hostile fw-min-twenty-digits 5 'firmware 20.31.1014, expected at least 20.99999999999999999999' \
  -- check "$tmp/min.yaml" --node hdr01 --sysfs-root "$tmp/sys" --no-peers --format nhc

# mstconfig output with values printed before a three-column header (found by fuzzing
# MstconfigOutput::value: it indexed past the values and threw std::out_of_range).
cat >"$tmp/two.yaml" <<'YAML'
version: 1
nodes:
  - hosts: "n1"
    hcas:
      - {device: mlx5_0, link_type: ib}
    interfaces:
      - {name: ib0, device: mlx5_0, port: 1}
YAML
cat >"$tmp/mstconfig" <<'SH'
#!/bin/sh
printf 'Device #1:\n----------\n\nDevice:   0000:3b:00.0\n\nConfigurations:\n'
printf '         LINK_TYPE_P1    IB(1)\n'
printf 'Configurations:          Default    Current     Next Boot\n'
SH
chmod +x "$tmp/mstconfig"
hostile mstconfig-late-header 4 "line 8 of mstconfig's output is not understood" \
  -- firmware "$tmp/two.yaml" --node n1 --sysfs-root "$src/tests/fixtures/sysfs/hdr-2hca" \
  --mstconfig "$tmp/mstconfig" --lock-file "$tmp/lock"
finish
