#include "os/hostname.hpp"

#include <unistd.h>

#include <climits>

namespace ibsetup::os {

std::optional<std::string> short_hostname()
{
  // One byte more than gethostname may fill: a truncated name is not NUL-terminated.
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) {
    return std::nullopt;
  }
  return short_name(buf);
}

std::string short_name(const std::string& name)
{
  return name.substr(0, name.find('.'));
}

}  // namespace ibsetup::os
