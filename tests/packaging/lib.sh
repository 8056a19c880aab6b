#!/bin/bash
# Sourced by the packaging tests: a scratch directory removed on exit, ok/bad counting, and the
# checks every kind of install shares.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok   $*"; }
bad() {
  echo "FAIL $*"
  fails=$((fails + 1))
}

# need_tools "HINT" TOOL...: skips the test (exit 77) when a tool is missing.
need_tools() {
  local hint=$1 tool
  shift
  for tool in "$@"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "SKIP $tool is not installed ($hint)"
      exit 77
    fi
  done
}

# render_installed SBIN LIBDIR PROFILE NODE KEYFILE DESCRIPTION: the installed ibsetup, through
# the installed library and NetworkManager plugin, renders PROFILE for NODE and writes KEYFILE
# (a file name under etc/NetworkManager/system-connections).
render_installed() {
  local sbin=$1 lib=$2 profile=$3 node=$4 keyfile=$5 description=$6
  rm -rf "$tmp/render"
  mkdir -p "$tmp/render"
  if LD_LIBRARY_PATH=$lib IBSETUP_NM_PLUGIN=$lib/ibsetup/ibsetup-nm.so "$sbin/ibsetup" render \
    "$profile" --node "$node" --root "$tmp/render" >"$tmp/render.log" 2>&1 &&
    [ -s "$tmp/render/etc/NetworkManager/system-connections/$keyfile" ]; then
    ok "$description"
  else
    bad "$description: $(cat "$tmp/render.log")"
  fi
}

# finish WHAT DONE: exits 1 when a check failed, else prints DONE.
finish() {
  if [ "$fails" -ne 0 ]; then
    echo "$fails $1 check(s) failed"
    exit 1
  fi
  echo "$2"
}
