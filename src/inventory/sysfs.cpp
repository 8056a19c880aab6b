#include "inventory/sysfs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace ibsetup::inventory {

namespace {

constexpr int k_max_links = 40;
constexpr size_t k_max_attribute = 65536;

std::vector<std::string> split(const std::string& path)
{
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) {
      end = path.size();
    }
    if (end > start) {
      out.push_back(path.substr(start, end - start));
    }
    start = end + 1;
  }
  return out;
}

std::string join(const std::vector<std::string>& parts)
{
  std::string out;
  for (const auto& p : parts) {
    out += (out.empty() ? "" : "/") + p;
  }
  return out;
}

}  // namespace

SysfsReader::SysfsReader(std::string root) : m_root(std::move(root))
{
  while (m_root.size() > 1 && m_root.back() == '/') {
    m_root.pop_back();
  }
}

std::optional<std::string> SysfsReader::resolve(const std::string& rel) const
{
  const auto cached = m_resolved.find(rel);
  if (cached != m_resolved.end()) {
    return cached->second;
  }
  std::vector<std::string> pending = split(rel);
  std::reverse(pending.begin(), pending.end());
  std::vector<std::string> done;
  int links = 0;
  std::optional<std::string> result;
  bool ok = true;
  while (ok && !pending.empty()) {
    std::string part = pending.back();
    pending.pop_back();
    if (part == ".") {
      continue;
    }
    if (part == "..") {
      if (done.empty()) {
        ok = false;  // would leave the root
        break;
      }
      done.pop_back();
      continue;
    }
    done.push_back(part);
    const std::string full = m_root + "/" + join(done);
    struct stat st {};
    if (lstat(full.c_str(), &st) != 0) {
      ok = false;
      break;
    }
    if (!S_ISLNK(st.st_mode)) {
      continue;
    }
    if (++links > k_max_links) {
      ok = false;
      break;
    }
    char target[4096];
    const ssize_t n = readlink(full.c_str(), target, sizeof target - 1);
    if (n <= 0) {
      ok = false;
      break;
    }
    std::string t(target, static_cast<size_t>(n));
    done.pop_back();
    if (t.front() == '/') {
      // Absolute links only make sense inside a live /sys; map "/sys/..." into the root.
      if (t.compare(0, 5, "/sys/") != 0) {
        ok = false;
        break;
      }
      done.clear();
      t = t.substr(5);
    }
    auto parts = split(t);
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
      pending.push_back(*it);
    }
  }
  if (ok) {
    result = join(done);
  }
  m_resolved.emplace(rel, result);
  return result;
}

std::optional<std::string> SysfsReader::read(const std::string& rel) const
{
  const auto slash = rel.rfind('/');
  std::string path;
  if (slash == std::string::npos) {
    path = rel;
  } else {
    const auto dir = resolve(rel.substr(0, slash));
    if (!dir) {
      return std::nullopt;
    }
    path = *dir + rel.substr(slash);
  }
  const std::string full = m_root + "/" + path;
  const int fd = open(full.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    return std::nullopt;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return std::nullopt;
  }
  std::string out;
  char buf[4096];
  ssize_t n = 0;
  while ((n = ::read(fd, buf, sizeof buf)) > 0 && out.size() < k_max_attribute) {
    out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  if (n < 0) {
    return std::nullopt;
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ' || out.back() == '\t' ||
                          out.back() == '\r' || out.back() == '\0')) {
    out.pop_back();
  }
  return out;
}

std::vector<std::string> SysfsReader::list(const std::string& rel) const
{
  std::vector<std::string> out;
  const auto dir = resolve(rel);
  if (!dir) {
    return out;
  }
  DIR* d = opendir((m_root + "/" + *dir).c_str());
  if (d == nullptr) {
    return out;
  }
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") {
      out.push_back(name);
    }
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> SysfsReader::link_name(const std::string& rel) const
{
  const auto slash = rel.rfind('/');
  const auto dir =
      slash == std::string::npos ? std::optional<std::string>("") : resolve(rel.substr(0, slash));
  if (!dir) {
    return std::nullopt;
  }
  const std::string full = m_root + "/" + *dir + (dir->empty() ? "" : "/") + rel.substr(slash + 1);
  char target[4096];
  const ssize_t n = readlink(full.c_str(), target, sizeof target - 1);
  if (n <= 0) {
    return std::nullopt;
  }
  std::string t(target, static_cast<size_t>(n));
  return t.substr(t.rfind('/') + 1);
}

bool SysfsReader::is_dir(const std::string& rel) const
{
  const auto r = resolve(rel);
  if (!r) {
    return false;
  }
  struct stat st {};
  return stat((m_root + "/" + *r).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace ibsetup::inventory
