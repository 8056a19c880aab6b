#!/bin/bash
# Builds the Debian packages (packaging/deb/debian, copied into an unpacked source tarball)
# with dpkg-buildpackage -us -uc -b, checks their contents (dpkg-deb -c) and metadata, runs
# lintian on them (no errors), extracts them into a scratch root (dpkg-deb -x) and runs the
# installed ibsetup from there.
#
# CI builds with DEB_BUILD_OPTIONS=nocheck (the unit tests already ran in this ctest run); a
# real build runs them in dh_auto_test (ctest -L unit). Maintainer scripts are not run in the
# scratch root (it has no shell): dpkg-deb -x only. The installed binary runs with the host's
# loader and libraries plus LD_LIBRARY_PATH for libibsetup.so.1 from the scratch root.
# Exit 77 when dpkg-buildpackage, debhelper or lintian is missing (scripts/deps.sh installs them).
# Usage: deb_test.sh SOURCE_DIR
set -euo pipefail
src=$1
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_tools "dpkg-dev, debhelper, lintian, fakeroot; scripts/deps.sh" dpkg-buildpackage dh lintian \
  fakeroot
version=$(sed -n 's/^project(ibsetup VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
deb_version=$(dpkg-parsechangelog -l "$src/packaging/deb/debian/changelog" -S Version)
if [ "${deb_version%-*}" = "$version" ]; then
  ok "debian/changelog version $deb_version is the CMake project version"
else
  bad "debian/changelog version $deb_version, CMake project version $version"
fi

"$src/tests/packaging/source_tarball.sh" "$src" "$tmp" ibsetup "$version"
mv "$tmp/ibsetup-$version.tar.gz" "$tmp/ibsetup_$version.orig.tar.gz"
tar -C "$tmp" -xzf "$tmp/ibsetup_$version.orig.tar.gz"
tree=$tmp/ibsetup-$version
# The tarball keeps the fixtures' relative symlinks as they are (the sysfs trees need them).
links=0
wrong=0
while IFS= read -r -d '' link; do
  rel=${link#"$src"/}
  if [ "$(readlink "$link")" != "$(readlink "$tree/$rel" 2>/dev/null)" ]; then
    bad "source tarball: symlink $rel -> $(readlink "$tree/$rel" 2>/dev/null), expected $(readlink "$link")"
    wrong=$((wrong + 1))
  fi
  links=$((links + 1))
done < <(find "$src/tests/fixtures" -type l -print0)
[ "$wrong" -eq 0 ] && [ "$links" -gt 0 ] && ok "source tarball keeps the $links fixture symlinks"
cp -a "$src/packaging/deb/debian" "$tree/debian"
start=$SECONDS
if ! (cd "$tree" && DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc -b \
  -Pnocheck) >"$tmp/build.log" 2>&1; then
  tail -40 "$tmp/build.log"
  echo "FAIL dpkg-buildpackage"
  exit 1
fi
ok "dpkg-buildpackage -us -uc -b in $((SECONDS - start)) s"
arch=$(dpkg --print-architecture)
deb() { echo "$tmp/${1}_${deb_version}_$arch.deb"; }
for p in ibsetup ibsetup-nm libibsetup1 libibsetup-dev; do
  [ -f "$(deb "$p")" ] || bad "package $p was not built"
done
[ "$fails" -eq 0 ] || exit 1
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

has() { # has PACKAGE PATH-REGEX
  # Listed first, then searched: with pipefail, grep -q leaving early would fail the pipe.
  if grep -qE "^$2\$" <<<"$(dpkg-deb -c "$(deb "$1")" | awk '{print substr($6, 2)}')"; then
    ok "$1 has $2"
  else
    bad "$1 lacks $2"
  fi
}
lacks() { # lacks PACKAGE PATH-REGEX
  if grep -qE "$2" <<<"$(dpkg-deb -c "$(deb "$1")" | awk '{print substr($6, 2)}')"; then
    bad "$1 must not have $2"
  else
    ok "$1 has no $2"
  fi
}
has ibsetup /usr/sbin/ibsetup
has ibsetup /usr/share/man/man8/ibsetup.8.gz
has ibsetup /usr/share/man/man5/ibsetup-profile.5.gz
has ibsetup /etc/ibsetup/cluster.yaml.example
has ibsetup /usr/share/ibsetup/profiles/example.yaml
has ibsetup /usr/share/ibsetup/templates/ifcfg-ib
has ibsetup /usr/share/ibsetup/schema/check.schema.json
has ibsetup /usr/share/bash-completion/completions/ibsetup
has ibsetup /lib/systemd/system/ibsetup.service
has ibsetup /lib/systemd/system/ibsetup-responder.service
has ibsetup /lib/systemd/system/ibsetup-metrics.service
has ibsetup /lib/systemd/system/ibsetup-metrics.timer
lacks ibsetup 'ibsetup-nm\.so|ibsetup-yaml\.so|/usr/include|libibsetup\.so'
has ibsetup-nm "/usr/lib/$multiarch/ibsetup/ibsetup-nm.so"
has libibsetup1 "/usr/lib/$multiarch/libibsetup.so.1"
has libibsetup1 "/usr/lib/$multiarch/libibsetup.so.1.[0-9.]+"
has libibsetup1 "/usr/lib/$multiarch/ibsetup/ibsetup-yaml.so"
lacks libibsetup1 'libibsetup\.so$|/usr/include'
has libibsetup-dev /usr/include/ibsetup/profile.hpp
has libibsetup-dev "/usr/lib/$multiarch/libibsetup.so"
has libibsetup-dev "/usr/lib/$multiarch/pkgconfig/ibsetup.pc"
has libibsetup-dev "/usr/lib/$multiarch/cmake/ibsetup/ibsetupConfig.cmake"
field() { dpkg-deb -f "$(deb "$1")" "$2"; }
grep -q 'rdma-core' <<<"$(field ibsetup Depends)" && ok "ibsetup depends on rdma-core" ||
  bad "ibsetup Depends: $(field ibsetup Depends)"
# Loaded with dlopen (src/os/rdma_dl.cpp), so named by hand: dpkg-shlibdeps cannot see them.
grep -q 'libibverbs1' <<<"$(field libibsetup1 Depends)" && grep -q 'librdmacm1' <<<"$(field libibsetup1 Depends)" &&
  ok "libibsetup1 depends on libibverbs1 and librdmacm1" ||
  bad "libibsetup1 Depends: $(field libibsetup1 Depends)"
# Likewise libnl-3 (src/os/nl_dl.cpp); libyaml-cpp comes from ibsetup-yaml.so's own link.
grep -q 'libnl-3-200' <<<"$(field libibsetup1 Depends)" && grep -q 'libyaml-cpp' <<<"$(field libibsetup1 Depends)" &&
  ok "libibsetup1 depends on libnl-3-200 and libyaml-cpp" ||
  bad "libibsetup1 Depends: $(field libibsetup1 Depends)"
grep -q 'libibsetup1 (= ' <<<"$(field ibsetup Depends)" && ok "ibsetup depends on libibsetup1 =" ||
  bad "ibsetup Depends: $(field ibsetup Depends)"
grep -q 'mstflint' <<<"$(field ibsetup Recommends)" && grep -q 'ibsetup-nm' <<<"$(field ibsetup Recommends)" &&
  ok "ibsetup recommends $(field ibsetup Recommends)" || bad "ibsetup Recommends: $(field ibsetup Recommends)"
grep -q 'libnm0' <<<"$(field ibsetup-nm Depends)" && grep -q 'network-manager' <<<"$(field ibsetup-nm Recommends)" &&
  ok "ibsetup-nm depends on libnm0, recommends network-manager" ||
  bad "ibsetup-nm Depends: $(field ibsetup-nm Depends) Recommends: $(field ibsetup-nm Recommends)"
grep -q 'libnm' <<<"$(field ibsetup Depends)" && bad "ibsetup depends on libnm (plugin only)" ||
  ok "ibsetup does not depend on libnm"
# conffile and a unit that is not enabled on install
dpkg-deb -e "$(deb ibsetup)" "$tmp/control"
grep -qx /etc/ibsetup/cluster.yaml.example "$tmp/control/conffiles" &&
  ok "cluster.yaml.example is a conffile" || bad "conffiles: $(cat "$tmp/control/conffiles")"
# dh_installsystemd --no-enable: postinst re-enables a unit only when it was installed and
# enabled before (an upgrade keeps the admin's choice). ibsetup.service is never started,
# stopped or restarted by the package; the responder and the metrics timer are restarted by an
# upgrade if they run (they were stopped by it and left so) and stopped on removal; every unit
# the package installs is named in debian/rules (one left out would get no script lines).
postinst=$(cat "$tmp/control/postinst" 2>/dev/null || true)
prerm=$(cat "$tmp/control/prerm" 2>/dev/null || true)
preinst=$(cat "$tmp/control/preinst" 2>/dev/null || true)
if grep -q "deb-systemd-helper debian-installed 'ibsetup.service'" <<<"$postinst" &&
  ! grep -E 'deb-systemd-invoke|systemctl.*(start|stop)' <<<"$postinst$prerm$preinst" |
  grep -q "'ibsetup.service'\|'ibsetup-metrics.service'"; then
  ok "postinst does not enable ibsetup.service on a new install, never starts or stops it"
else
  bad "maintainer scripts: $postinst $prerm $preinst"
fi
if grep -q "deb-systemd-invoke try-restart 'ibsetup-metrics.timer' 'ibsetup-responder.service'" \
  <<<"$postinst" && ! grep -q 'deb-systemd-invoke \(start\|restart\|\$_dh_action\)' <<<"$postinst" &&
  ! grep -q 'deb-systemd-invoke stop' <<<"$preinst"; then
  ok "an upgrade restarts the responder and the metrics timer if they run, starts and stops nothing"
else
  bad "upgrade scripts: postinst $postinst preinst $preinst"
fi
if grep -q '"$1" = remove' <<<"$prerm" &&
  grep -q "deb-systemd-invoke stop ibsetup-responder.service ibsetup-metrics.timer" <<<"$prerm"; then
  ok "removal stops the responder and the metrics timer"
else
  bad "prerm: $prerm"
fi
units=$(dpkg-deb -c "$(deb ibsetup)" | awk '{print $6}' | sed -n 's|^\./lib/systemd/system/||p')
unlisted=$(for unit in $units; do
  grep -qw "$unit" "$src/packaging/deb/debian/rules" || echo "$unit"
done)
if [ -n "$units" ] && [ -z "$unlisted" ]; then
  ok "debian/rules names every unit the package installs ($(echo $units))"
else
  bad "units not named in debian/rules' dh_installsystemd calls: $unlisted"
fi
if grep -q "deb-systemd-helper debian-installed 'ibsetup-responder.service'" <<<"$postinst"; then
  ok "postinst does not enable ibsetup-responder.service on a new install"
else
  bad "postinst lacks the responder unit's guard: $postinst"
fi

# lintian: no errors.
lintian --tag-display-limit 0 "$tmp"/*.changes >"$tmp/lintian.log" 2>&1 || true
if grep -q '^E: ' "$tmp/lintian.log"; then
  grep '^E: ' "$tmp/lintian.log"
  bad "lintian reports errors"
else
  ok "lintian: no errors ($(grep -c '^W: ' "$tmp/lintian.log" || true) warnings)"
  sed 's/^/       /' "$tmp/lintian.log"
fi

# Extract into a scratch root and run from there. (dpkg --root --unpack would run the
# preinst, chrooted into a root without a shell; --force-script-chrootless would run the
# maintainer scripts on this host. dpkg-deb -x installs the files only.)
root=$tmp/root
for p in libibsetup1 ibsetup ibsetup-nm libibsetup-dev; do
  if dpkg-deb -x "$(deb "$p")" "$root"; then ok "dpkg-deb -x $p"; else bad "dpkg-deb -x $p"; fi
done
lib=$root/usr/lib/$multiarch
out=$(LD_LIBRARY_PATH=$lib "$root/usr/sbin/ibsetup" --version 2>&1) || true
if [ "$out" = "ibsetup $version" ]; then
  ok "installed ibsetup --version: $out"
else
  bad "installed ibsetup --version: $out"
fi
# The library looks for the plugin where ibsetup-nm installs it.
if grep -qaF "/usr/lib/$multiarch/ibsetup" "$lib/libibsetup.so.1"; then
  ok "libibsetup's plugin directory is /usr/lib/$multiarch/ibsetup"
else
  bad "libibsetup.so.1 does not name /usr/lib/$multiarch/ibsetup as its plugin directory"
fi
render_installed "$root/usr/sbin" "$lib" "$root/usr/share/ibsetup/profiles/example.yaml" cn001 \
  ibsetup-ib0.8001.nmconnection \
  "installed ibsetup + ibsetup-nm render keyfiles from the installed example profile"

finish deb "Debian packages built, linted, installed and run"
