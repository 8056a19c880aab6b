#!/bin/bash
# A node's offline files stay all or none against another writer and against signals
# (render/write_all): two renders into one root take turns (the second used to rename the
# first's temporary file, or the first the second's half-written one, into place: an empty
# keyfile, exit 0); a SIGTERM while the files are staged, or while the root's lock is awaited,
# undoes them (nothing under the root, the error printed), and one during the renames lets the
# node complete and print what it wrote; either way ibsetup then ends by the signal (exit 143).
# An existing target that is a device
# is refused without being opened; a pinned (chattr +i) target or directory is refused before
# anything is written, in the dry run too. strace only delays system calls, to land each event where
# it must; nothing is faked.
source "$(dirname "$0")/lib.sh" "$@"
if ! command -v strace >/dev/null || ! command -v flock >/dev/null; then
  echo "render_write: skipped: strace or flock missing"
  trap - EXIT
  rm -rf "$tmp"
  exit 77
fi
profile=$src/profiles/lab.yaml
sed 's/mtu: 2044/mtu: 1500/' "$profile" >"$tmp/labB.yaml"
sed 's/192\.168\./192.169./' "$profile" >"$tmp/labD.yaml" # every file differs
keyfiles=etc/NetworkManager/system-connections
render() { "$bin" render "$1" --node lab02 --root "$2" -q; }

# wait_for GLOB: until a file matching GLOB exists (the traced ibsetup reached its delay).
wait_for() {
  local i
  for i in $(seq 1 500); do
    compgen -G "$1" >/dev/null && return 0
    sleep 0.02
  done
  return 1
}
# child_of PID: the pid of strace's tracee (ibsetup itself, which is what a signal must reach).
child_of() { pgrep -P "$1" | head -1; }
verdict() { # NAME WHY: ok when WHY is empty
  if [ -z "$2" ]; then ok "$1"; else bad "$1: $2"; fi
}
# stopped_cleanly OUT MESSAGE: appends to $why unless ibsetup ended by SIGTERM ($code 143) with
# MESSAGE in the file OUT and nothing under $root.
stopped_cleanly() {
  [ "$code" = 143 ] || why=${why:-"exit $code, want 143"}
  grep -qF "$2" "$1" || why=${why:-"message: $(cat "$1")"}
  [ -z "$(find "$root" -mindepth 1)" ] || why=${why:-"left under the root: $(find "$root" -mindepth 1)"}
}

# 1. Two renders into one root: A is held just before its renames, B starts meanwhile with
# other content and its first write delayed. B waits for A's lock, so both succeed and B's
# content is what stays.
root=$tmp/race
mkdir "$root"
strace -o /dev/null -e trace=renameat,renameat2 -e inject=renameat,renameat2:delay_enter=1500000:when=1 \
  "$bin" render "$profile" --node lab02 --root "$root" -q >"$tmp/a.out" 2>&1 &
a=$!
wait_for "$root/$keyfiles/.*.ibsetup-tmp"
strace -o /dev/null -f -e trace=write -e inject=write:delay_enter=1000000:when=1 \
  "$bin" render "$tmp/labB.yaml" --node lab02 --root "$root" -q >"$tmp/b.out" 2>&1 &
b=$!
wait "$a"
ca=$?
wait "$b"
cb=$?
why=""
[ "$ca $cb" = "0 0" ] || why="exit $ca and $cb, want 0 0: $(cat "$tmp/a.out" "$tmp/b.out")"
[ -z "$why" ] && [ "$(grep -l 'mtu=1500' "$root/$keyfiles"/*.nmconnection | wc -l)" = 1 ] ||
  why=${why:-"B's ib0.8010 keyfile is not in place: $(ls -la "$root/$keyfiles")"}
[ -z "$why" ] && [ -n "$(find "$root" -name '*.ibsetup-tmp')" ] && why="temporary files left"
[ -z "$why" ] && [ -n "$(find "$root" -type f -empty)" ] && why="an empty file in place"
verdict "two renders into one root take turns" "$why"

# held_root DIR: DIR made and locked by another process for 15 s (its pid in $holder).
held_root() {
  root=$1
  mkdir "$root"
  flock -x "$root" sleep 15 &
  holder=$!
  cleanup_hooks+=("kill $holder 2>/dev/null")
  sleep 0.2
}

# 2. A root another ibsetup holds for longer than 10 s: exit 8, nothing written.
held_root "$tmp/held"
hostile "root held by another writer" 8 "another process has held a lock on $root for 10 s" \
  -- render "$profile" --node lab02 --root "$root"
verdict "root held: nothing written" "$(find "$root" -mindepth 1)"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

# 2b. SIGTERM while waiting for that lock: the wait ends there, nothing written, the error
# printed, then the signal ends ibsetup (it used to wait out the 10 s once the signal was held).
held_root "$tmp/held2"
"$bin" render "$profile" --node lab02 --root "$root" >"$tmp/w.out" 2>&1 &
s=$!
for _ in $(seq 1 250); do # until it has the root open: the lock is the first thing it asks
  for fd in /proc/"$s"/fd/*; do
    [ "$(readlink "$fd" 2>/dev/null)" = "$(realpath "$root")" ] && break 2
  done
  sleep 0.02
done
sleep 0.3
kill -TERM "$s"
start=$SECONDS
wait "$s"
code=$?
why=""
stopped_cleanly "$tmp/w.out" "interrupted (SIGTERM) while waiting for the lock on $root; nothing was written"
[ $((SECONDS - start)) -lt 5 ] || why=${why:-"waited out the lock"}
verdict "SIGTERM while waiting for the root's lock: ends the wait, exit 143" "$why"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

# 2c. SIGTERM while `--format udev --inventories -` waits for a producer that hangs (a stuck
# `clush ... inspect --json`): the read ends there, nothing written, exit 143. Held from the
# profile on, the signal used to leave the read waiting for ever.
root=$tmp/stdin
mkdir "$root"
fifo=$tmp/inventories.fifo
mkfifo "$fifo"
"$bin" render "$profile" --node lab01 --root "$root" --format udev --inventories - \
  <"$fifo" >"$tmp/i.out" 2>&1 &
s=$!
exec 7>"$fifo" # the writer end stays open and silent
for _ in $(seq 1 250); do # until it reads standard input (blocked in read)
  grep -q '^State:.*S (sleeping)' "/proc/$s/status" 2>/dev/null &&
    [ "$(cat "/proc/$s/wchan" 2>/dev/null)" = pipe_read ] && break
  sleep 0.02
done
kill -TERM "$s"
for _ in $(seq 1 500); do # at most 10 s: a read that outlasts the signal is the defect
  [ -d "/proc/$s" ] && [ "$(cut -d' ' -f3 "/proc/$s/stat" 2>/dev/null)" != Z ] || break
  sleep 0.02
done
hung=""
[ "$(cut -d' ' -f3 "/proc/$s/stat" 2>/dev/null)" = S ] && hung=yes && kill -KILL "$s"
wait "$s"
code=$?
exec 7>&-
why=""
[ -n "$hung" ] && why="still reading 10 s after SIGTERM"
stopped_cleanly "$tmp/i.out" "interrupted (SIGTERM) while reading -; nothing was written"
verdict "SIGTERM while reading inventories from a silent pipe: exit 143" "$why"

# 3. SIGTERM while the files are staged (the second fsync held): the staging is undone and
# says so, then the signal ends ibsetup (exit 143).
root=$tmp/term
mkdir "$root"
strace -o /dev/null -e trace=fsync -e inject=fsync:delay_enter=1500000:when=2 \
  "$bin" render "$profile" --node lab02 --root "$root" >"$tmp/t.out" 2>&1 &
s=$!
wait_for "$root/$keyfiles/.*.ibsetup-tmp"
sleep 0.3
kill -TERM "$(child_of "$s")"
wait "$s"
code=$?
why=""
stopped_cleanly "$tmp/t.out" \
  "interrupted (SIGTERM) before any file was replaced; nothing was written under $root"
verdict "SIGTERM while staging: undone and said, exit 143" "$why"

# 4. SIGTERM between two renames: the node completes and says what it wrote, then the signal
# ends the process (it used to end it before the report: exit 143 and no word of the files).
# held_at_second_rename ROOT MICROSECONDS: a render of the lab profile over labD's files in
# ROOT, started under strace (its pid in $s) and held that long at its second rename, once the
# first file is renamed (its 192.169 address gone).
held_at_second_rename() {
  mkdir "$1"
  render "$tmp/labD.yaml" "$1"
  strace -o /dev/null -e trace=renameat,renameat2 \
    -e inject=renameat,renameat2:delay_enter="$2":when=2 \
    "$bin" render "$profile" --node lab02 --root "$1" ${3:+"$3"} >"$1.out" 2>"$1.err" &
  s=$!
  for _ in $(seq 1 500); do
    [ "$(grep -l '192\.169\.' "$1/$keyfiles"/*.nmconnection 2>/dev/null | wc -l)" -lt 3 ] && break
    sleep 0.02
  done
}
# term_at_second_rename ROOT [-q]: that render stopped by SIGTERM at its second rename; $why
# says what is wrong with the exit, the node or the line on standard error.
term_at_second_rename() {
  held_at_second_rename "$1" 1500000 ${2:+"$2"}
  kill -TERM "$(child_of "$s")"
  wait "$s"
  code=$?
  why=""
  [ "$code" = 143 ] || why="exit $code, want 143 (SIGTERM after the renames)"
  [ -z "$why" ] && [ "$(grep -l '192\.169\.' "$1/$keyfiles"/*.nmconnection | wc -l)" = 0 ] ||
    why=${why:-"half a node: $(grep -H address "$1/$keyfiles"/*)"}
  [ -z "$why" ] && [ -n "$(find "$1" -name '*.ibsetup-tmp')" ] && why="temporary files left"
  [ -z "$why" ] && [ "$(cat "$1.err")" != "ibsetup: SIGTERM held until the write was complete; its files under $1 are in place" ] &&
    why="standard error does not say the files are in place: $(cat "$1.err")"
}
root=$tmp/term2
term_at_second_rename "$root"
[ -z "$why" ] && [ "$(grep -c "^updated  $root/$keyfiles/ibsetup-.*\.nmconnection\$" "$root.out")" != 3 ] &&
  why="the report lacks the 3 keyfiles: $(cat "$root.out" "$root.err")"
verdict "SIGTERM during the renames: the node completes and is reported" "$why"
# With -q nothing lists the files: standard error still says that they are in place.
root=$tmp/term2q
term_at_second_rename "$root" -q
[ -z "$why" ] && [ -s "$root.out" ] && why="-q printed: $(cat "$root.out")"
verdict "SIGTERM during the renames with -q: said on standard error" "$why"

# 4b. SIGKILL between two renames leaves the temporary files of the files not yet renamed; a
# later render removes them, also where the file it wants is already there (the profile put
# back): those used to stay for good beside the keyfiles.
root=$tmp/kill
held_at_second_rename "$root" 3000000
kill -KILL "$(child_of "$s")"
wait "$s"
left=$(find "$root" -name '*.ibsetup-tmp' | wc -l)
render "$tmp/labD.yaml" "$root"
code=$?
why=""
[ "$left" -gt 0 ] || why="the killed run left no temporary file to clean (the test missed its moment)"
[ -z "$why" ] && [ "$code" != 0 ] && why="re-run: exit $code"
[ -z "$why" ] && [ -n "$(find "$root" -name '*.ibsetup-tmp')" ] &&
  why="left after the re-run: $(find "$root" -name '*.ibsetup-tmp')"
verdict "SIGKILL during the renames: the next render removes the $left temporary files" "$why"

# 5. A device where a keyfile goes is refused unopened (opening one can act: a watchdog starts,
# a tty becomes the controlling terminal).
root=$tmp/dev
mkdir -p "$root/$keyfiles"
if mknod "$root/$keyfiles/ibsetup-ib1.nmconnection" c 1 3 2>/dev/null; then
  strace -o "$tmp/opens" -e trace=openat "$bin" render "$profile" --node lab02 --root "$root" \
    >"$tmp/d.out" 2>&1
  code=$?
  why=""
  [ "$code" = 4 ] || why="exit $code, want 4"
  grep -qF "ibsetup-ib1.nmconnection is a character device, not a regular file" "$tmp/d.out" ||
    why=${why:-"message: $(cat "$tmp/d.out")"}
  grep -q '"ibsetup-ib1.nmconnection"' "$tmp/opens" && why=${why:-"the device was opened"}
  verdict "a device at the target: refused unopened" "$why"
else
  echo "skip device target: mknod not permitted"
fi
# 6. A --templates directory that is not there is an error, not the stock templates (exit 0).
root=$tmp/tpl
mkdir "$root"
hostile "mistyped --templates" 4 "--templates $tmp/no-such-dir: No such file or directory" \
  -- render "$profile" --node lab02 --root "$root" --format ifcfg --templates "$tmp/no-such-dir"
: >"$tmp/a-file"
hostile "--templates a file" 4 "--templates $tmp/a-file: not a directory" \
  -- render "$profile" --node lab02 --root "$root" --format ifcfg --templates "$tmp/a-file"
verdict "mistyped --templates: nothing written" "$(find "$root" -mindepth 1)"
# 7. A pinned target (chattr +i) or directory is refused before anything is written, in the
# dry run too: the real run used to replace the others first and then fail (half a node).
root=$tmp/pinned
mkdir "$root"
render "$profile" "$root"
if chattr +i "$root/$keyfiles/ibsetup-ib0.8010.nmconnection" 2>/dev/null; then
  cleanup_hooks+=("chattr -i '$root/$keyfiles/ibsetup-ib0.8010.nmconnection'")
  before=$(cat "$root/$keyfiles"/*)
  for run in --dry-run --json; do
    hostile "immutable keyfile, $run" 4 \
      "ibsetup-ib0.8010.nmconnection is immutable (chattr +i); ibsetup cannot replace it" \
      -- render "$tmp/labD.yaml" --node lab02 --root "$root" "$run"
  done
  verdict "immutable keyfile: no file changed" "$([ "$(cat "$root/$keyfiles"/*)" = "$before" ] || echo changed)"
  chattr -i "$root/$keyfiles/ibsetup-ib0.8010.nmconnection"
  root=$tmp/pinned-dir
  mkdir -p "$root/etc"
  chattr +i "$root/etc"
  cleanup_hooks+=("chattr -i '$root/etc'")
  hostile "immutable /etc under the root, dry run" 4 "$root/etc is immutable (chattr +i)" \
    -- render "$profile" --node lab02 --root "$root" --dry-run
  chattr -i "$root/etc"
else
  echo "skip immutable targets: chattr not supported here"
fi
# 8. A keyfile larger than `ulimit -f` allows: the write past the limit raised SIGXFSZ, whose
# default ended render silently (exit 153) and left its temporary file under the root. Now the
# write fails (EFBIG): exit 4 naming the file, nothing left under the root.
root=$tmp/fsize
mkdir "$root"
prlimit --fsize=100 -- "$bin" render "$profile" --node lab02 --root "$root" 2>&1 >/dev/null |
  cat >"$tmp/fsize.out"
code=${PIPESTATUS[0]}
if [ "$code" = 4 ] && grep -qF "nmconnection: File too large" "$tmp/fsize.out"; then
  ok "file size limit: exit 4 naming the file"
else
  bad "file size limit: exit $code; $(head -c 500 "$tmp/fsize.out" | cat -v)"
fi
verdict "file size limit: nothing left under the root" "$(find "$root" -mindepth 1)"
finish
