#!/bin/bash
# Sourced by the hostile-input tests (tests/hostile/*_test.sh): each case runs the
# built ibsetup on one hostile input and asserts the exact outcome: the exit code, a fixed
# string of the message, no raw control character on the terminal, bounded time and memory,
# and nothing written outside the scratch root.
#
# Usage in a case file:  source "$(dirname "$0")/lib.sh" "$@"   (args: IBSETUP SOURCE_TREE)
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
outside=$tmp/outside # a tree no case may change; checked at the end
mkdir -p "$outside"
echo "sentinel" >"$outside/sentinel"
cleanup_hooks=()
cleanup() {
  local h
  for h in "${cleanup_hooks[@]}"; do eval "$h" || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
pass=0
fail=0
HOSTILE_TIMEOUT=${HOSTILE_TIMEOUT:-30} # seconds before a case counts as a hang
HOSTILE_MEM_MB=${HOSTILE_MEM_MB:-1024} # address-space cap: a runaway allocation fails the case

ok() {
  pass=$((pass + 1))
  echo "ok   $*"
}
bad() {
  fail=$((fail + 1))
  echo "FAIL $*"
}

# control_chars FILE: prints how many raw C0 control bytes (other than tab and newline), DEL or
# UTF-8-encoded C1 controls FILE holds.
control_chars() {
  local c0 c1
  c0=$(LC_ALL=C tr -d '\11\12\40-\176\200-\377' <"$1" | wc -c)
  c1=$(LC_ALL=C grep -c -P '\xc2[\x80-\x9f]' "$1" || true)
  echo $((c0 + c1))
}

# run_ibsetup STDIN ARGS...: runs ibsetup under the time and memory bounds; sets $out (stdout
# and stderr together, in a file) and $code.
run_ibsetup() {
  local input=$1
  shift
  out=$tmp/last.out
  timeout -k 5 "$HOSTILE_TIMEOUT" prlimit --as=$((HOSTILE_MEM_MB * 1024 * 1024)) -- \
    "$bin" "$@" <"$input" >"$out" 2>&1
  code=$?
}

# hostile NAME WANT_CODE 'FIXED STRING' -- ARGS...: ibsetup ARGS (stdin /dev/null) exits with
# WANT_CODE, its output contains FIXED STRING, and it prints no raw control character.
hostile() {
  hostile_stdin "$1" "$2" "$3" /dev/null "${@:5}"
}

# hostile_stdin NAME WANT_CODE 'FIXED STRING' INPUT_FILE ARGS...: the same with stdin from a file.
hostile_stdin() {
  local name=$1 want=$2 text=$3 input=$4
  shift 4
  run_ibsetup "$input" "$@"
  local why=""
  if [ "$code" = 124 ] || [ "$code" = 137 ]; then
    why="hung (killed after ${HOSTILE_TIMEOUT} s)"
  elif [ "$code" != "$want" ]; then
    why="exit $code, want $want"
  elif ! grep -qF -- "$text" "$out"; then
    why="output lacks: $text"
  elif [ "$(control_chars "$out")" != 0 ]; then
    why="raw control characters in the output"
  fi
  if [ -n "$why" ]; then
    bad "$name: $why; output:"
    head -c 2000 "$out" | cat -v | head -20
  else
    ok "$name"
  fi
}

# finish: checks the sentinel tree and prints the closing line ctest's output shows.
finish() {
  if [ "$(ls -A "$outside")" != "sentinel" ] || [ "$(cat "$outside/sentinel")" != "sentinel" ]; then
    bad "something was written outside the root: $(ls -A "$outside" | tr '\n' ' ')"
  fi
  echo "$(basename "$0" .sh): $pass passed, $fail failed"
  [ "$fail" = 0 ]
}
