// Offline rendering: persistent configuration for a node written under a root directory
// (kickstart %post, image builds), with no daemon running.
#pragma once
#pragma GCC visibility push(default)  // the public API: export.hpp says why

#include <ibsetup/profile.hpp>

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibsetup::render {

// A file to write, its path relative to the root ("etc/sysconfig/network-scripts/ifcfg-ib0").
struct RenderedFile {
  std::string path;
  std::string content;
  mode_t mode = 0644;
};

// The first line of every file ibsetup writes; files without it are never overwritten.
extern const char* const k_marker;

enum class WriteResult { created, updated, unchanged };

const char* to_string(WriteResult result);

// Writes file under root: every directory is opened without following symlinks (a symlink
// anywhere under the root is refused, so nothing outside it is touched), missing directories
// are created 0755, the content goes to a temporary file that is fsynced and renamed over
// the target. Unchanged content is not rewritten (the mtime stays). An existing file without
// k_marker is left alone: throws EnvironmentError naming it.
WriteResult write_file(const std::string& root, const RenderedFile& file);

// What write_file would do, found the same way (and refused for the same reasons), without
// creating or changing anything: for a dry run.
WriteResult check_file(const std::string& root, const RenderedFile& file);

// Removes path under root, walked as write_file does, when it exists and starts with k_marker;
// a file ibsetup did not write is left alone. True when a file was removed.
bool remove_file(const std::string& root, const std::string& path);

// Reads path below root, walked as write_file walks (no symlink anywhere below root, so
// nothing outside it is read), when it is a regular file of at most max_bytes; a FIFO is
// refused without waiting for a writer. nullopt when the file or a directory on the way does
// not exist. Throws EnvironmentError naming the path and why (a symlink and its target, a
// FIFO or device, larger than the cap, unreadable).
std::optional<std::string> read_file_under(const std::string& root, const std::string& path,
                                           size_t max_bytes);

// The same for a path the administrator named (--templates, the installed data directory):
// symlinks are followed, but only a regular file of at most max_bytes is read.
std::optional<std::string> read_named_file(const std::string& path, size_t max_bytes);

// NetworkManager keyfiles (etc/NetworkManager/system-connections/ibsetup-<if>.nmconnection,
// mode 0600), rendered by libnm from the same connection objects a live backend would send.
// Each has id ibsetup-<if> and a stable UUID (connection_uuid). Throws InputError with
// NetworkManager's own message when it rejects a connection.
std::vector<RenderedFile> render_keyfiles(const profile::ResolvedNode& node,
                                          const std::string& cluster);

// A name-based (version 5) UUID from cluster, host and interface: re-rendering gives the
// same UUID, so NetworkManager updates a profile instead of adding a duplicate.
std::string connection_uuid(const std::string& cluster, const std::string& host,
                            const std::string& ifname);

// A directory searched for templates: path as named when root is empty; otherwise path is
// relative to root and read with read_file_under (a template planted under the root cannot
// pull in a file from outside it).
struct TemplateDir {
  std::string path;
  std::string root;
};

// Templates are small text files; a larger one is refused rather than read.
constexpr size_t k_max_template_bytes = 64U << 10U;

// ifcfg-<if> files for network-scripts / NetworkManager's ifcfg-rh plugin, from the templates
// "ifcfg-ib" (base interfaces) and "ifcfg-ib-child" (pkey children) found first in
// template_dirs. Throws EnvironmentError when a template is missing, malformed or refused
// (a symlink under the root, not a regular file, larger than k_max_template_bytes).
std::vector<RenderedFile> render_ifcfg(const profile::ResolvedNode& node,
                                       const std::vector<TemplateDir>& template_dirs);

// An /etc/hosts fragment mapping every host of the cluster to its IPoIB addresses. pattern
// names each entry: "{host}" and "{if}" are replaced ("{host}-ib" by default, with "-{if}"
// appended for interfaces after the first). Throws Error (usage) when a name the pattern gives
// holds anything but ASCII letters, digits, '.', '-' and '_': a space, '#' or newline would
// change what the hosts file says.
RenderedFile render_hosts(const profile::Profile& profile, const std::string& pattern);

// Replaces {{KEY}} placeholders with shell_quote(value); a line whose placeholders are not all
// set is dropped, so a template can list optional keys. Lines starting with "##" are template
// comments. Throws EnvironmentError for a malformed placeholder and for one inside quotes (the
// value is quoted already; quoted twice, it would no longer be literal), as
// "NAME:LINE:COLUMN: ..."; name is the template's path, as the caller found it.
std::string fill_template(const std::string& text,
                          const std::vector<std::pair<std::string, std::string>>& values,
                          const std::string& name);

// value as one word that bash (initscripts source ifcfg files) and NetworkManager's ifcfg-rh
// reader (svUnescape) both read back exactly, with nothing expanded or run: bare when it only
// holds characters neither treats specially (ib0, 192.168.1.2/24), in single quotes otherwise
// ('\'' for a quote), and as $'...' with octal escapes when it holds control characters, so
// a value never spans two lines.
std::string shell_quote(std::string_view value);

// render and apply --offline: which files, written (or only checked) under a root.
enum class Format { nm_keyfile, ifcfg, hosts };

// "nm-keyfile", "ifcfg", "hosts"; nullopt for anything else.
std::optional<Format> parse_format(const std::string& name);

struct FileOutcome;

struct NodeOptions {
  Format format = Format::nm_keyfile;
  std::string root;            // required
  std::string templates;       // --templates, searched first when set
  std::string data_templates;  // the installed templates, searched after root/etc/ibsetup/templates
  std::string hosts_pattern;   // Format::hosts
  bool dry_run = false;        // check_file instead of write_file
  // Called for each file once all of them are written (or, in a dry run, checked): a node's
  // files are written all or none, so after a failure it is not called at all.
  std::function<void(const FileOutcome&)> on_file;
};

struct FileOutcome {
  RenderedFile file;
  WriteResult result = WriteResult::unchanged;  // dry run: what a write would do
};

// Renders node's files (the cluster's, for Format::hosts: node may then be null) and writes
// them under options.root, all or none (each checked first, written to a temporary file, then
// renamed into place), or with dry_run finds what writing would do. Throws Error (usage)
// without a root, InputError/EnvironmentError as the renderers and writers do.
std::vector<FileOutcome> render_node(const profile::Profile& profile,
                                     const profile::ResolvedNode* node, const NodeOptions& options);

}  // namespace ibsetup::render
#pragma GCC visibility pop
