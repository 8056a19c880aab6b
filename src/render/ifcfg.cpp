#include <ibsetup/error.hpp>
#include <ibsetup/render.hpp>

#include "common/strings.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <vector>

namespace ibsetup::render {

namespace {

// A template of nothing but bad placeholders must not make a message of megabytes.
constexpr size_t k_max_template_problems = 10;

bool is_bare(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::strchr("_.,:/@%+=-", c) != nullptr;
}

// Whether the template text of a line up to a position leaves an open quote: a placeholder
// there would be quoted twice. The scan goes on from where the last question stopped (the
// placeholders of a line come in order), so a line of many placeholders is read once, not once
// per placeholder.
class QuoteScan {
public:
  explicit QuoteScan(const std::string& line) : m_line(line) {}

  bool inside_at(size_t end)
  {
    for (; m_next < end; ++m_next) {
      const char c = m_line[m_next];
      if (m_open != '\'' && c == '\\') {
        ++m_next;  // an escaped character, outside quotes or in double quotes
      } else if (m_open == 0 && (c == '\'' || c == '"')) {
        m_open = c;
      } else if (c == m_open) {
        m_open = 0;
      }
    }
    return m_open != 0;
  }

private:
  const std::string& m_line;
  size_t m_next = 0;
  char m_open = 0;
};

}  // namespace

std::string shell_quote(std::string_view value)
{
  if (!value.empty() && std::all_of(value.begin(), value.end(), is_bare)) {
    return std::string(value);
  }
  const bool control = std::any_of(value.begin(), value.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
  std::string out;
  if (!control) {
    out = "'";
    for (char c : value) {
      out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return out + "'";
  }
  // ANSI-C quoting, as NetworkManager's own svEscape writes values with newlines.
  out = "$'";
  for (char c : value) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\\' || c == '\'') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", static_cast<unsigned>(byte));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string fill_template(const std::string& text,
                          const std::vector<std::pair<std::string, std::string>>& values,
                          const std::string& name)
{
  std::string out;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  // Every bad placeholder, so that one edit fixes them all: the first as an editor's
  // "file:line:column" (the column in bytes, from 1), the others as "line:column" after it.
  std::vector<std::string> problems;
  const auto problem = [&](size_t column, const std::string& what) {
    problems.push_back(std::to_string(number) + ":" + std::to_string(column + 1) + ": " + what);
  };
  while (std::getline(in, line)) {
    ++number;
    if (line.compare(0, 2, "##") == 0) {
      continue;
    }
    std::string filled;
    bool complete = true;
    size_t pos = 0;
    QuoteScan quotes(line);
    while (true) {
      const size_t open = line.find("{{", pos);
      if (open == std::string::npos) {
        filled += line.substr(pos);
        break;
      }
      const size_t close = line.find("}}", open);
      if (close == std::string::npos) {
        problem(open, "'{{' without '}}'");
        break;
      }
      const std::string key = line.substr(open + 2, close - open - 2);
      bool known = false;
      std::string value;
      for (const auto& [k, v] : values) {
        if (k == key) {
          known = true;
          value = v;
        }
      }
      if (!known) {
        problem(open, "unknown key {{" + util::escape_text(key) + "}}");
      } else if (quotes.inside_at(open)) {
        problem(open, "{{" + util::escape_text(key) +
                          "}} is inside quotes (ibsetup quotes the values it fills in)");
      }
      complete = complete && !value.empty();
      filled += line.substr(pos, open - pos) + shell_quote(value);
      pos = close + 2;
    }
    if (complete) {
      out += filled + "\n";
    }
  }
  if (!problems.empty()) {
    std::string message = util::escape_text(name) + ":" + problems[0];
    const size_t shown = std::min<size_t>(problems.size(), k_max_template_problems);
    for (size_t i = 1; i < shown; ++i) {
      message += (i == 1 ? " (also " : "; ") + problems[i];
    }
    if (problems.size() > shown) {
      message += "; and " + std::to_string(problems.size() - shown) + " more";
    }
    if (problems.size() > 1) {
      message += ")";
    }
    throw EnvironmentError(message);
  }
  return out;
}

namespace {

struct Template {
  std::string text;
  std::string path;  // where it was found, for messages
};

Template load_template(const std::string& name, const std::vector<TemplateDir>& dirs)
{
  std::string searched;
  for (const auto& dir : dirs) {
    const auto text = dir.root.empty()
                          ? read_named_file(dir.path + "/" + name, k_max_template_bytes)
                          : read_file_under(dir.root, dir.path + "/" + name, k_max_template_bytes);
    if (text) {
      return {*text, (dir.root.empty() ? "" : dir.root + "/") + dir.path + "/" + name};
    }
    searched +=
        (searched.empty() ? "" : ", ") + (dir.root.empty() ? "" : dir.root + "/") + dir.path;
  }
  throw EnvironmentError("template " + name + " not found (searched " + searched + ")");
}

// The suffixes of files initscripts (/etc/init.d/functions, is_ignored_file) or NetworkManager's
// ifcfg-rh plugin pass over as backups: an ifcfg file so named is never read at boot.
const char* ignored_suffix(const std::string& name)
{
  static const char* const k_ignored[] = {"~",        ".bak",     ".old", ".orig",   ".rpmnew",
                                          ".rpmorig", ".rpmsave", ".rej", ".augnew", ".augtmp"};
  for (const char* suffix : k_ignored) {
    const size_t n = std::strlen(suffix);
    if (name.size() > n && name.compare(name.size() - n, n, suffix) == 0) {
      return suffix;
    }
  }
  return nullptr;
}

}  // namespace

std::vector<RenderedFile> render_ifcfg(const profile::ResolvedNode& node,
                                       const std::vector<TemplateDir>& template_dirs)
{
  for (const auto& i : node.interfaces) {
    if (const char* suffix = ignored_suffix(i.name)) {
      throw InputError("interface " + i.name + ": initscripts or NetworkManager skip ifcfg " +
                       "files whose names end in " + suffix + " (backups), so ifcfg-" + i.name +
                       " would never be read at boot; rename the interface");
    }
  }
  const Template base = load_template("ifcfg-ib", template_dirs);
  const Template child = load_template("ifcfg-ib-child", template_dirs);
  std::vector<RenderedFile> out;
  for (const auto& i : node.interfaces) {
    std::vector<std::pair<std::string, std::string>> v = {
        {"DEVICE", i.name},
        {"NAME", "ibsetup-" + i.name},
        {"HOST", node.host},
        {"IPADDR", i.ipv4 ? i.ipv4->address.str() : ""},
        {"PREFIX", i.ipv4 ? std::to_string(i.ipv4->length) : ""},
        {"IPV6INIT", i.ipv6 ? "yes" : "no"},
        {"IPV6ADDR", i.ipv6 ? i.ipv6->str() : ""},
        {"MTU", i.mtu ? std::to_string(*i.mtu) : ""},
        {"CONNECTED_MODE",
         i.mode ? (*i.mode == profile::Mode::connected ? "yes" : "no") : std::string()},
        {"PHYSDEV", i.parent.value_or("")},
        {"PKEY_ID", i.pkey ? std::to_string(*i.pkey) : ""},
    };
    const bool is_child = i.parent.has_value();
    RenderedFile f;
    f.path = "etc/sysconfig/network-scripts/ifcfg-" + i.name;
    f.mode = 0644;
    const Template& t = is_child ? child : base;
    f.content = std::string(k_marker) + "\n" + fill_template(t.text, v, t.path);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace ibsetup::render
