// The reboot marker (/run/ibsetup/reboot-required): one line per device that owes a reboot,
// written atomically, kept for devices a run did not look at, removed when none is owed.
#include <ibsetup/firmware.hpp>
#include <ibsetup/render.hpp>
#include "common/bounded_read.hpp"
#include "common/strings.hpp"
#include "common/unique_fd.hpp"
#include "firmware/reboot.hpp"
#include "render/write_all.hpp"

#include <fcntl.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace ibsetup::firmware {

void update_reboot_marker(const std::string& path, const State& state)
{
  detail::write_reboot_marker(path, state, {});
}

namespace {

// The device lines of the marker at target that ibsetup wrote, for devices this run did not
// look at (its profile declares other HCAs, or a run with another profile set them): a reboot
// they owe is not known to be paid until the host reboots, which empties /run.
std::string lines_of_others(const std::filesystem::path& target, const State& state)
{
  constexpr size_t k_max_marker = 1 << 20;
  const util::UniqueFd fd(
      ::open(target.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (fd.get() < 0) {
    return "";
  }
  const auto r = util::read_bounded(fd.get(), k_max_marker);
  if (r.status != util::BoundedRead::Status::ok ||
      r.text.compare(0, std::strlen(render::k_marker), render::k_marker) != 0) {
    return "";  // none, or not ibsetup's: write_file refuses to replace a foreign one
  }
  std::set<std::string> looked_at;
  for (const auto& d : state.devices) {
    looked_at.insert(util::escape_text(d.device) + " " + util::escape_text(d.pci));
  }
  std::string kept;
  std::istringstream in(r.text);
  std::string line;
  while (std::getline(in, line)) {
    const auto second = line.find(' ', line.find(' ') + 1);
    if (line.empty() || line[0] == '#' || second == std::string::npos ||
        looked_at.count(line.substr(0, second)) != 0) {
      continue;
    }
    kept += line + "\n";
  }
  return kept;
}

}  // namespace

void detail::write_reboot_marker(const std::string& path, const State& state,
                                 const std::vector<Change>& done)
{
  // The marker lives at a system path the administrator chose, so the directories' own
  // symlinks (/var/run -> /run) are theirs to follow; only the file itself never is.
  if (path.empty()) {
    throw EnvironmentError("no path given for the reboot marker");
  }
  std::error_code cwd_error;
  const std::filesystem::path absolute = std::filesystem::absolute(path, cwd_error);
  if (cwd_error) {
    throw EnvironmentError("reboot marker " + path + ": " + cwd_error.message());
  }
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::weakly_canonical(absolute.parent_path(), ec);
  const std::filesystem::path target = (ec ? absolute.parent_path() : dir) / absolute.filename();
  std::string lines;
  for (const auto& d : state.devices) {
    if (std::none_of(d.ports.begin(), d.ports.end(),
                     [&](const auto& p) { return reboot_owed(d, p, done); })) {
      continue;
    }
    // One line per device: names from sysfs are escaped, so none can start a line of its own.
    lines += util::escape_text(d.device) + " " + util::escape_text(d.pci);
    for (const auto& p : d.ports) {
      if (reboot_owed(d, p, done)) {
        lines +=
            " LINK_TYPE_P" + std::to_string(p.mst_port()) + "=" + mst_name(*p.next_boot) + " (" +
            (p.mst_port() != p.port ? "port " + std::to_string(p.port) + ", " : std::string()) +
            "running " +
            (p.link_layer && p.link_layer->value != inventory::LinkLayer::other
                 ? p.link_layer->name()
                 : std::string("?")) +
            ")";
      }
    }
    lines += "\n";
  }
  lines += lines_of_others(target, state);
  if (lines.empty()) {
    render::remove_file("/", target.relative_path().string());  // only a marker ibsetup wrote
    return;
  }
  render::RenderedFile file;
  file.path = target.relative_path().string();
  file.content = std::string(render::k_marker) + "\n" +
                 "# Firmware link types change at the next boot; reboot to load them.\n" + lines;
  file.mode = 0644;
  // Written whatever stop signal comes meanwhile, which is delivered once the file is in place:
  // it tells of a card already set (set_step's guard holds the signal until the report is made).
  render::write_all("/", {file}, render::OnStop::finish);
}

}  // namespace ibsetup::firmware
