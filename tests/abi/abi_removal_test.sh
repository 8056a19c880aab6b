#!/bin/bash
# scripts/abi catches what breaks programs: a library that no longer exports one public function
# fails the check, and the same library with a new soname passes it (an intended break). Also
# that the CLI's internals are exported in the private version node only.
# The doctored libraries are the build's own objects linked again with one public function
# made local, against a baseline dumped from the real library, so that the test does not
# depend on the committed baseline being current. Skips (77) without libabigail.
# And that the public node exports nothing outside namespace ibsetup.
# Usage: abi_removal_test.sh LIBRARY VERSION_SCRIPT 'OBJECT;OBJECT;...' SOURCE_DIR
set -uo pipefail
library=$1 map=$2 objects=$3 src=$4
abi="$src/scripts/abi"
for tool in abidw abidiff nm objdump c++; do
  command -v "$tool" >/dev/null 2>&1 || { echo "SKIPPED: no $tool"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The CLI's internals get the private node, not the public node (where both nodes' patterns
# match, the version script relies on the linker taking the last node).
escape=$(nm -D --defined-only -C "$library" | grep -E 'ibsetup::util::escape_text(\[|\()' || true)
grep -q '@@IBSETUP_PRIVATE_' <<<"$escape" ||
  fail "util::escape_text is not in the IBSETUP_PRIVATE node: ${escape:-not exported}"

# The public node holds ibsetup's own symbols only: no std:: template instantiation over a
# public type (whose demangled name starts with its return type, "ibsetup::X* std::..."), which
# a compiler emits out of line or not as its inlining decides (src/libibsetup.map.in).
public=$(nm -D --defined-only "$library" | awk '$3 ~ /@@IBSETUP_1\.0$/ { sub(/@@.*/, "", $3); print $3 }')
[ "$(wc -l <<<"$public")" -ge 100 ] ||
  fail "IBSETUP_1.0 has only $(wc -l <<<"$public") symbols: $public"
foreign=$(grep -vE '^(_ZNK?[RO]?7ibsetup|_ZT[ISVT]N7ibsetup|_ZT[hv][^N]*_NK?[RO]?7ibsetup|_ZZNK?7ibsetup|_ZGVZ?NK?7ibsetup)' <<<"$public" || true)
[ -z "$foreign" ] ||
  fail "IBSETUP_1.0 exports symbols outside namespace ibsetup: $(c++filt <<<"$foreign" | head -n 5)"

IFS=';' read -r -a objs <<<"$objects"
# The exact name, so that it wins over the node's ibsetup::* pattern (ld and lld alike).
victim=$(nm -D --defined-only -C "$library" |
  grep -oE 'ibsetup::expand_hostlist(\[abi:cxx11\])?\(.*\)' | head -n1)
[ -n "$victim" ] || { echo "FAIL: $library exports no ibsetup::expand_hostlist"; exit 1; }
sed "0,/^  local:/s//  local:\n    extern \"C++\" { \"$victim\"; };/" "$map" >"$work/doctored.map"

relink() {  # SONAME OUTPUT: the objects again, with the doctored version script
  c++ -shared -o "$2" -Wl,-soname,"$1" -Wl,--version-script="$work/doctored.map" "${objs[@]}"
}
# The library's own soname, and the next one.
same=$(objdump -p "$library" | awk '$1 == "SONAME" { print $2 }')
case "$same" in libibsetup.so.[0-9]*) ;; *) echo "FAIL: $library has soname '$same'"; exit 1 ;; esac
next="libibsetup.so.$((${same##*.} + 1))"
relink "$same" "$work/$same" || { echo "FAIL: relink"; exit 1; }
relink "$next" "$work/$next" || { echo "FAIL: relink"; exit 1; }
if nm -D --defined-only -C "$work/$same" | grep -qF "$victim"; then
  fail "the doctored library still exports $victim"
fi

"$abi" update --library "$library" --baseline "$work/base.abi" >/dev/null ||
  { echo "FAIL: abi update"; exit 1; }

# The real library against its own dump: compatible.
out=$("$abi" check --library "$library" --baseline "$work/base.abi" 2>&1)
rc=$?
[ "$rc" = 0 ] || fail "the library against its own dump: exit $rc, expected 0: $out"

# One public function less under the same soname: incompatible, and the report names it.
out=$("$abi" check --library "$work/$same" --baseline "$work/base.abi" 2>&1)
rc=$?
[ "$rc" = 1 ] || fail "removed function: exit $rc, expected 1"
grep -q 'expand_hostlist' <<<"$out" || fail "removed function: the report does not name it: $out"
grep -q 'incompatible' <<<"$out" || fail "removed function: no 'incompatible' in: $out"
echo "removed function, what the check said:"
grep -e 'Removed' -e 'expand_hostlist' -e '^abi:' <<<"$out"

# The same break with the soname bumped: passes, and says to update the baseline.
out=$("$abi" check --library "$work/$next" --baseline "$work/base.abi" 2>&1)
rc=$?
[ "$rc" = 0 ] || fail "bumped soname: exit $rc, expected 0: $out"
grep -qF "$same -> $next" <<<"$out" || fail "bumped soname: message: $out"

[ "$failures" = 0 ] && echo "abi removal: all cases pass"
[ "$failures" = 0 ]
