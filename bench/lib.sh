# Shared by the bench scripts (sourced from the repository root): where the programs are, the
# machine line, and the comparison that turns two timer lines into a ratio, a target and a
# verdict. Every bench prints its results for people and, on lines starting `row|`, for
# bench/all.sh:
#   row|BENCHMARK|IBSETUP (median, p10-p90)|PEER|RATIO|TARGET|met, NOT met or - (context)
# shellcheck shell=bash

bench_timer=$(pwd)/build/bench/bench_spawn_timer
bench_ibsetup=${IBSETUP:-$(pwd)/build/src/ibsetup} # IBSETUP=PATH: another build (A/B runs)
# shellcheck disable=SC2034 # used by the scripts that source this file
bench_default_runs=30

bench_require_built() {
  local f
  for f in "$bench_timer" "$bench_ibsetup"; do
    [ -x "$f" ] || {
      echo "bench: $f is missing; run scripts/build.sh first" >&2
      exit 1
    }
  done
}

# bench_installed BENCH [ARG...]: runs bench/BENCH again as a package installs ibsetup and
# returns only in that run, with bench_ibsetup set to the installed program. The build tree's
# program finds libibsetup through its RUNPATH, which costs a dozen failed opens at every start
# (glibc-hwcaps and tls directories, and the system libraries looked for in build/src first);
# an installed one has no RUNPATH and finds the library through /etc/ld.so.cache, as ibstat finds
# libibumad. So the build is installed with DESTDIR into a temporary directory, and the bench
# runs in a private mount namespace where a cache that also lists that directory is bound over
# /etc/ld.so.cache: nothing outside the namespace changes. With IBSETUP=PATH (A/B runs), PATH is
# measured as it is. Needs root.
bench_installed() {
  local bench=$1 lib rc=0
  shift
  if [ -n "${bench_installed_dir:-}" ]; then
    bench_ibsetup=$(find "$bench_installed_dir/root" -path '*/sbin/ibsetup' -type f -print -quit)
    [ -x "$bench_ibsetup" ] || {
      echo "bench: cmake --install put no sbin/ibsetup under $bench_installed_dir/root" >&2
      exit 1
    }
    echo "ibsetup: installed (DESTDIR) as $bench_ibsetup, libibsetup through ld.so.cache"
    return 0
  fi
  [ -z "${IBSETUP:-}" ] || return 0
  bench_installed_tmp=$(mktemp -d)
  trap 'rm -rf "$bench_installed_tmp"' EXIT
  trap 'exit 1' HUP INT PIPE TERM
  local dir=$bench_installed_tmp
  DESTDIR=$dir/root cmake --install build >/dev/null
  lib=$(find "$dir/root" -name libibsetup.so.1 -print -quit)
  [ -n "$lib" ] || {
    echo "bench: cmake --install put no libibsetup.so.1 under $dir/root" >&2
    exit 1
  }
  printf 'include /etc/ld.so.conf.d/*.conf\n%s\n' "$(dirname "$lib")" >"$dir/ld.so.conf"
  # -X: no links made or changed in any directory (ldconfig would otherwise touch the system's).
  ldconfig -X -C "$dir/ld.so.cache" -f "$dir/ld.so.conf"
  # shellcheck disable=SC2016 # expanded by the inner bash, from its own arguments
  unshare -m bash -c 'mount --bind "$1" /etc/ld.so.cache && shift && exec "$@"' bench-installed \
    "$dir/ld.so.cache" env bench_installed_dir="$dir" bash "$(pwd)/bench/$bench" "$@" || rc=$?
  exit "$rc"
}

bench_require_root() {
  [ "$(id -u)" = 0 ] || {
    echo "bench: $1 needs root (namespaces)" >&2
    exit 1
  }
}

# machine: CPU model, CPUs, kernel. The load while a bench ran is the timer's `load:` line.
bench_machine_line() {
  local model
  model=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
  echo "machine: ${model:-unknown CPU}, $(nproc) CPUs (nproc), kernel $(uname -r)"
}

# bench_times FILE LABEL: "MEDIAN P10 P90" of the timer line whose label is LABEL.
bench_times() {
  awk -v want="$2" '{l = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", l)} l == want {print $1, $2, $3; f = 1}
    END {exit !f}' "$1" || {
    echo "bench: no timing for '$2' in $1" >&2
    exit 1
  }
}

# bench_table FILE [LABEL...]: the timer lines as an aligned table (all of them by default).
bench_table() {
  local file=$1 label m lo hi
  shift
  printf '%-52s %9s %17s\n' "command" "median ms" "p10-p90 ms"
  if [ $# = 0 ]; then
    awk '!/^load:/ {l = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", l); printf "%-52s %9.2f %8.2f-%-8.2f\n", l, $1, $2, $3}' "$file"
    return
  fi
  for label in "$@"; do
    read -r m lo hi < <(bench_times "$file" "$label")
    printf '%-52s %9.2f %8.2f-%-8.2f\n' "$label" "$m" "$lo" "$hi"
  done
}

# bench_pairs SAMPLES OURS PEER MODE: "MEDIAN P10 P90" of the per-round ratios, from the timer's
# --samples file: round i's OURS/PEER (PEER/OURS when MODE is *faster*). Both ran in the same
# pass over the interleaved commands, so a slow spell of the machine longer than a round slows
# both and mostly cancels. Percentiles as the timer takes them (the sorted ratios' element at
# round(p x (n - 1))). Prints nothing without both labels, with unequal counts, or when a
# sample is not above zero.
bench_pairs() {
  [ -s "$1" ] || return 0
  awk -F '\t' -v ol="$2" -v pl="$3" -v mode="$4" '
    $1 == ol {n = split($2, a, " ")} $1 == pl {m = split($2, b, " ")}
    END {
      if (!n || n != m) exit
      for (i = 1; i <= n; i++) if (!(a[i] > 0 && b[i] > 0)) exit
      for (i = 1; i <= n; i++) {
        r[i] = mode ~ /faster/ ? b[i] / a[i] : a[i] / b[i]
        for (j = i; j > 1 && r[j - 1] > r[j]; j--) { x = r[j]; r[j] = r[j - 1]; r[j - 1] = x }
      }
      printf "%f %f %f\n", r[int(0.5 * (n - 1) + 0.5) + 1], r[int(0.1 * (n - 1) + 0.5) + 1],
             r[int(0.9 * (n - 1) + 0.5) + 1]
    }' "$1"
}

# bench_compare FILE BENCHMARK OURS PEER MODE [TARGET]
# Compares two timer lines (by label) of FILE. MODE `at_most`: OURS/PEER must be <= TARGET;
# `faster`: PEER/OURS must be >= TARGET (OURS at least TARGET times faster); `context` and
# `context_faster`: the same ratios with no target. The verdict is on the ratio of the medians.
# When the timer also wrote FILE.samples (--samples), the ratio is followed by the per-round
# ratios' median and p10-p90 (bench_pairs): how far the verdict stands from the noise.
# Prints the ratio line and the row.
bench_compare() {
  local file=$1 bench=$2 ours=$3 peer=$4 mode=$5 target=${6:-}
  local o p pairs
  o=$(bench_times "$file" "$ours") p=$(bench_times "$file" "$peer")
  # The rounds are a figure beside the verdict: without them the verdict still stands.
  pairs=$(bench_pairs "$file.samples" "$ours" "$peer" "$mode") || pairs=
  awk -v o="$o" -v p="$p" -v ol="$ours" -v pl="$peer" -v mode="$mode" -v t="$target" \
    -v bench="$bench" -v pairs="$pairs" 'BEGIN {
    split(o, a, " "); split(p, b, " ")
    np = split(pairs, q, " ")
    if (mode ~ /faster/) {
      r = b[1] / a[1]; rs = sprintf("%.1fx faster", r); ts = ">= " t "x faster"; ok = r >= t
      line = sprintf("%s / %s", pl, ol)
      if (np == 3) rs = rs sprintf(" (rounds %.1fx, %.1f-%.1fx)", q[1], q[2], q[3])
    } else {
      r = a[1] / b[1]; rs = sprintf("%.2f", r); ts = "<= " t; ok = r <= t
      line = sprintf("%s / %s", ol, pl)
      if (np == 3) rs = rs sprintf(" (rounds %.2f, %.2f-%.2f)", q[1], q[2], q[3])
    }
    if (mode ~ /^context/) {
      ts = "-"; verdict = "-"
      printf "%s: %s = %s (context, no target)\n", bench, line, rs
    } else {
      verdict = ok ? "met" : "NOT met"
      printf "%s: %s = %s (target %s: %s)\n", bench, line, rs, ts, verdict
    }
    printf "row|%s|%.2f ms (%.2f-%.2f)|%s %.2f ms (%.2f-%.2f)|%s|%s|%s\n", bench, a[1], a[2], a[3],
           pl, b[1], b[2], b[3], rs, ts, verdict
  }'
}

# bench_row_context FILE BENCHMARK LABEL ours|peer: a row with one timing and no target (a floor,
# a slower peer for scale), in the ibsetup or the peer column.
bench_row_context() {
  local t
  t=$(bench_times "$1" "$3")
  awk -v t="$t" -v bench="$2" -v l="$3" -v col="$4" 'BEGIN { split(t, a, " ")
    cell = sprintf("%.2f ms (%.2f-%.2f)", a[1], a[2], a[3])
    if (col == "peer") printf "row|%s|-|%s %s|-|-|-\n", bench, l, cell
    else printf "row|%s|%s|-|-|-|-\n", bench, cell }'
}

# bench_load_line FILE [WHAT]: the timer's load line, naming the round it belongs to.
bench_load_line() {
  local line
  line=$(grep '^load:' "$1")
  if [ -n "${2:-}" ]; then
    echo "load: ($2) ${line#load: }"
  else
    echo "$line"
  fi
}

# bench_in_tree TREE CMD [ARG...]: runs CMD in a private mount namespace where a copy of the
# sysfs fixture TREE is mounted over /sys, so that ibsetup and the peer tools read the same files.
bench_in_tree() {
  # shellcheck disable=SC2016 # expanded by the inner bash, from its own arguments
  unshare -m bash -c 'mount -t tmpfs ibsetup-bench /sys && cp -a "$1"/. /sys/ && shift &&
    exec "$@"' bench-tree "$@"
}
