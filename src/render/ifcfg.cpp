#include <ibsetup/error.hpp>
#include <ibsetup/render.hpp>

#include <sstream>

namespace ibsetup::render {

std::string fill_template(const std::string& text,
                          const std::vector<std::pair<std::string, std::string>>& values,
                          const std::string& name)
{
  std::string out;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.compare(0, 2, "##") == 0) {
      continue;
    }
    std::string filled;
    bool complete = true;
    size_t pos = 0;
    while (true) {
      const size_t open = line.find("{{", pos);
      if (open == std::string::npos) {
        filled += line.substr(pos);
        break;
      }
      const size_t close = line.find("}}", open);
      if (close == std::string::npos) {
        throw EnvironmentError("template " + name + " line " + std::to_string(number) +
                               ": '{{' without '}}'");
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
        throw EnvironmentError("template " + name + " line " + std::to_string(number) +
                               ": unknown key {{" + key + "}}");
      }
      complete = complete && !value.empty();
      filled += line.substr(pos, open - pos) + value;
      pos = close + 2;
    }
    if (complete) {
      out += filled + "\n";
    }
  }
  return out;
}

namespace {

std::string load_template(const std::string& name, const std::vector<TemplateDir>& dirs)
{
  std::string searched;
  for (const auto& dir : dirs) {
    const auto text = dir.root.empty()
                          ? read_named_file(dir.path + "/" + name, k_max_template_bytes)
                          : read_file_under(dir.root, dir.path + "/" + name, k_max_template_bytes);
    if (text) {
      return *text;
    }
    searched +=
        (searched.empty() ? "" : ", ") + (dir.root.empty() ? "" : dir.root + "/") + dir.path;
  }
  throw EnvironmentError("template " + name + " not found (searched " + searched + ")");
}

}  // namespace

std::vector<RenderedFile> render_ifcfg(const profile::ResolvedNode& node,
                                       const std::vector<TemplateDir>& template_dirs)
{
  const std::string base = load_template("ifcfg-ib", template_dirs);
  const std::string child = load_template("ifcfg-ib-child", template_dirs);
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
    f.content = std::string(k_marker) + "\n" +
                fill_template(is_child ? child : base, v, is_child ? "ifcfg-ib-child" : "ifcfg-ib");
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace ibsetup::render
