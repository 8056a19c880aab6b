#include "check/saved_inventory.hpp"

#include "common/bounded_read.hpp"
#include "common/strings.hpp"
#include "common/unique_fd.hpp"

#include <ibsetup/error.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ibsetup::check::detail {

namespace {

// Far above any real inventory (a few KiB per HCA); reading stops there.
constexpr size_t k_max_inventory = size_t{16} << 20;

std::string too_large(const std::string& name)
{
  return name + ": not an `ibsetup inspect --json` inventory: larger than " +
         std::to_string(k_max_inventory >> 20) + " MiB";
}

// Standard input (`inspect --json | check --inventory -`), within the same bound.
std::string read_stdin()
{
  util::refuse_terminal(STDIN_FILENO, "--inventory -", "`ibsetup inspect --json`");
  auto r = util::read_stream_bounded(STDIN_FILENO, k_max_inventory);
  if (r.status == util::BoundedRead::Status::too_large) {
    throw InputError(too_large("standard input"));
  }
  if (r.status != util::BoundedRead::Status::ok) {
    throw EnvironmentError(std::string("cannot read standard input: ") + std::strerror(r.error));
  }
  return std::move(r.text);
}

// A file is looked at before it is opened: a FIFO would wait for a writer until the
// watchdog ends the check, and opening a device can act on it.
std::string read_file(const std::string& path)
{
  const std::string name = util::escape_text(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw EnvironmentError("cannot read " + name + ": " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    throw InputError(name + " is " + util::file_kind(st.st_mode) +
                     ": give a saved `ibsetup inspect --json`, or - for standard input");
  }
  const util::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (fd.get() < 0) {
    throw EnvironmentError("cannot read " + name + ": " + std::strerror(errno));
  }
  auto r = util::read_bounded(fd.get(), k_max_inventory);
  switch (r.status) {
  case util::BoundedRead::Status::ok:
    return std::move(r.text);
  case util::BoundedRead::Status::not_regular:
    throw InputError(name + " is " + util::file_kind(r.mode) +
                     ": give a saved `ibsetup inspect --json`, or - for standard input");
  case util::BoundedRead::Status::too_large:
    throw InputError(too_large(name));
  case util::BoundedRead::Status::failed:
  default:
    throw EnvironmentError("cannot read " + name + ": " + std::strerror(r.error));
  }
}

}  // namespace

inventory::Host read_saved(const std::string& path)
{
  const bool in = path == "-";
  const std::string text = in ? read_stdin() : read_file(path);
  try {
    return inventory::host_from_json(text);
  } catch (const InputError& e) {
    throw InputError((in ? std::string("standard input") : util::escape_text(path)) +
                     ": not an `ibsetup inspect --json` inventory: " + e.what());
  }
}

}  // namespace ibsetup::check::detail
