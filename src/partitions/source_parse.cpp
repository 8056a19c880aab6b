// What every inventory source shares: GUIDs, problems, hosts, and the choice of parser.
#include "partitions/source_parse.hpp"

#include "common/strings.hpp"

#include <algorithm>
#include <cstdio>
#include <tuple>
#include <vector>

namespace ibsetup::partitions {

namespace {

int hex_digit(char ch)
{
  if (ch >= '0' && ch <= '9') {
    return ch - '0';
  }
  if (ch >= 'a' && ch <= 'f') {
    return ch - 'a' + 10;
  }
  if (ch >= 'A' && ch <= 'F') {
    return ch - 'A' + 10;
  }
  return -1;
}

bool starts_with(std::string_view s, std::string_view prefix)
{
  return s.substr(0, prefix.size()) == prefix;
}

// "Ca\t2 ..." but not "Cable": the keyword and then a blank.
bool starts_with_word(std::string_view s, std::string_view word)
{
  return starts_with(s, word) && s.size() > word.size() &&
         (s[word.size()] == ' ' || s[word.size()] == '\t');
}

// `ibnetdiscover -p` (its ports report: "CA  20  1 0x... 4x QDR - SW ..."): not the topology.
bool looks_like_ports_report(std::string_view line)
{
  for (std::string_view type : {"CA", "SW", "RT"}) {
    if (starts_with_word(line, type)) {
      const auto rest = util::trim(line.substr(2));
      return !rest.empty() && rest.front() >= '0' && rest.front() <= '9';
    }
  }
  return false;
}

// Reads past an input that was found to be of no known form (its problem is out already).
class Skipped : public SourceParser::Form {
public:
  void line(std::string_view /*text*/, size_t /*number*/) override {}
};

}  // namespace

std::optional<std::string> normalize_guid(std::string_view text)
{
  if (starts_with(text, "0x") || starts_with(text, "0X")) {
    text.remove_prefix(2);
  }
  // sysfs writes four groups of four digits; a colon anywhere else is not a GUID.
  const bool grouped = text.find(':') != std::string_view::npos;
  if (grouped && (text.size() != 19 || text[4] != ':' || text[9] != ':' || text[14] != ':')) {
    return std::nullopt;
  }
  uint64_t value = 0;
  size_t digits = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (grouped && i % 5 == 4) {
      continue;
    }
    const int d = hex_digit(text[i]);
    if (d < 0 || ++digits > 16) {
      return std::nullopt;
    }
    value = (value << 4U) | static_cast<uint64_t>(d);
  }
  if (digits == 0 || value == 0) {
    return std::nullopt;
  }
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(value));
  return std::string(buf);
}

std::string quote(std::string_view text, const SourceLimits& limits)
{
  return "'" + util::escape_text(util::excerpt(text, limits.max_quote)) + "'";
}

void Collector::problem(std::string where, std::string message)
{
  if (out.problems.size() >= limits.max_problems) {
    ++dropped;
    return;
  }
  out.problems.push_back({std::move(where), std::move(message)});
}

namespace {

// The same ports (device, number, GUID, link layer), in any order, and no netdev bound to two
// places: two clush runs of one host, before and after apply made its P_Key children, agree.
bool same_host_inventory(const InventoryHost& a, const InventoryHost& b)
{
  using Key = std::tuple<std::string, int, std::string, bool>;
  const auto keys = [](const InventoryHost& h) {
    std::vector<Key> k;
    k.reserve(h.ports.size());
    for (const auto& p : h.ports) {
      k.emplace_back(p.device, p.port, p.guid, p.infiniband);
    }
    std::sort(k.begin(), k.end());
    return k;
  };
  if (keys(a) != keys(b)) {
    return false;
  }
  return std::all_of(b.netdevs.begin(), b.netdevs.end(), [&](const auto& n) {
    const auto it = a.netdevs.find(n.first);
    return it == a.netdevs.end() || it->second == n.second;
  });
}

}  // namespace

void Collector::host(InventoryHost h)
{
  if (conflicted.count(h.host) > 0) {
    problem(h.origin,
            "host " + h.host + " is given again; it is left out (its inventories disagree)");
    return;
  }
  const auto it = out.hosts.find(h.host);
  if (it != out.hosts.end()) {
    if (same_host_inventory(it->second, h)) {
      problem(h.origin, "host " + h.host + " is given twice, here and at " + it->second.origin +
                            " (the same ports): the first is kept");
      it->second.netdevs.insert(h.netdevs.begin(), h.netdevs.end());  // adds only new names
      return;
    }
    problem(h.origin, "host " + h.host +
                          " is given twice with different ports or interface bindings, here and "
                          "at " +
                          it->second.origin +
                          ": neither is kept (one of them is not the host: a cloned image, or "
                          "a node description naming another host?)");
    conflicted.insert(h.host);
    out.hosts.erase(it);
    return;
  }
  auto name = h.host;
  out.hosts.emplace(std::move(name), std::move(h));
}

void Collector::finish(const std::string& where)
{
  if (dropped > 0) {
    out.problems.push_back({where, std::to_string(dropped) + " more problems not shown"});
    dropped = 0;
  }
}

bool looks_like_topology(std::string_view line)
{
  for (const char* key :
       {"vendid=", "devid=", "sysimgguid=", "switchguid=", "caguid=", "rtguid=", "chassisnum="}) {
    if (starts_with(line, key)) {
      return true;
    }
  }
  return starts_with_word(line, "Switch") || starts_with_word(line, "Ca") ||
         starts_with_word(line, "Rt");
}

SourceParser::SourceParser(std::string name, Collector& c) : m_name(std::move(name)), m_c(c) {}

SourceParser::~SourceParser() = default;

void SourceParser::line(std::string_view text, size_t length)
{
  ++m_number;
  if (length > m_c.limits.max_line) {
    m_c.problem(m_name + ":" + std::to_string(m_number),
                "a line of " + std::to_string(length) + " bytes, longer than the " +
                    std::to_string(m_c.limits.max_line) +
                    " an inventory line may have: " + quote(text, m_c.limits));
    m_refused_line = true;
    return;
  }
  if (!m_form) {
    const auto t = util::trim(text);
    if (t.empty() || t.front() == '#') {
      return;
    }
    if (looks_like_ports_report(t)) {
      m_c.problem(m_name + ":" + std::to_string(m_number),
                  "this is ibnetdiscover -p output (a ports report); give ibnetdiscover's "
                  "topology, without -p");
      m_form = std::make_unique<Skipped>();
      return;
    }
    m_form = looks_like_topology(t) ? topology_form(m_name, m_c) : json_lines_form(m_name, m_c);
  }
  m_form->line(text, m_number);
}

void SourceParser::finish()
{
  if (!m_form) {
    if (!m_refused_line) {
      m_c.problem(m_name, "no inventory in it (empty, or only comments)");
    }
    return;
  }
  m_form->finish();
}

Inventories parse_source_text(std::string_view text, const std::string& name,
                              const SourceLimits& limits)
{
  Inventories out;
  Collector c(out, limits);
  SourceParser parser(name, c);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    const size_t length = end - start;
    parser.line(text.substr(start, std::min(length, limits.max_line)), length);
    start = end + 1;
  }
  parser.finish();
  c.finish(name);
  return out;
}

}  // namespace ibsetup::partitions
