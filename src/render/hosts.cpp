#include "profile/merge.hpp"

#include "common/strings.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/hostlist.hpp>
#include <ibsetup/render.hpp>

#include <map>

namespace ibsetup::render {

namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to)
{
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size())) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

// Host names are checked where they come from (the profile's hostlists), but a pattern's own
// text only here; anything that is not a host name character (RFC 1123 plus '_') could add a
// field, a comment or a line to the hosts file.
void check_host_name(const std::string& name, const std::string& pattern)
{
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
          c == '-' || c == '_')) {
      throw Error(ErrorKind::usage, "--hosts-pattern '" + util::escape_text(pattern) +
                                        "' gives the host name '" + util::escape_text(name) +
                                        "', which contains " + util::describe_char(name, i) +
                                        "; host names may hold only ASCII letters, digits, '.', "
                                        "'-' and '_'");
    }
  }
  // The profile's own host-name rules: a leading '-' would make the name an option in the argv
  // of ssh or clush; a leading or trailing '.', or "..", is no name a resolver answers.
  if (!is_valid_hostname(name)) {
    // Exit 2 for the user's pattern, 3 when the profile's names make the default give it.
    throw Error(pattern.empty() ? ErrorKind::bad_input : ErrorKind::usage,
                (pattern.empty() ? std::string("the default hosts pattern")
                                 : "--hosts-pattern '" + util::escape_text(pattern) + "'") +
                    " gives the host name '" + util::escape_text(name) +
                    "', which is not one: a host name does not start with '-' or '.', end with "
                    "'.', hold \"..\", or run past " +
                    std::to_string(k_max_hostname) + " bytes");
  }
}

}  // namespace

RenderedFile render_hosts(const profile::Profile& profile, const std::string& pattern)
{
  const bool per_interface = pattern.empty() || pattern.find("{if}") != std::string::npos;
  std::string body;
  // name -> "host interface" that has it: ib0.8001 and an interface named ib0-8001 both
  // become HOST-ib0-8001, and a pattern without {host} gives every host one name; a resolver
  // would answer only the first address of a name given twice.
  std::map<std::string, std::string> owner;
  for (const auto& group : profile.groups) {
    for (size_t pos = 1; pos <= group.hosts.size(); ++pos) {
      // Merged by position directly: resolve_node would search each host's position (slow
      // for large clusters) and resolve peers that a hosts file does not need.
      const std::string& host = group.hosts[pos - 1];
      const auto* overrides = profile::detail::find_host_override(profile, host);
      bool first = true;
      for (const auto& spec : group.interfaces) {
        const auto i = profile::detail::merge_interface(
            profile, spec, profile::detail::find_override(overrides, *spec.name), pos);
        if (!i.ipv4 && !i.ipv6) {
          continue;
        }
        std::string name;
        // A dot would make the name look like a domain: ib0.8010 becomes ib0-8010.
        const std::string ifname = replace_all(i.name, ".", "-");
        if (pattern.empty()) {
          name = host + (first ? "-ib" : "-" + ifname);
        } else {
          name = replace_all(replace_all(pattern, "{host}", host), "{if}", ifname);
        }
        check_host_name(name, pattern);
        const std::string who = host + " " + i.name;
        // Resolvers compare names without case (glibc's files backend: strcasecmp).
        std::string key = name;
        for (char& c : key) {
          c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        }
        if (const auto [it, fresh] = owner.emplace(key, who); !fresh) {
          const std::string message = "the hosts fragment would give the name " + name + " to " +
                                      it->second + " and to " + who +
                                      "; each name must be one interface's";
          if (pattern.empty()) {
            throw InputError(message + " (rename an interface, or give --hosts-pattern)");
          }
          throw Error(ErrorKind::usage,
                      message + " (--hosts-pattern '" + util::escape_text(pattern) + "')");
        }
        for (const auto& a : {i.ipv4, i.ipv6}) {
          if (a) {
            body += a->address.str() + "\t" + name + "\n";
          }
        }
        first = false;
        if (!per_interface) {
          break;  // one name per host: only the first addressed interface
        }
      }
    }
  }
  RenderedFile f;
  f.path = "etc/hosts.ibsetup";
  f.mode = 0644;
  const auto slash = profile.file.rfind('/');
  // The file name is the one outside text in a comment line: escaped, a newline in it cannot
  // start an entry.
  f.content = std::string(k_marker) + "\n# IPoIB addresses of every host in " +
              util::escape_text(profile.file.substr(slash == std::string::npos ? 0 : slash + 1)) +
              "\n" + body;
  return f;
}

}  // namespace ibsetup::render
