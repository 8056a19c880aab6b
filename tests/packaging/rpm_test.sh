#!/bin/bash
# Builds the RPMs from packaging/rpm/ibsetup.spec with rpmbuild, checks their file lists and
# flags (rpm -qlp), runs rpmlint on the spec and the packages (no errors), installs them into
# a scratch root (rpm -i --root) and runs the installed ibsetup from there.
#
# Here (Debian) the build dependencies are Debian's packages, not the spec's Rocky names, so
# rpmbuild runs with --nodeps; the spec's fallback %cmake macros stand in for EL's
# cmake-rpm-macros. CI builds with --nocheck --without check (the unit tests already ran in
# this ctest run); a real build runs them in %check. The scratch root has no shell, so rpm
# runs no scriptlets there (--noscripts), and no libraries: the installed binary runs with the
# host's loader and libraries plus LD_LIBRARY_PATH=ROOT/usr/lib64 for libibsetup.so.1 (the
# packages were built against this host's libraries).
# Exit 77 when rpmbuild or rpmlint is missing (scripts/deps.sh installs them).
# Usage: rpm_test.sh SOURCE_DIR
set -euo pipefail
src=$1
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_tools "package rpm/rpmlint; scripts/deps.sh installs them" rpmbuild rpmlint rpm
spec=$src/packaging/rpm/ibsetup.spec
version=$(sed -n 's/^project(ibsetup VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
spec_version=$(awk '$1 == "Version:" {print $2}' "$spec")
if [ "$version" = "$spec_version" ]; then
  ok "spec Version $spec_version is the CMake project version"
else
  bad "spec Version $spec_version, CMake project version $version"
fi

top=$tmp/rpmbuild
mkdir -p "$top/SOURCES"
"$src/tests/packaging/source_tarball.sh" "$src" "$top/SOURCES" ibsetup "$spec_version"
start=$SECONDS
if ! rpmbuild -bb --nodeps --nocheck --without check --define "_topdir $top" \
  --define "_smp_mflags -j2" "$spec" >"$tmp/rpmbuild.log" 2>&1; then
  tail -40 "$tmp/rpmbuild.log"
  echo "FAIL rpmbuild"
  exit 1
fi
ok "rpmbuild -bb in $((SECONDS - start)) s"
mapfile -t rpms < <(find "$top/RPMS" -name '*.rpm' | sort)
printf '     %s\n' "${rpms[@]##*/}"
pkg() { find "$top/RPMS" -name "$1-$spec_version-*.rpm" | head -1; }
main=$(pkg ibsetup)
libs=$(pkg ibsetup-libs)
nm=$(pkg ibsetup-nm)
devel=$(pkg ibsetup-devel)
for f in "$main" "$libs" "$nm" "$devel"; do
  [ -n "$f" ] || bad "a package is missing (ibsetup, ibsetup-libs, ibsetup-nm, ibsetup-devel)"
done
[ "$fails" -eq 0 ] || exit 1

# File lists.
has() { # has PACKAGE PATH-REGEX
  # Listed first, then searched: with pipefail, grep -q leaving early would fail the pipe
  # (rpm killed by SIGPIPE), which once reported a file the package has as missing.
  if grep -qE "^$2\$" <<<"$(rpm -qlp "$1" 2>/dev/null)"; then
    ok "${1##*/} has $2"
  else
    bad "${1##*/} lacks $2"
  fi
}
lacks() { # lacks PACKAGE PATH-REGEX
  if grep -qE "$2" <<<"$(rpm -qlp "$1" 2>/dev/null)"; then
    bad "${1##*/} must not have $2: $(rpm -qlp "$1" | grep -E "$2" | head -3 | paste -sd' ')"
  else
    ok "${1##*/} has no $2"
  fi
}
has "$main" /usr/sbin/ibsetup
has "$libs" '/usr/lib64/libibsetup\.so\.1'
has "$libs" '/usr/lib64/libibsetup\.so\.1\.[0-9.]+'
has "$main" '/usr/share/man/man8/ibsetup\.8.*'
has "$main" '/usr/share/man/man5/ibsetup-profile\.5.*'
has "$main" /etc/ibsetup
has "$main" /etc/ibsetup/cluster.yaml.example
has "$main" /usr/share/ibsetup/profiles/example.yaml
has "$main" /usr/share/ibsetup/templates/ifcfg-ib
has "$main" /usr/share/ibsetup/schema/check.schema.json
has "$main" /usr/share/ibsetup/templates/ifcfg-ib-child
has "$main" /usr/share/bash-completion/completions/ibsetup
has "$main" /usr/lib/systemd/system/ibsetup.service
has "$main" /usr/lib/systemd/system/ibsetup-responder.service
has "$main" /usr/lib/systemd/system/ibsetup-metrics.service
has "$main" /usr/lib/systemd/system/ibsetup-metrics.timer
lacks "$main" 'ibsetup-nm\.so|ibsetup-yaml\.so|/usr/include|libibsetup\.so|\.pc$|/cmake/'
lacks "$libs" '/usr/sbin|/etc|/usr/share|ibsetup-nm\.so|libibsetup\.so$'
has "$nm" /usr/lib64/ibsetup/ibsetup-nm.so
has "$libs" /usr/lib64/ibsetup/ibsetup-yaml.so
has "$devel" /usr/include/ibsetup/profile.hpp
has "$devel" /usr/lib64/libibsetup.so
has "$devel" /usr/lib64/pkgconfig/ibsetup.pc
has "$devel" /usr/lib64/cmake/ibsetup/ibsetupConfig.cmake
lacks "$devel" 'libibsetup\.so\.1'
for f in "$main" "$libs" "$nm" "$devel"; do
  lacks "$f" "$top|/usr/local"
done
# %config(noreplace): file flags c (config) and n (noreplace).
flags=$(rpm -qp --qf '[%{FILENAMES} %{FILEFLAGS:fflags}\n]' "$main" 2>/dev/null |
  awk '$1 == "/etc/ibsetup/cluster.yaml.example" {print $2}')
if [[ $flags == *c* && $flags == *n* ]]; then
  ok "cluster.yaml.example is %config(noreplace) ($flags)"
else
  bad "cluster.yaml.example flags '$flags', expected %config(noreplace)"
fi
# Dependencies and scriptlets.
deps=$(rpm -qp --requires "$main" 2>/dev/null)
weak=$(rpm -qp --recommends "$main" 2>/dev/null)
grep -qx 'rdma-core' <<<"$deps" && ok "ibsetup requires rdma-core" || bad "no Requires: rdma-core"
grep -q '^mstflint' <<<"$weak" && ok "ibsetup recommends mstflint" || bad "no Recommends: mstflint"
grep -q '^ibsetup-nm' <<<"$weak" && ok "ibsetup recommends ibsetup-nm" ||
  bad "no Recommends: ibsetup-nm"
grep -q '^NetworkManager' <<<"$(rpm -qp --recommends "$nm" 2>/dev/null)" &&
  ok "ibsetup-nm recommends NetworkManager" || bad "no Recommends: NetworkManager"
grep -q '^ibsetup(x86-64) = ' <<<"$(rpm -qp --requires "$nm" 2>/dev/null)" &&
  ok "ibsetup-nm requires the same ibsetup" || bad "ibsetup-nm does not require ibsetup = V-R"
# Loaded with dlopen (src/os/rdma_dl.cpp), so required by hand: rpm's generator cannot see them.
libdeps=$(rpm -qp --requires "$libs" 2>/dev/null)
grep -q '^libibverbs.so.1(IBVERBS_1.8)' <<<"$libdeps" && grep -q '^librdmacm.so.1(RDMACM_1.0)' <<<"$libdeps" &&
  ok "ibsetup-libs requires libibverbs and librdmacm" ||
  bad "ibsetup-libs requires neither libibverbs nor librdmacm: $(tr '\n' ' ' <<<"$libdeps")"
grep -q '^libnl-3.so.200()' <<<"$libdeps" && ok "ibsetup-libs requires libnl-3.so.200 (loaded by apply)" ||
  bad "ibsetup-libs does not require libnl-3.so.200: $(tr '\n' ' ' <<<"$libdeps")"
grep -q '^libyaml-cpp' <<<"$libdeps" && ok "ibsetup-libs requires libyaml-cpp (ibsetup-yaml.so's)" ||
  bad "ibsetup-libs does not require libyaml-cpp: $(tr '\n' ' ' <<<"$libdeps")"
grep -q 'libibsetup.so.1' <<<"$(rpm -qp --provides "$libs" 2>/dev/null)" &&
  ok "ibsetup-libs provides libibsetup.so.1" || bad "ibsetup-libs does not provide libibsetup.so.1"
grep -q '^ibsetup-libs(x86-64) = ' <<<"$deps" && ok "ibsetup requires the same ibsetup-libs" ||
  bad "ibsetup does not require ibsetup-libs = V-R"
grep -q '^ibsetup-libs(x86-64) = ' <<<"$(rpm -qp --requires "$devel" 2>/dev/null)" &&
  ok "ibsetup-devel requires the same ibsetup-libs" || bad "ibsetup-devel does not require ibsetup-libs"
grep -q '^libnm' <<<"$deps" && bad "ibsetup requires libnm (only ibsetup-nm may)" ||
  ok "ibsetup does not require libnm (only ibsetup-nm does)"
grep -q '^libnm.so.0' <<<"$(rpm -qp --requires "$nm" 2>/dev/null)" &&
  ok "ibsetup-nm requires libnm.so.0" || bad "ibsetup-nm does not require libnm"
scripts=$(rpm -qp --scripts "$main" 2>/dev/null)
if grep -q 'preset' <<<"$scripts" && ! grep -qE 'systemctl (--no-reload )?enable' <<<"$scripts"; then
  ok "%post presets ibsetup.service (never enables it)"
else
  bad "scriptlets: $scripts"
fi
# An upgrade restarts the long-running units when they run, and never ibsetup.service.
if grep -q 'try-restart ibsetup-metrics.timer ibsetup-responder.service' <<<"$scripts" &&
  ! grep -q 'try-restart.*ibsetup\.service' <<<"$scripts"; then
  ok "%postun restarts the responder and the metrics timer on upgrade, not ibsetup.service"
else
  bad "postun: $scripts"
fi
unit=$(rpm2cpio "$main" | (cd "$tmp" && cpio -i --quiet --to-stdout ./usr/lib/systemd/system/ibsetup.service))
for line in Type=oneshot After=rdma-hw.target Before=network-online.target \
  'ExecStart=/usr/sbin/ibsetup apply /etc/ibsetup/cluster.yaml' \
  ConditionPathExists=/etc/ibsetup/cluster.yaml; do
  grep -q "^$line" <<<"$unit" && ok "unit: $line" || bad "unit lacks $line"
done

# rpmlint: no errors, on the spec and all packages in one run (its cross-package checks, such
# as the -devel package's dependency on the library package, need them together; and a filter
# of ibsetup.rpmlintrc that matches nothing is itself an error).
# ibsetup.rpmlintrc filters only checks of the build environment (signature, Packager and
# Group tags), the SysV .hash section that EL and Debian toolchains do not emit, build-id links
# counted as library files, and Mandriva's %mklibname naming; each is explained there.
lint() { # lint NAME FILE...
  local name=$1
  shift
  rpmlint -r "$src/packaging/rpm/ibsetup.rpmlintrc" "$@" >"$tmp/rpmlint.log" 2>&1 || true
  summary=$(grep -E '[0-9]+ packages and [0-9]+ specfiles checked' "$tmp/rpmlint.log" || true)
  if [ -z "$summary" ]; then
    bad "rpmlint $name did not run: $(tail -5 "$tmp/rpmlint.log")"
  elif grep -qE ' 0 errors' <<<"$summary"; then
    ok "rpmlint $name: $summary"
    grep -E ': (W|E): ' "$tmp/rpmlint.log" | sed 's/^/       /' || true
  else
    grep -E ': E: ' "$tmp/rpmlint.log"
    bad "rpmlint $name: $summary"
  fi
}
lint "ibsetup.spec and the packages" "$spec" "${rpms[@]}"
# Shared libraries keep their executable bit (EL packaging; rpmlint shared-library-not-executable).
mode=$(rpm -qp --qf '[%{FILENAMES} %{FILEMODES:perms}\n]' "$libs" 2>/dev/null |
  awk '$1 ~ /libibsetup\.so\.1\.[0-9.]+$/ {print $2}')
check_mode() { [ "$mode" = "-rwxr-xr-x" ]; }
if check_mode; then ok "libibsetup.so.1.* is $mode"; else bad "libibsetup.so.1.* is '$mode'"; fi

# Install into a scratch root and run the installed ibsetup.
root=$tmp/root
mkdir -p "$root"
rpm --root "$root" --initdb
if rpm --root "$root" -i --nodeps --noscripts "${rpms[@]}" >"$tmp/install.log" 2>&1; then
  ok "rpm -i --root: $(rpm --root "$root" -qa | sort | paste -sd' ')"
else
  bad "rpm -i --root: $(cat "$tmp/install.log")"
fi
out=$(LD_LIBRARY_PATH=$root/usr/lib64 "$root/usr/sbin/ibsetup" --version 2>&1) || true
if [ "$out" = "ibsetup $spec_version" ]; then
  ok "installed ibsetup --version: $out"
else
  bad "installed ibsetup --version: $out"
fi
# The library looks for the plugin where ibsetup-nm installs it.
if grep -qaF /usr/lib64/ibsetup "$root/usr/lib64/libibsetup.so.1"; then
  ok "libibsetup's plugin directory is /usr/lib64/ibsetup"
else
  bad "libibsetup.so.1 does not name /usr/lib64/ibsetup as its plugin directory"
fi
render_installed "$root/usr/sbin" "$root/usr/lib64" "$root/usr/share/ibsetup/profiles/example.yaml" \
  cn001 ibsetup-ib0.8001.nmconnection \
  "installed ibsetup + ibsetup-nm render keyfiles from the installed example profile"
if rpm --root "$root" -V --nodeps ibsetup ibsetup-libs ibsetup-nm ibsetup-devel \
  >"$tmp/verify.log" 2>&1; then
  ok "rpm -V --nodeps: installed files match the packages"
else
  bad "rpm -V: $(cat "$tmp/verify.log")"
fi

finish RPM "RPM packages built, linted, installed and run"
