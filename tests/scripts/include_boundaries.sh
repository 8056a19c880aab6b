#!/bin/bash
# Where the system libraries fenced in (README, "Where the code lives") may be included: libnl only in src/os/,
# libibverbs and librdmacm only in src/os/ and src/probe/, libibmad and libibumad only in src/os/,
# libnm only in src/nm/, and src/profile/
# includes nothing of the checks. A file also
# counts as including a library when it includes a project header that does (at any depth), so a
# header of src/probe/ cannot carry librdmacm into src/check/. Prints one line per offending
# file and exits 1; exits 0 when src/ and include/ keep to the fences.
# Usage: include_boundaries.sh SOURCE_ROOT
set -euo pipefail
root=${1:?usage: include_boundaries.sh SOURCE_ROOT}
cd "$root"

# library @ extended regex of its include paths @ folders allowed to include it
rules=(
  "libnl@^netlink/@src/os/"
  "libibverbs@^infiniband/@src/os/ src/probe/"
  "librdmacm@^rdma/@src/os/ src/probe/"
  "libibmad/libibumad@^infiniband/(mad|mad_osd|umad[a-z_]*)\.h\$@src/os/"
  "libnm@^(NetworkManager\.h|libnm/)@src/nm/"
)

mapfile -t files < <(find src include -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) | LC_ALL=C sort)
if [ ${#files[@]} = 0 ]; then
  echo "$root: no sources under src/ or include/" >&2
  exit 2
fi

# One pass over every include: sys[file] holds "LINE:PATH" of its <...> includes, edges[file]
# "LINE:FILE" of the project files its includes name ("x/y.hpp" is src/x/y.hpp, the include root
# of the sources; <ibsetup/...> is include/ibsetup/...).
declare -A sys edges
while IFS=$'\t' read -r file line kind path; do
  if [ -f "src/$path" ]; then
    edges[$file]+="$line:src/$path"$'\n'
  elif [ -f "include/$path" ]; then
    edges[$file]+="$line:include/$path"$'\n'
  elif [ "$kind" = '<' ]; then
    sys[$file]+="$line:$path"$'\n'
  fi
done < <(grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' "${files[@]}" |
  sed -nE 's/^([^:]+):([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*([<"])([^>"]+)[>"].*/\1\t\2\t\3\t\4/p')

status=0
for rule in "${rules[@]}"; do
  IFS='@' read -r lib pattern allowed <<<"$rule"
  # why[file]: how the file comes to include the library ("LINE: <header>" or
  # "LINE: \"project header\", ..."), for every file that does; grown to a fixpoint.
  declare -A why=()
  for f in "${files[@]}"; do
    while IFS=: read -r line path; do
      if [ -n "$path" ] && [[ $path =~ $pattern ]]; then
        why[$f]="line $line: <$path>"
        break
      fi
    done <<<"${sys[$f]:-}"
  done
  changed=1
  while [ $changed = 1 ]; do
    changed=0
    for f in "${files[@]}"; do
      [ -n "${why[$f]:-}" ] && continue
      while IFS=: read -r line target; do
        if [ -n "$target" ] && [ -n "${why[$target]:-}" ]; then
          why[$f]="line $line: $target, ${why[$target]}"
          changed=1
          break
        fi
      done <<<"${edges[$f]:-}"
    done
  done
  for f in "${files[@]}"; do
    [ -z "${why[$f]:-}" ] && continue
    ok=0
    for dir in $allowed; do
      [[ $f == "$dir"* ]] && ok=1
    done
    if [ $ok = 0 ]; then
      echo "$f: includes $lib ($allowed only): ${why[$f]}"
      status=1
    fi
  done
  unset why
done
# The profile stands below the checks: it names check ids (common/check_ids.hpp) but includes
# nothing of src/check/ or <ibsetup/check.hpp>.
for f in "${files[@]}"; do
  [[ $f == src/profile/* ]] || continue
  while IFS=: read -r line target; do
    if [[ $target == src/check/* || $target == include/ibsetup/check.hpp ]]; then
      echo "$f: depends on the checks (src/profile/ must not): line $line: $target"
      status=1
    fi
  done <<<"${edges[$f]:-}"
done
if [ $status = 0 ]; then
  echo "include boundaries kept (${#files[@]} files)"
fi
exit $status
