#!/bin/bash
# libibsetup and the ibsetup command load libibverbs, librdmacm (src/os/rdma_dl.cpp) and libnl-3
# (src/os/nl_dl.cpp) on first use, and yaml-cpp only through the module ibsetup-yaml.so
# (src/profile/yaml_cpp.hpp), instead of linking them: no DT_NEEDED entry for any of them, and
# no undefined ibv_*, rdma_*, nl_*, nla_*, nlmsg_* or YAML:: symbol that a linked copy would
# have to provide.
# Usage: not_linked_test.sh LIBIBSETUP IBSETUP
set -euo pipefail
fail=0
for f in "$@"; do
  needed=$(readelf -d "$f" | grep -E 'NEEDED.*(libibverbs|librdmacm|libnl|libyaml-cpp)' || true)
  if [ -n "$needed" ]; then
    echo "FAIL: $f links a library it should load on first use: $needed"
    fail=1
  fi
  undefined=$(nm -D --undefined-only "$f" | grep -E ' (ibv|rdma|nl|nla|nlmsg)_|_ZN4YAML' || true)
  if [ -n "$undefined" ]; then
    echo "FAIL: $f leaves symbols undefined (add them to src/os/rdma_dl_*.cpp or nl_dl.cpp):"
    echo "$undefined"
    fail=1
  fi
done
[ "$fail" = 0 ] && echo "PASS: no RDMA, libnl or yaml-cpp library linked by $*"
exit "$fail"
