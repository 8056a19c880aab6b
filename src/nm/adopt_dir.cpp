// --adopt's copies of the profiles it deletes, and the checks of where they go.
#include "nm/session.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/render.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace ibsetup::nm {

std::string save_keyfile(NMConnection* c, const std::string& dir)
{
  GError* error = nullptr;
  GKeyFile* kf = nm_keyfile_write(c, NM_KEYFILE_HANDLER_FLAGS_NONE, nullptr, nullptr, &error);
  if (kf == nullptr) {
    throw CallError("cannot render it as a keyfile: " + take_message(error));
  }
  gsize len = 0;
  gchar* data = g_key_file_to_data(kf, &len, nullptr);
  g_key_file_unref(kf);
  render::RenderedFile f;
  f.path = setting_string(c, nm_setting_connection_get_uuid) + ".nmconnection";
  f.mode = 0600;
  f.content = std::string(render::k_marker) +
              "\n# saved by ibsetup apply --adopt before it deleted this profile\n" +
              std::string(data, len);
  g_free(data);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    throw CallError("cannot create " + dir + ": " + ec.message());
  }
  render::write_file(dir, f);
  return dir + "/" + f.path;
}

namespace {

// The copies of uuids can be written in the existing dir: write_file refuses a file it did not
// write, and check_file finds that the same way.
void check_copies(const std::string& dir, const std::vector<std::string>& uuids)
{
  for (const auto& uuid : uuids) {
    render::RenderedFile copy;
    copy.path = uuid + ".nmconnection";
    copy.content = std::string(render::k_marker) + "\n";
    copy.mode = 0600;
    try {
      render::check_file(dir, copy);
    } catch (const EnvironmentError& e) {
      throw EnvironmentError("--adopt-dir " + dir + ": " + e.what() + "; nothing was changed");
    }
  }
}

}  // namespace

void check_adopt_dir(const std::string& dir, const std::vector<std::string>& uuids)
{
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target = fs::absolute(dir, ec);
  for (fs::path at = target;; at = at.parent_path()) {
    const auto st = fs::status(at, ec);
    if (fs::exists(st)) {
      if (!fs::is_directory(st)) {
        throw EnvironmentError("--adopt-dir " + dir + ": " + at.string() +
                               " is not a directory; nothing was changed");
      }
      // A read-only mount refuses root too (EROFS).
      if (::access(at.c_str(), W_OK) != 0) {
        throw EnvironmentError("--adopt-dir " + dir + ": " + at.string() + " is not writable (" +
                               std::strerror(errno) + "); nothing was changed");
      }
      if (at == target) {
        check_copies(dir, uuids);  // a directory the run will make is empty
      }
      return;
    }
    if (fs::is_symlink(fs::symlink_status(at, ec))) {
      throw EnvironmentError("--adopt-dir " + dir + ": " + at.string() +
                             " is a symbolic link to nothing; nothing was changed");
    }
    if (at == at.parent_path() || at.empty()) {
      return;
    }
  }
}

}  // namespace ibsetup::nm
