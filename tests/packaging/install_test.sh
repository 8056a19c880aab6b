#!/bin/bash
# `cmake --install` of the build tree into a scratch directory, then: the files a package
# ships are there; libibsetup is a shared library with soname libibsetup.so.1 that the CLI and
# the NetworkManager plugin link, and the CLI does not link libnm; neither keeps a RUNPATH into
# the build tree, whose own copies have none with an empty entry; the installed ibsetup runs
# (--version) and loads the installed plugin (renders a keyfile); and a program outside the
# project builds and runs against the install, once through pkg-config (ibsetup.pc) and once
# through the CMake package config (find_package(ibsetup)).
# Usage: install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# check DESCRIPTION COMMAND...: runs COMMAND (a leading ! negates it).
check() {
  local d=$1
  shift
  if [ "$1" = "!" ]; then
    shift
    if ! "$@"; then ok "$d"; else bad "$d"; fi
  elif "$@"; then ok "$d"; else bad "$d"; fi
}

DESTDIR=$tmp/root cmake --install "$build" >"$tmp/install.log"
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build/CMakeCache.txt")
p=$tmp/root$prefix
lib=$p/$libdir
[[ $libdir == /* ]] && lib=$tmp/root$libdir

for f in sbin/ibsetup include/ibsetup/profile.hpp share/man/man8/ibsetup.8 \
  share/man/man5/ibsetup-profile.5 share/ibsetup/templates/ifcfg-ib \
  share/ibsetup/profiles/example.yaml share/ibsetup/schema/check.schema.json \
  share/bash-completion/completions/ibsetup; do
  if [ -e "$p/$f" ]; then ok "installed $f"; else bad "missing $f"; fi
done
for f in libibsetup.so.1 libibsetup.so ibsetup/ibsetup-nm.so ibsetup/ibsetup-yaml.so \
  pkgconfig/ibsetup.pc cmake/ibsetup/ibsetupConfig.cmake cmake/ibsetup/ibsetupConfigVersion.cmake; do
  if [ -e "$lib/$f" ]; then ok "installed $libdir/$f"; else bad "missing $libdir/$f"; fi
done
# The completion's default profile is the prefix's, as the units' is.
profile=$(sed -n 's/^ConditionPathExists=//p' "$(find "$tmp/root" -name ibsetup.service)")
if [ -n "$profile" ] &&
  grep -q -- "-r $profile ]] && profile=$profile$" "$p/share/bash-completion/completions/ibsetup"; then
  ok "the completion offers --node from $profile, the units' profile"
else
  bad "the completion's profile: $(grep -n 'cluster.yaml' "$p/share/bash-completion/completions/ibsetup")"
fi
found() { [ -n "$(find "$tmp/root" -name "$1")" ]; }
needs() { grep -q "$2" <<<"$(objdump -p "$1" | awk '$1 == "NEEDED" {print $2}')"; }
soname() { objdump -p "$1" | awk '$1 == "SONAME" {print $2}'; }
check "installed ibsetup.service" found ibsetup.service
check "installed ibsetup-responder.service" found ibsetup-responder.service
check "installed ibsetup-metrics.service" found ibsetup-metrics.service
check "installed ibsetup-metrics.timer" found ibsetup-metrics.timer
check "installed cluster.yaml.example" found cluster.yaml.example
# The installed units load (systemd-analyze verify), and the two that run unattended are
# sandboxed: systemd's own exposure score, offline (lower is tighter; 10 is no sandbox). The
# responder listens to the network: it was 8.3 without its sandbox, the metrics check 9.6.
# `security --offline` came with systemd 250; Rocky 8 has 239, Debian 12 252.
systemd_version=$(systemd-analyze --version 2>/dev/null | sed -n '1s/^systemd \([0-9]*\).*/\1/p')
if [ -n "$systemd_version" ]; then
  mkdir -p "$tmp/units"
  for u in ibsetup.service ibsetup-responder.service ibsetup-metrics.service ibsetup-metrics.timer; do
    # ExecStart must name a program that exists on this host for verify.
    sed "s|^ExecStart=[^ ]*|ExecStart=/bin/true|; s|^Documentation=.*||" \
      "$(find "$tmp/root" -name "$u" | head -1)" >"$tmp/units/$u"
  done
  out=$(cd "$tmp/units" && systemd-analyze verify ./*.service ./*.timer 2>&1)
  check "the installed units verify: $out" test -z "$out"
  exposure() {
    systemd-analyze security --offline=yes "$tmp/units/$1" 2>/dev/null |
      sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p'
  }
  for pair in ibsetup-responder.service:5.0 ibsetup-metrics.service:8.0; do
    u=${pair%%:*} most=${pair#*:}
    if [ "$systemd_version" -lt 250 ]; then
      echo "skip $u exposure: systemd $systemd_version has no security --offline"
      continue
    fi
    score=$(exposure "$u")
    check "$u exposure '$score' is at most $most" \
      python3 -c 'import sys; sys.exit(not float(sys.argv[1]) <= float(sys.argv[2]))' "$score" "$most"
  done
else
  echo "skip systemd-analyze: not installed"
fi
check "soname libibsetup.so.1" test "$(soname "$lib/libibsetup.so.1")" = libibsetup.so.1
check "ibsetup links libibsetup.so.1" needs "$p/sbin/ibsetup" '^libibsetup\.so\.1$'
check "ibsetup does not link libnm (only the plugin does)" ! needs "$p/sbin/ibsetup" '^libnm'
check "plugin links libibsetup.so.1" needs "$lib/ibsetup/ibsetup-nm.so" '^libibsetup\.so\.1$'
check "plugin links libnm" needs "$lib/ibsetup/ibsetup-nm.so" '^libnm'
check "yaml module links libyaml-cpp" needs "$lib/ibsetup/ibsetup-yaml.so" '^libyaml-cpp'
check "libibsetup does not link libyaml-cpp (only the module does)" \
  ! needs "$lib/libibsetup.so.1" '^libyaml-cpp'
check "libibsetup does not link libnl-3 (apply loads it)" ! needs "$lib/libibsetup.so.1" '^libnl'
runpath() { objdump -p "$1" | awk '$1 == "RUNPATH" || $1 == "RPATH" {print $2}'; }
for f in "$p/sbin/ibsetup" "$lib/ibsetup/ibsetup-nm.so" "$lib/ibsetup/ibsetup-yaml.so"; do
  if grep -qF "$build" <<<"$(runpath "$f")"; then
    bad "installed ${f##*/} keeps the build tree in its RUNPATH"
  else
    ok "installed ${f##*/} has no build-tree RUNPATH"
  fi
done
# In the build tree, an empty RUNPATH entry (CMake's trailing ':') is the working directory,
# where the loader would look for libc.so.6 or libnm.so.0 (src/CMakeLists.txt).
for f in "$build/src/ibsetup" "$build/src/ibsetup-nm.so" "$build/src/ibsetup-yaml.so"; do
  r=$(runpath "$f")
  if [ -n "$r" ] && [[ ":$r:" == *::* ]]; then
    bad "build-tree ${f##*/} has an empty RUNPATH entry: '$r'"
  else
    ok "build-tree ${f##*/} RUNPATH has no empty entry ('$r')"
  fi
done

version=$(LD_LIBRARY_PATH=$lib "$p/sbin/ibsetup" --version)
check "installed ibsetup --version: $version" test "$version" = "ibsetup $(
  sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")"
# The installed plugin, loaded by the installed CLI through the installed library.
render_installed "$p/sbin" "$lib" "$src/profiles/lab.yaml" lab01 ibsetup-ib0.nmconnection \
  "installed plugin renders keyfiles"

# The installed plugin found by the installed library next to itself (here under DESTDIR), as
# the module below is, without IBSETUP_NM_PLUGIN; and a file of its name beside the program is
# never loaded (a site's tool linked with libibsetup would run whatever lies beside it).
mkdir -p "$tmp/planted" "$tmp/render2"
cp "$p/sbin/ibsetup" "$tmp/planted/ibsetup"
printf 'not a plugin\n' >"$tmp/planted/ibsetup-nm.so"
out=$(env -u IBSETUP_NM_PLUGIN LD_LIBRARY_PATH="$lib" "$tmp/planted/ibsetup" render \
  "$src/profiles/lab.yaml" --node lab01 --root "$tmp/render2" 2>&1) || true
check "installed plugin found next to the installed library, not beside the program: $out" \
  test -s "$tmp/render2/etc/NetworkManager/system-connections/ibsetup-ib0.nmconnection"

# The installed module, found by the installed library next to itself (here under DESTDIR).
printf 'version: 1\nnodes:\n  - hosts: b1\n    interfaces: &ifs\n      - {name: ib0, ipv4: 10.0.0.0/24}\n' \
  >"$tmp/anchors.yaml"
out=$(LD_LIBRARY_PATH=$lib "$p/sbin/ibsetup" validate "$tmp/anchors.yaml" 2>&1)
check "installed library reads an anchored profile through its module: $out" \
  grep -q 'ok: 1 group' <<<"$out"

expected=$(printf 'lab01\nlab02\nlab03\nlab04\nx1\nx2')
# pkg-config
flags=$(PKG_CONFIG_PATH=$lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$tmp/root \
  pkg-config --cflags --libs ibsetup)
# shellcheck disable=SC2086
if c++ -std=c++17 -o "$tmp/consumer-pc" "$src/tests/packaging/consumer/main.cpp" $flags &&
  [ "$(LD_LIBRARY_PATH=$lib "$tmp/consumer-pc" "$src/profiles/lab.yaml")" = "$expected" ]; then
  ok "consumer built with pkg-config ($flags) runs"
else
  bad "consumer through pkg-config ($flags)"
fi
# CMake package config
if cmake -S "$src/tests/packaging/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$p" \
  >"$tmp/consumer.log" 2>&1 && cmake --build "$tmp/consumer" >>"$tmp/consumer.log" 2>&1 &&
  [ "$(LD_LIBRARY_PATH=$lib "$tmp/consumer/consumer" "$src/profiles/lab.yaml")" = "$expected" ]; then
  ok "consumer built with find_package(ibsetup) runs"
else
  bad "consumer through find_package(ibsetup): $(tail -20 "$tmp/consumer.log")"
fi

finish install "install tree complete and usable"
