// A file descriptor closed when it goes out of scope (render's safe writer, the inventory
// sources).
#pragma once

#include <unistd.h>

#include <utility>

namespace ibsetup::util {

class UniqueFd {
public:
  explicit UniqueFd(int fd) : m_fd(fd) {}
  ~UniqueFd()
  {
    if (m_fd >= 0) {
      ::close(m_fd);
    }
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  UniqueFd(UniqueFd&& other) noexcept : m_fd(other.m_fd) { other.m_fd = -1; }
  UniqueFd& operator=(UniqueFd&& other) noexcept
  {
    std::swap(m_fd, other.m_fd);
    return *this;
  }
  int get() const { return m_fd; }

private:
  int m_fd;
};

}  // namespace ibsetup::util
