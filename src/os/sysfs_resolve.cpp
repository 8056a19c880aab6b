// Resolving a path in the tree: links followed inside the root only, each directory looked up
// once (the reader's cache), and both links and components bounded whatever a tree holds.
#include "os/sysfs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string_view>

namespace ibsetup::inventory {

namespace {

constexpr int k_max_links = 40;
constexpr long k_max_components = 64;

// A link's target: sysfs targets are a few dozen bytes, so a small buffer on the stack serves,
// and only a longer one (up to PATH_MAX) costs a heap buffer. Not inlined into the recursive
// resolver, so that its frames stay small.
__attribute__((noinline)) std::string link_target(int dir, const char* name)
{
  char small[256];
  ssize_t n = readlinkat(dir, name, small, sizeof small);
  if (n >= 0 && static_cast<size_t>(n) < sizeof small) {
    return std::string(small, static_cast<size_t>(n));
  }
  if (n < 0) {
    return std::string();
  }
  std::string big(4096, '\0');
  n = readlinkat(dir, name, &big[0], big.size() - 1);
  big.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return big;
}

// The directory above a path that holds no link ("" above a top-level name).
std::string parent_of(const std::string& path)
{
  const auto up = path.rfind('/');
  return up == std::string::npos ? std::string() : path.substr(0, up);
}

}  // namespace

std::optional<std::string> SysfsReader::resolve(const std::string& rel) const
{
  if (rel.find('\0') != std::string::npos) {
    return std::nullopt;  // no sysfs name holds one; the system calls would stop there
  }
  return resolve_depth(rel, 0).path;
}

// Resolves a relative link target from the directory holding the link. That directory's path
// is resolved (it holds no link), so the target's leading ".." components can be taken off it as
// text: "../../devices/pci0000:10/..." from class/infiniband and from class/net continue from the
// same "devices/pci0000:10/...", whose directories are then looked up once, not once per name.
// Past the leading ones, a ".." follows a component that may itself be a link, and is left to
// resolve_depth. (The bound on components then counts only what is left.)
SysfsReader::Resolved SysfsReader::follow(const std::string& dir, const std::string& target,
                                          int links) const
{
  std::string base = dir;
  size_t at = 0;
  while (at < target.size()) {
    const size_t end = std::min(target.find('/', at), target.size());
    const std::string_view part(target.data() + at, end - at);
    if (part == "..") {
      if (base.empty()) {
        return {};  // never above the root
      }
      base = parent_of(base);
    } else if (!part.empty() && part != ".") {
      break;
    }
    at = end + 1;
  }
  if (at >= target.size()) {
    return resolve_depth(base, links);
  }
  return resolve_depth(base.empty() ? target.substr(at) : base + "/" + target.substr(at), links);
}

// Resolves the parent (cached), then only the last component: one lstat per directory.
SysfsReader::Resolved SysfsReader::resolve_depth(const std::string& rel, int links) const
{
  const auto cached = m_resolved.find(rel);
  if (cached != m_resolved.end()) {
    return {cached->second, false};
  }
  Resolved result;
  // Recursion runs once per component and per link: bound both, whatever a tree holds.
  if (std::count(rel.begin(), rel.end(), '/') > k_max_components) {
    m_resolved.emplace(rel, result.path);
    return result;
  }
  const auto slash = rel.rfind('/');
  const std::string last = slash == std::string::npos ? rel : rel.substr(slash + 1);
  const Resolved parent = slash == std::string::npos ? Resolved{std::string(), false}
                                                     : resolve_depth(rel.substr(0, slash), links);
  result.cut_short = parent.cut_short;
  if (!parent.path) {
    result.path = std::nullopt;
  } else if (last.empty() || last == ".") {
    result.path = parent.path;
  } else if (last == "..") {
    if (!parent.path->empty()) {  // never above the root
      result.path = parent_of(*parent.path);
    }
  } else {
    const std::string path = parent.path->empty() ? last : *parent.path + "/" + last;
    const Entry entry = entry_in(*parent.path, last, path);
    struct stat st {};
    if (fstatat(entry.dir, entry.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      result.path = std::nullopt;
    } else if (!S_ISLNK(st.st_mode)) {
      result.path = path;
    } else if (links < k_max_links) {
      const std::string t = link_target(entry.dir, entry.name.c_str());
      Resolved linked;
      if (!t.empty() && t.front() == '/') {
        // Absolute links only make sense inside a live /sys: map "/sys/..." into the root.
        if (t.compare(0, 5, "/sys/") == 0) {
          linked = resolve_depth(t.substr(5), links + 1);
        }
      } else if (!t.empty()) {
        linked = follow(*parent.path, t, links + 1);
      }
      result.path = linked.path;
      result.cut_short = result.cut_short || linked.cut_short;
    } else {
      result.cut_short = true;
    }
  }
  // An answer cut short by the link budget holds for this budget only. A name resolved from
  // scratch (no link followed yet) always gets the same budget; one reached through links is
  // shared by every name that leads there (follow()), so it must not keep such an answer.
  if (!result.cut_short || links == 0) {
    m_resolved.emplace(rel, result.path);
  }
  return result;
}

std::optional<std::string> SysfsReader::link_name(const std::string& rel) const
{
  const auto slash = rel.rfind('/');
  const auto dir =
      slash == std::string::npos ? std::optional<std::string>("") : resolve(rel.substr(0, slash));
  if (!dir) {
    return std::nullopt;
  }
  const std::string name = rel.substr(slash + 1);
  const Entry entry = entry_in(*dir, name, *dir + (dir->empty() ? "" : "/") + name);
  const std::string t = link_target(entry.dir, entry.name.c_str());
  if (t.empty()) {
    return std::nullopt;
  }
  return t.substr(t.rfind('/') + 1);
}

}  // namespace ibsetup::inventory
