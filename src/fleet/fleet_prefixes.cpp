// What the tools around a result put on a line: clush's and pdsh's host prefixes and folds,
// their notes about a host, and ssh's own diagnostics. Each recognises exactly its tool's
// format, so that a host's own text is never taken for a tool's word on another host.
#include "common/strings.hpp"
#include "fleet/fleet_lines.hpp"

#include <ibsetup/hostlist.hpp>

#include <algorithm>
#include <iterator>
#include <set>

namespace ibsetup::check {

bool is_program_word(const std::string& word)
{
  static const std::set<std::string> words = {"clush", "ibsetup", "ssh",     "sudo",
                                              "pdsh",  "Warning", "warning", "error"};
  return words.count(word) > 0;
}

std::string prefix_host(std::string_view line, std::string_view& rest)
{
  auto colon = line.find(": ");
  if (colon == std::string_view::npos) {
    if (line.empty() || line.back() != ':') {
      return "";
    }
    colon = line.size() - 1;
  }
  std::string host(line.substr(0, colon));
  if (!is_valid_hostname(host)) {
    return "";
  }
  rest = colon + 2 <= line.size() ? line.substr(colon + 2) : std::string_view();
  return host;
}

std::vector<std::string> folded_hosts(std::string_view line, std::string_view& rest)
{
  constexpr size_t k_max_folded = 65536;
  const auto colon = line.find(": ");
  auto list = line.substr(0, colon);
  if (colon == std::string_view::npos) {
    return {};
  }
  bool counted = false;
  if (const auto open = list.rfind(" (");
      open != std::string_view::npos && list.back() == ')' &&
      util::parse_unsigned(list.substr(open + 2, list.size() - open - 3))) {
    list = list.substr(0, open);
    counted = true;
  }
  if (!counted && list.find('[') == std::string_view::npos) {
    return {};
  }
  std::vector<std::string> hosts;
  try {
    hosts = expand_hostlist(list, k_max_folded);
  } catch (const HostlistError&) {
    return {};
  }
  if (!std::all_of(hosts.begin(), hosts.end(),
                   [](const std::string& h) { return is_valid_hostname(h); })) {
    return {};
  }
  rest = line.substr(colon + 2);
  return hosts;
}

bool pdsh_prefix(std::string_view line, std::string_view& rest)
{
  constexpr std::string_view tag = "pdsh@";
  const auto colon = line.find(": ");
  if (line.substr(0, tag.size()) != tag || colon == std::string_view::npos ||
      !is_valid_hostname(line.substr(tag.size(), colon - tag.size()))) {
    return false;
  }
  rest = line.substr(colon + 2);
  return true;
}

std::string pdsh_signalled_host(std::string_view line)
{
  constexpr std::string_view tag = "sending signal ";
  constexpr std::string_view to = " to ";
  constexpr std::string_view pid = "] pid ";
  if (line.substr(0, tag.size()) != tag) {
    return "";
  }
  const size_t to_at = line.find(to, tag.size());
  const size_t host = to_at + to.size();
  const size_t bracket = to_at == std::string_view::npos ? to_at : line.find(" [", host);
  const size_t pid_at = line.rfind(pid);
  if (bracket == std::string_view::npos || pid_at == std::string_view::npos ||
      !util::parse_unsigned(line.substr(tag.size(), to_at - tag.size())) ||
      !util::parse_unsigned(line.substr(pid_at + pid.size()))) {
    return "";
  }
  auto name = line.substr(host, bracket - host);
  if (!is_valid_hostname(name)) {
    return "";
  }
  // This line has the name given to -w; pdsh's others, and its prefix, have it up to the
  // first dot unless it starts with a digit (an address): the same host is named so.
  if (name.front() < '0' || name.front() > '9') {
    name = name.substr(0, name.find('.'));
  }
  return std::string(name);
}

bool is_ssh_diagnostic(std::string_view text)
{
  static const std::string_view starts[] = {"ssh: ", "Permission denied (",
                                            "Host key verification failed."};
  return std::any_of(std::begin(starts), std::end(starts),
                     [&](std::string_view s) { return text.substr(0, s.size()) == s; });
}

ToolNote classify_tool_note(std::string_view message)
{
  const auto has = [&](std::string_view s) { return message.find(s) != std::string_view::npos; };
  if (has("command timeout") || has("exit code 255") || has("killed by signal") ||
      message.substr(0, 15) == "sending signal ") {
    return ToolNote::not_finished;
  }
  return has("exited with exit code") ? ToolNote::exit_status : ToolNote::other;
}

}  // namespace ibsetup::check
