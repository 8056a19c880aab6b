#!/bin/bash
# Hostile inputs that ibsetup already handles: the harness's own smoke test.
source "$(dirname "$0")/lib.sh" "$@"
printf 'version: 1\nnodes: [\n' >"$tmp/unclosed.yaml"
hostile unclosed-flow 3 'unclosed.yaml:' -- validate "$tmp/unclosed.yaml"
hostile missing-profile 4 'cannot open the profile' -- validate "$tmp/nope.yaml"
finish
