// Whether inspect's reader threads read with descriptor tables of their own: a switch for the
// process that owns every thread, which only the program knows it is.
#pragma once

#pragma GCC visibility push(default)  // for the CLI: src/libibsetup.map.in says why

namespace ibsetup::inventory {

// Off unless the program turns it on. On: each reader thread inspect starts takes a copy of
// the descriptor table (unshare(CLONE_FILES)) before it reads, so that its thousands of opens
// and closes no longer contend for one table's lock with the other readers' (issue 15, bench/
// inspect_vs_ibstat.sh: 0.92 -> 0.83 of ibstat on two idle CPUs).
// The copy is why it is the program's call: until the thread ends, it keeps open every
// descriptor the process had when the thread started (a flock is then held, and a pipe's
// reader sees no end of file, after another thread closed them), and the kernel calls each
// file's flush when the thread drops them (NFS writes back, FUSE sends FLUSH). ibsetup's own
// program holds a handful of descriptors and closes none of them while inspect runs; a
// library host with other threads may not.
void set_private_reader_tables(bool on);

}  // namespace ibsetup::inventory

#pragma GCC visibility pop

namespace ibsetup::inventory {

bool private_reader_tables();  // inside the library only

}  // namespace ibsetup::inventory
