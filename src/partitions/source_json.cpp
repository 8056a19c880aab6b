// `ibsetup inspect --json` as an inventory source: one document (a directory's HOST.json) or
// one line per host ("HOST: {...}" as clush and pdsh prefix it, or the bare object).
#include "partitions/source_parse.hpp"

#include "common/json_read.hpp"
#include "common/strings.hpp"
#include "os/hostname.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/hostlist.hpp>

#include <set>
#include <utility>

namespace ibsetup::partitions {

namespace {

// clush may name a host by its full name while the host reports its short name, or the reverse.
bool same_host(const std::string& a, const std::string& b)
{
  return a == b || a == os::short_name(b) || os::short_name(a) == b;
}

// Device and netdev names end up in messages and reports: only what Linux names them with.
bool plain_name(const std::string& name)
{
  if (name.empty() || name.size() > 64) {
    return false;
  }
  for (const char ch : name) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.' || ch == ':' ||
                    ch == '@';
    if (!ok) {
      return false;
    }
  }
  return true;
}

// The ports and bindings of doc into h; a part that cannot be used is a problem at where.
void read_ports(Collector& c, const json::View& doc, InventoryHost& h, const std::string& where)
{
  std::set<std::pair<std::string, int>> seen;
  for (const auto& d : doc["devices"].items()) {
    const std::string& device = d["name"].as_string();
    if (!plain_name(device)) {
      c.problem(where, d.path() + ".name: " + quote(device, c.limits) +
                           " is not a device name; its ports are left out");
      h.incomplete = true;
      continue;
    }
    if (d["ports"].is_null()) {
      continue;
    }
    for (const auto& p : d["ports"].items()) {
      const int port = p["port"].as_int();
      if (port < 1 || port > 254) {
        c.problem(where, p.path() + ".port: " + std::to_string(port) +
                             " is not a port number (1 to 254); the port is left out");
        h.incomplete = true;
        continue;
      }
      const auto link_layer = p["link_layer"].opt_string();
      // An inventory that could not read the link layer still lists the port: without a
      // GUID it is nothing, with one it is most likely InfiniBand (RoCE ports say Ethernet).
      const bool infiniband = !link_layer || *link_layer == "InfiniBand";
      const auto text = p["port_guid"].opt_string();
      const std::string name = device + " port " + std::to_string(port);
      if (!seen.insert({device, port}).second) {
        c.problem(where, name + " is listed twice; the first is kept");
        h.incomplete = true;
        continue;
      }
      if (!text) {
        if (infiniband) {
          c.problem(where, h.host + " " + name + " has no port_guid; the port is left out");
          h.incomplete = true;
        }
        continue;
      }
      const auto guid = normalize_guid(*text);
      if (!guid) {
        c.problem(where, p.path() + ".port_guid: " + quote(*text, c.limits) +
                             " is not a GUID; the port is left out");
        h.incomplete = true;
        continue;
      }
      h.ports.push_back({device, port, *guid, infiniband});
      const auto netdev = p["netdev"].opt_string();
      if (netdev && plain_name(*netdev)) {
        h.netdevs[*netdev] = {device, port};
      }
    }
  }
  if (doc["netdevs"].is_null()) {
    return;
  }
  for (const auto& n : doc["netdevs"].items()) {
    const std::string& name = n["name"].as_string();
    const auto device = n["device"].opt_string();
    const auto port = n["port"].opt_int();
    if (device && port && plain_name(name) && seen.count({*device, *port}) > 0) {
      h.netdevs[name] = {*device, *port};
    }
  }
}

class JsonLines : public SourceParser::Form {
public:
  JsonLines(std::string name, Collector& c) : m_name(std::move(name)), m_c(c) {}

  void line(std::string_view text, size_t number) override
  {
    const auto t = util::trim(text);
    if (t.empty()) {
      return;
    }
    const std::string where = m_name + ":" + std::to_string(number);
    std::string host;
    std::string_view body = t;
    if (t.front() != '{') {
      const auto colon = t.find(':');
      host = std::string(t.substr(0, colon));
      if (colon == std::string_view::npos || !is_valid_hostname(host)) {
        m_c.problem(where, "not an inspect --json line: " + quote(t, m_c.limits));
        return;
      }
      body = util::trim(t.substr(colon + 1));
      if (body.empty()) {
        return;  // clush's "HOST:" for an empty line of that host's output
      }
      if (body.front() != '{') {
        m_c.problem(where, "not an inspect --json line: " + quote(t, m_c.limits));
        return;
      }
    }
    if (auto h = host_from_inspect(m_c, body, host, where,
                                   static_cast<size_t>(body.data() - text.data()))) {
      m_c.host(std::move(*h));
    }
  }

private:
  std::string m_name;
  Collector& m_c;
};

}  // namespace

std::optional<InventoryHost> host_from_inspect(Collector& c, std::string_view text,
                                               const std::string& name, const std::string& where,
                                               size_t column_offset)
{
  json::Json doc;
  try {
    doc = json::parse(text);
  } catch (const json::ParseError& e) {
    const std::string what =
        e.line() == 1 && column_offset > 0
            ? "line 1, column " + std::to_string(e.column() + column_offset) + ": " + e.detail()
            : std::string(e.what());
    c.problem(where, "not JSON: " + util::escape_text(what));
    return std::nullopt;
  }
  if (!doc.is_object() || doc.find("devices") == doc.end()) {
    c.problem(where, "not an inventory: ibsetup inspect --json prints an object with \"devices\"");
    return std::nullopt;
  }
  try {
    const json::View j(doc, "");
    const auto reported = j["host"].opt_string();
    InventoryHost h;
    h.origin = where;
    if (name.empty()) {
      if (!reported) {
        c.problem(where, "no \"host\" member: which host this inventory is of is unknown");
        return std::nullopt;
      }
      h.host = *reported;
    } else if (reported && !same_host(name, *reported)) {
      c.problem(where, "the inventory says host " + quote(*reported, c.limits) +
                           ", but it is given as " + name + "; left out");
      return std::nullopt;
    } else {
      h.host = name;
    }
    // Hosts go by their short name, as the topology reader and the profile's hostlists have
    // them: clush prints a full name when its groups hold full names.
    h.given = reported && reported->size() > h.host.size() ? *reported : h.host;
    if (is_valid_hostname(h.host)) {
      h.host = os::short_name(h.host);
    }
    if (!is_valid_hostname(h.host)) {
      c.problem(where, "host " + quote(h.host, c.limits) + " is not a valid host name; left out");
      return std::nullopt;
    }
    read_ports(c, j, h, where);
    return h;
  } catch (const InputError& e) {
    c.problem(where, util::escape_text(e.what()));
    return std::nullopt;
  }
}

std::unique_ptr<SourceParser::Form> json_lines_form(const std::string& name, Collector& c)
{
  return std::make_unique<JsonLines>(name, c);
}

}  // namespace ibsetup::partitions
