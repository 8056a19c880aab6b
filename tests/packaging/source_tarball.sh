#!/bin/bash
# Writes the source tarball NAME-VERSION.tar.gz of the tree SOURCE_DIR into OUT_DIR, with the
# top directory NAME-VERSION, as a release tarball would be (no .git, no build trees).
# Usage: source_tarball.sh SOURCE_DIR OUT_DIR NAME VERSION
set -euo pipefail
src=$1
out=$2
name=$3
version=$4
tar -C "$src" --exclude-vcs --exclude='./build' --exclude='./build-*' --exclude='./demo-out' \
  --exclude='./bench/out' --exclude='./obj-*' --exclude='./debian' \
  --transform "s,^\\.,$name-$version,S" -czf "$out/$name-$version.tar.gz" .
