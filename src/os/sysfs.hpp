// The one place that reads sysfs. Every path is relative to a root (default /sys), and
// symlinks are resolved by hand so that nothing outside the root is ever read.
#pragma once

#include "os/spent_fds.hpp"

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ibsetup::inventory {

class SysfsReader {
public:
  // live: root is the kernel's own sysfs, whose attributes are always regular files, so the
  // per-file type check (a captured tree could hold device nodes or FIFOs) is skipped.
  explicit SysfsReader(std::string root, bool live = false);
  ~SysfsReader();
  SysfsReader(const SysfsReader&) = delete;
  SysfsReader& operator=(const SysfsReader&) = delete;

  const std::string& root() const { return m_root; }
  bool live() const { return m_live; }

  // The path with every symlink resolved, relative to the root ("devices/pci0000:00/..."), or
  // nullopt when it does not exist, dangles, would leave the root or holds a NUL.
  std::optional<std::string> resolve(const std::string& rel) const;

  // The attribute's content without trailing whitespace; nullopt when missing or unreadable,
  // or when `rel` holds a NUL. Throws EnvironmentError when the process has no file descriptor
  // left to read it with.
  std::optional<std::string> read(const std::string& rel) const;

  // Why the last read() or read_in() gave nullopt for a file that is there but is not a
  // readable attribute: "" when it is missing, or when the kernel refused the read as it does
  // routinely (EINVAL for a down netdev's carrier, ENOSYS for counters a driver lacks). Else
  // "not a regular file", "larger than 64 KiB" or the strerror of EACCES, EPERM or EIO, so that
  // inspect can say the file is unreadable rather than show it as missing.
  const std::string& unreadable() const { return m_unreadable; }

  // The same for `name`, one path component, in a directory resolve() returned: a 128-entry
  // P_Key table is read with one resolution, not 128. nullopt for "", ".", ".." or a name with
  // a '/' or a NUL.
  std::optional<std::string> read_in(const std::string& resolved_dir,
                                     const std::string& name) const;

  // Entry names of a directory, sorted; empty when it is missing. Throws as read() does.
  std::vector<std::string> list(const std::string& rel) const;

  // The last component of a symlink's target ("mlx5_core" for device/driver).
  std::optional<std::string> link_name(const std::string& rel) const;

  bool is_dir(const std::string& rel) const;

private:
  // `descriptors`: RLIMIT_NOFILE's soft limit, read once for both shares derived from it.
  SysfsReader(std::string root, bool live, unsigned long long descriptors);
  struct Resolved {
    std::optional<std::string> path;
    bool cut_short = false;  // the link budget ran out on the way: true for this budget only
  };
  Resolved resolve_depth(const std::string& rel, int links) const;
  Resolved follow(const std::string& dir, const std::string& target, int links) const;
  // An O_PATH descriptor of a resolved directory, cached: reading a port's attributes and its
  // 128-entry P_Key table then costs one path component per file, not a walk from the root.
  int dir_fd(const std::string& resolved) const;
  void close_dir_fds() const;
  // Out of descriptors: gives back the spent and the cached ones; false when there were none.
  bool release_descriptors() const;
  template <class Open, class Describe>
  int open_with_retry(const Open& attempt, const Describe& describe) const;
  int open_attribute(const std::string& dir, const char* name) const;
  int walk(const std::string& resolved, int flags) const;
  int root_fd() const;
  // A name for the *at() calls: a directory descriptor (or AT_FDCWD) and a name in it.
  struct Entry {
    int dir = -1;
    std::string name;
  };
  Entry entry_in(const std::string& dir, const std::string& name, const std::string& path) const;
  // read_in() for a name known to hold no '/' (the tail of a path).
  std::optional<std::string> read_component(const std::string& dir, const char* name) const;
  // Sets m_unreadable for an errno that means "there, but unreadable".
  void note_refusal(int error) const;

  std::string m_root;
  bool m_live = false;
  mutable int m_root_fd = -1;  // a captured tree's root (O_PATH), where walk() starts
  mutable std::unordered_map<std::string, std::optional<std::string>> m_resolved;
  mutable std::string m_key;  // read()'s directory, looked up without a new string each time
  size_t m_max_dir_fds;
  mutable std::unordered_map<std::string, int> m_dir_fds;
  mutable std::string m_last_dir;  // the last directory dir_fd() returned, and its descriptor
  mutable int m_last_dir_fd = -1;
  mutable SpentFds m_spent;  // attributes read, closed in batches
  mutable std::string m_unreadable;
};

}  // namespace ibsetup::inventory
