# Sourced by the command-line test scripts: expect NAME ACTUAL EXPECTED counts a case as
# passed or failed and prints it; each script ends with its own summary from pass and fail.
pass=0 fail=0
expect() {
  if [ "$2" == "$3" ]; then pass=$((pass + 1)); echo "ok   $1"; else
    fail=$((fail + 1)); printf 'FAIL %s\n     expected: %s\n     actual:   %s\n' "$1" "$3" "$2"; fi
}
