#!/bin/bash
# Sources the bash completion (packaging/completion/ibsetup) in bash and checks COMPREPLY for
# subcommands, options, option values and --node hosts from the profile on the command line.
# Usage: completion_test.sh IBSETUP SOURCE_DIR
set -uo pipefail
bin=$1
src=$2
lab=$src/profiles/lab.yaml
# shellcheck source=/dev/null
source "$src/packaging/completion/ibsetup"

fails=0
# complete NAME EXPECTED WORD... : completes the last WORD (the cursor is at its end) and
# compares the sorted COMPREPLY, one per line joined by spaces, with EXPECTED.
complete_case()
{
  local name=$1 expected=$2
  shift 2
  COMP_WORDS=("$bin" "$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMP_LINE="${COMP_WORDS[*]}"
  COMP_POINT=${#COMP_LINE}
  COMPREPLY=()
  _ibsetup
  local got
  got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | paste -sd' ')
  if [ "$got" = "$expected" ]; then
    echo "ok   $name"
  else
    echo "FAIL $name: expected '$expected', got '$got'"
    fails=$((fails + 1))
  fi
}
# contains NAME WORD WORDS... : COMPREPLY of the case must contain WORD.
contains_case()
{
  local name=$1 want=$2
  shift 2
  COMP_WORDS=("$bin" "$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _ibsetup
  if grep -qxF -- "$want" <<<"$(printf '%s\n' "${COMPREPLY[@]}")"; then
    echo "ok   $name"
  else
    echo "FAIL $name: '$want' not in: ${COMPREPLY[*]}"
    fails=$((fails + 1))
  fi
}

complete_case subcommand-prefix 'validate' va
complete_case subcommand-r 'render report responder' r
contains_case subcommands-check check ''
complete_case no-hidden-subcommand '' rdma-
complete_case top-options '--help --version' --
complete_case apply-dry '--dry-run' apply "$lab" --dr
complete_case apply-n '--no-activate --no-firmware --node' apply --n
complete_case node-hosts 'lab01 lab02 lab03 lab04' show "$lab" --node ''
complete_case node-hosts-prefix 'lab03' plan "$lab" --node lab03
complete_case node-file-after 'lab01 lab02 lab03 lab04' apply --json "$lab" --node l
complete_case node-value-not-file 'lab01 lab02 lab03 lab04' show --node lab01 "$lab" --node l
if [ ! -e /etc/ibsetup/cluster.yaml ]; then
  complete_case node-no-profile '' show --node ''
fi
complete_case backend 'netlink networkmanager' apply "$lab" --backend n
complete_case render-format 'hosts ifcfg nm-keyfile udev' render "$lab" --format ''
complete_case check-format 'json nhc openmetrics text' check "$lab" --format ''
complete_case report-format 'json openmetrics text' report --format ''
complete_case partitions-format 'opensm ufm' partitions "$lab" --format ''
complete_case value-without-completion '' apply "$lab" --wait ''
complete_case profile-file "$lab" validate "${lab%.yaml}"

# Every option of every subcommand's --help is offered after `SUB --`.
subs=$("$bin" --help | sed -n '/^Subcommands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p')
[ -n "$subs" ] || { echo "FAIL no subcommands parsed from --help"; fails=$((fails + 1)); }
for sub in $subs; do
  want=$("$bin" "$sub" --help | grep -oE '^ +(-[a-zA-Z],)?--[a-z0-9-]+' | sed 's/.*,//; s/^ *//' |
    sort | paste -sd' ')
  complete_case "all-options-$sub" "$want" "$sub" --
done

if [ "$fails" -ne 0 ]; then
  echo "$fails completion case(s) failed"
  exit 1
fi
echo "all completion cases passed"
