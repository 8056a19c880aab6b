#!/bin/bash
# include_boundaries.sh on a tree that breaks every fence (tests/data/include_boundaries/):
# it must fail and name exactly the offending files, directly and through headers, and pass
# the allowed ones (libnl in src/os/, libnm in src/nm/, librdmacm in a src/probe/ header).
# Usage: include_boundaries_test.sh SOURCE_ROOT
set -euo pipefail
src=${1:?usage: include_boundaries_test.sh SOURCE_ROOT}
data="$src/tests/data/include_boundaries"
status=0
out=$("$src/tests/scripts/include_boundaries.sh" "$data") || status=$?
if [ $status != 1 ]; then
  echo "FAIL: exit status $status, expected 1"
  exit 1
fi
if ! diff -u "$data/expected.txt" <(printf '%s\n' "$out"); then
  echo "FAIL: output differs from $data/expected.txt"
  exit 1
fi
echo "PASS"
