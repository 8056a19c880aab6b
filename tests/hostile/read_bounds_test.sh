#!/bin/bash
# Issue 13, item 2: ibsetup reads only what belongs to it, and only as much as it needs.
# Templates under --root are read without following symlinks, only regular files up to 64 KiB;
# a profile path that is a FIFO or a device is refused without blocking.
source "$(dirname "$0")/lib.sh" "$@"
profile=$src/profiles/lab.yaml
root=$tmp/root
tdir=$root/etc/ibsetup/templates
ifcfg_dir=$root/etc/sysconfig/network-scripts
render_ifcfg=(render "$profile" --node lab02 --root "$root" --format ifcfg)

# no_ifcfg NAME: a refused template writes no ifcfg file at all.
no_ifcfg() {
  if [ -n "$(ls -A "$ifcfg_dir" 2>/dev/null)" ]; then
    bad "$1: files were written: $(ls -A "$ifcfg_dir" | tr '\n' ' ')"
    rm -rf "$ifcfg_dir"
  else
    ok "$1: nothing written"
  fi
}

# A template planted as a symlink to a file outside the root.
echo "SECRET=outside" >"$outside/secret"
mkdir -p "$tdir"
ln -s "$outside/secret" "$tdir/ifcfg-ib"
hostile template-symlink-out 4 "ifcfg-ib is a symlink to $outside/secret" -- "${render_ifcfg[@]}"
no_ifcfg template-symlink-out
rm "$outside/secret" "$tdir/ifcfg-ib"

# A planted symlink whose target holds terminal escapes: refused, the target not printed.
ln -s "$(printf '%s/\033]0;owned\007x' "$outside")" "$tdir/ifcfg-ib"
hostile template-symlink-escapes 4 'ifcfg-ib is a symlink; files under the root are read without' \
  -- "${render_ifcfg[@]}"
no_ifcfg template-symlink-escapes
rm "$tdir/ifcfg-ib"

# The templates directory itself a symlink out of the root.
rmdir "$tdir"
mkdir -p "$tmp/elsewhere"
printf 'DEVICE={{DEVICE}}\nLEAKED=yes\n' >"$tmp/elsewhere/ifcfg-ib"
ln -s "$tmp/elsewhere" "$tdir"
hostile template-dir-symlink-out 4 'templates is a symlink or not a directory; refusing to read' \
  -- "${render_ifcfg[@]}"
no_ifcfg template-dir-symlink-out
rm "$tdir"
mkdir -p "$tdir"

# A FIFO nobody writes to: refused at once, not waited on.
mkfifo "$tdir/ifcfg-ib"
hostile template-fifo 4 'ifcfg-ib is a FIFO, not a regular file' -- "${render_ifcfg[@]}"
no_ifcfg template-fifo
rm "$tdir/ifcfg-ib"

# /dev/zero as a template, through --templates (a directory the administrator names: its
# symlinks are followed, but only to a regular file).
mkdir -p "$tmp/tpl"
ln -s /dev/zero "$tmp/tpl/ifcfg-ib"
hostile template-dev-zero 4 'ifcfg-ib is a character device, not a regular file' \
  -- "${render_ifcfg[@]}" --templates "$tmp/tpl"
no_ifcfg template-dev-zero
rm "$tmp/tpl/ifcfg-ib"

# A template larger than 64 KiB.
head -c 70000 /dev/zero | tr '\0' '#' >"$tdir/ifcfg-ib"
hostile template-oversized 4 'ifcfg-ib is larger than 64 KiB; refusing to read it' -- "${render_ifcfg[@]}"
no_ifcfg template-oversized
rm "$tdir/ifcfg-ib"

# A regular template under the root is still used.
printf 'DEVICE={{DEVICE}}\nSITE=yes\n' >"$tdir/ifcfg-ib"
cp "$src/templates/ifcfg-ib-child" "$tdir/"
hostile template-regular 0 'created' -- "${render_ifcfg[@]}"
if grep -q '^SITE=yes' "$ifcfg_dir/ifcfg-ib0" 2>/dev/null; then
  ok "template-regular: the template under the root was used"
else
  bad "template-regular: ifcfg-ib0 lacks SITE=yes"
fi

# Profiles that are not regular files.
mkfifo "$tmp/fifo.yaml"
hostile profile-fifo 3 'fifo.yaml: is a FIFO, not a regular file' -- validate "$tmp/fifo.yaml"
hostile profile-dev-zero 3 '/dev/zero: is a character device, not a regular file' \
  -- validate /dev/zero
hostile profile-dev-zero-render 3 '/dev/zero: is a character device' \
  -- render /dev/zero --node lab02 --root "$root"

# Hostlists are bounded over the whole profile, before anything is expanded: refused within
# 5 s and 256 MiB (before, three 999,999-host groups took 27 s and 630 MB, and a 2,000-character
# prefix on a million numbers reached 3 GB).
printf 'version: 1\nnodes:\n  - hosts: a[000001-999999]\n  - hosts: b[000001-999999]\n  - hosts: c[000001-999999]\n' >"$tmp/three.yaml"
HOSTILE_TIMEOUT=5 HOSTILE_MEM_MB=256 hostile hosts-three-big-groups 3 \
  'three.yaml:3:12: nodes[0].hosts: expands to 999999 hosts; a profile lists at most 100000 hosts' \
  -- validate "$tmp/three.yaml"
printf 'version: 1\nnodes:\n  - hosts: a[00001-90000]\n  - hosts: b[00001-20000]\n' >"$tmp/two.yaml"
HOSTILE_TIMEOUT=5 HOSTILE_MEM_MB=256 hostile hosts-total-over-groups 3 \
  'nodes[1].hosts: expands to 20000 hosts after 90000 hosts in the groups before it' \
  -- validate "$tmp/two.yaml"
{
  printf 'version: 1\nnodes:\n  - hosts: "'
  head -c 2000 /dev/zero | tr '\0' h
  printf '[000000-999999]"\n'
} >"$tmp/prefix.yaml"
HOSTILE_TIMEOUT=5 HOSTILE_MEM_MB=256 hostile hosts-long-prefix 3 \
  'host names of up to 2006 characters; a host name has at most 253' -- validate "$tmp/prefix.yaml"
printf 'version: 1\nnodes:\n  - hosts: "%s[1-1000].ib"\n' "$(head -c 60 /dev/zero | tr '\0' n)" \
  >"$tmp/label.yaml"
hostile hosts-long-label 3 'a part has at most 63' -- validate "$tmp/label.yaml"

# A huge file planted where a rendered file goes is never read whole (only enough to see that it
# does not carry ibsetup's marker): an 8 GiB sparse ifcfg under a 1 GiB address-space cap.
mkdir -p "$tmp/planted/etc/sysconfig/network-scripts"
truncate -s 8G "$tmp/planted/etc/sysconfig/network-scripts/ifcfg-ib0"
printf 'version: 1\nnodes:\n  - hosts: "n[1-2]"\n    interfaces:\n      - {name: ib0, ipv4: 10.0.0.0/24}\n' \
  >"$tmp/planted.yaml"
for dry in "" --dry-run; do
  hostile "planted-huge-target${dry}" 4 'ifcfg-ib0 exists and was not written by ibsetup' \
    -- render "$tmp/planted.yaml" --node n1 --root "$tmp/planted" --format ifcfg \
    --templates "$src/templates" ${dry:+"$dry"}
done

# check --timeout bounds the whole run, loading the profile included: a profile that takes
# seconds to parse (90,000 groups) is cut short after 1 s with a timeout failure.
awk 'BEGIN { print "version: 1\nnodes:"
  for (i = 0; i < 90000; i++)
    printf "  - hosts: cn%06d\n    interfaces:\n      - {name: ib0, device: mlx5_0, port: 1}\n", i }' \
  >"$tmp/slow.yaml"
HOSTILE_TIMEOUT=4 hostile check-timeout-slow-profile 5 \
  'check did not finish within 1 s (--timeout); the profile was still being loaded' \
  -- check "$tmp/slow.yaml" --node cn000001 --timeout 1
HOSTILE_TIMEOUT=4 hostile check-timeout-fifo-profile 3 'fifo.yaml: is a FIFO, not a regular file' \
  -- check "$tmp/fifo.yaml" --node cn000001 --timeout 1
finish
