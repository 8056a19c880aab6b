// read_inventories: the input of `partitions --inventories SRC` and `render --format udev`,
// read within bounds (SourceLimits) whatever it is: standard input, a file or a directory.
#include "common/unique_fd.hpp"
#include "partitions/inventories.hpp"

#include "common/bounded_read.hpp"
#include "common/strings.hpp"
#include "common/termination_guard.hpp"
#include "os/hostname.hpp"
#include "partitions/source_parse.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/hostlist.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace ibsetup::partitions {

namespace {

using Fd = util::UniqueFd;

std::string mib(size_t bytes)
{
  return std::to_string(bytes >> 20U) + " MiB";
}

std::string shown(const std::string& path)
{
  return util::escape_text(path);
}

// Cuts what fd gives into lines for parser. Of a line longer than max_line only the start is
// kept; the rest is read past, within max_total for the whole input.
void feed(int fd, const std::string& name, SourceParser& parser, const SourceLimits& limits)
{
  std::vector<char> buf(65536);
  std::string line;
  size_t length = 0;
  size_t total = 0;
  for (;;) {
    const ssize_t n = util::read_waiting(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR && TerminationGuard::pending() != 0) {
      throw Error(ErrorKind::apply_failed,
                  std::string("interrupted (") + util::signal_name(TerminationGuard::pending()) +
                      ") while reading " + shown(name) + "; nothing was written");
    }
    if (n < 0) {
      throw InputError("cannot read " + shown(name) + ": " + std::strerror(errno));
    }
    if (n == 0) {
      break;
    }
    total += static_cast<size_t>(n);
    if (total > limits.max_total) {
      throw InputError(shown(name) + " holds more than " + mib(limits.max_total) +
                       ", more than the inventories of any fabric");
    }
    const char* p = buf.data();
    const char* end = p + n;
    while (p < end) {
      const auto* newline = static_cast<const char*>(std::memchr(p, '\n', end - p));
      const size_t seg = static_cast<size_t>((newline != nullptr ? newline : end) - p);
      line.append(p, std::min(seg, limits.max_line - std::min(limits.max_line, line.size())));
      length += seg;
      p += seg;
      if (newline != nullptr) {
        parser.line(line, length);
        line.clear();
        length = 0;
        ++p;
      }
    }
  }
  if (length > 0) {
    parser.line(line, length);
  }
  parser.finish();
}

void read_stream(int fd, const std::string& name, Collector& c)
{
  SourceParser parser(name, c);
  feed(fd, name, parser, c.limits);
}

[[noreturn]] void refuse_kind(const std::string& path, mode_t mode)
{
  throw InputError(shown(path) + " is " + util::file_kind(mode) +
                   ": give a file, a directory of HOST.json files, or - for standard input");
}

void read_file(const std::string& path, Collector& c)
{
  // The caller has refused what is not a regular file before it is opened. O_NONBLOCK: a
  // FIFO swapped in meanwhile must not make ibsetup wait for a writer; it is refused below.
  struct stat st {};
  Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0) {
    throw InputError("cannot read " + shown(path) + ": " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    refuse_kind(path, st.st_mode);
  }
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags >= 0) {
    (void)::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
  }
  read_stream(fd.get(), shown(path), c);
}

void read_directory(const std::string& dir, Collector& c)
{
  Fd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  DIR* d = dfd.get() < 0 ? nullptr : ::fdopendir(::dup(dfd.get()));
  if (d == nullptr) {
    throw InputError("cannot read the directory " + shown(dir) + ": " + std::strerror(errno));
  }
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) {
      names.push_back(name);
    }
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());  // the same hosts first, and problems in order, each time
  const std::string prefix = !dir.empty() && dir.back() == '/' ? dir : dir + "/";
  if (names.empty()) {
    c.problem(shown(dir), "no HOST.json files in this directory");
  }
  size_t total = 0;
  for (const auto& name : names) {
    const std::string where = shown(prefix + name);
    const std::string host = name.substr(0, name.size() - 5);
    if (!is_valid_hostname(host)) {
      c.problem(where, "the file name does not name a host (HOST.json); left out");
      continue;
    }
    // The nodes may write this directory, and it is read as root: a link (to /etc/shadow, to
    // a device) is not followed, and a device is not opened, which can act on it.
    struct stat st {};
    if (::fstatat(dfd.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode)) {
      c.problem(where, std::string("is ") + util::file_kind(st.st_mode) + ", not a file; left out");
      continue;
    }
    Fd fd(::openat(dfd.get(), name.c_str(),
                   O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC));
    if (fd.get() < 0) {
      c.problem(where, errno == ELOOP ? std::string("is a symlink, not a file; left out")
                                      : std::string("cannot read it: ") + std::strerror(errno));
      continue;
    }
    const auto r = util::read_bounded(fd.get(), c.limits.max_file);
    switch (r.status) {
    case util::BoundedRead::Status::ok:
      break;
    case util::BoundedRead::Status::not_regular:
      c.problem(where, std::string("is ") + util::file_kind(r.mode) + ", not a file; left out");
      continue;
    case util::BoundedRead::Status::too_large:
      c.problem(where, "larger than " + mib(c.limits.max_file) +
                           ", which no inventory of one host is; left out");
      continue;
    case util::BoundedRead::Status::failed:
    default:
      c.problem(where, std::string("cannot read it: ") + std::strerror(r.error));
      continue;
    }
    total += r.text.size();
    if (total > c.limits.max_total) {
      throw InputError(shown(dir) + " holds more than " + mib(c.limits.max_total) +
                       " of inventories, more than the inventories of any fabric");
    }
    if (auto h = host_from_inspect(c, r.text, host, where)) {
      c.host(std::move(*h));
    }
  }
}

}  // namespace

const InventoryHost* find_inventory(const Inventories& inventories, const std::string& host)
{
  if (const auto it = inventories.hosts.find(host); it != inventories.hosts.end()) {
    return &it->second;
  }
  const auto short_host = os::short_name(host);
  if (short_host == host) {
    return nullptr;
  }
  const auto it = inventories.hosts.find(short_host);
  return it == inventories.hosts.end() ? nullptr : &it->second;
}

Inventories read_inventories(const std::string& src)
{
  return read_inventories(src, SourceLimits(), STDIN_FILENO);
}

Inventories read_inventories(const std::string& src, const SourceLimits& limits, int stdin_fd)
{
  Inventories out;
  Collector c(out, limits);
  if (src == "-") {
    util::refuse_terminal(stdin_fd, "--inventories -",
                          "`ibsetup inspect --json` lines (clush, pdsh)");
    read_stream(stdin_fd, "-", c);
  } else {
    struct stat st {};
    if (::stat(src.c_str(), &st) != 0) {
      throw InputError("cannot read " + shown(src) + ": " + std::strerror(errno));
    }
    if (S_ISDIR(st.st_mode)) {
      read_directory(src, c);
    } else if (!S_ISREG(st.st_mode)) {
      // Not opened: opening a device can act on it (a watchdog is armed, a tty becomes the
      // controlling terminal).
      refuse_kind(src, st.st_mode);
    } else {
      read_file(src, c);
    }
  }
  c.finish(src == "-" ? "-" : shown(src));
  return out;
}

}  // namespace ibsetup::partitions
