// An ibnetdiscover topology as an inventory source. A channel adapter's block is
//
//   caguid=0x2c90300a1b2c0
//   Ca      2 "H-0002c90300a1b2c0"              # "cn01 mlx4_0"
//   [1](2c90300a1b2c1)      "S-0002c90200400ad0"[11]  # lid 5 lmc 0 "sw1" lid 2 4xQDR
//
// as ibnetdiscover prints it (the node description in the comment), or `Ca 1 "cn01 mlx5_0"`
// with the description as the name, as ibsim's topology files have it. rdma-ndd sets node
// descriptions to "HOST HCA", which is what ties a port GUID to a host. Switches, routers and
// the switches' SHARP aggregation nodes are not hosts and are passed over.
#include "partitions/source_parse.hpp"

#include "common/strings.hpp"

#include <ibsetup/hostlist.hpp>

#include <map>
#include <set>
#include <vector>

namespace ibsetup::partitions {

namespace {

bool is_blank(char ch)
{
  return ch == ' ' || ch == '\t';
}

std::string_view skip_blanks(std::string_view s)
{
  size_t i = 0;
  while (i < s.size() && is_blank(s[i])) {
    ++i;
  }
  return s.substr(i);
}

// Digits at the start of s (consumed); nullopt when there are none or too many.
std::optional<int> take_number(std::string_view& s)
{
  size_t i = 0;
  int value = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    if (i >= 4) {
      return std::nullopt;
    }
    value = value * 10 + (s[i] - '0');
    ++i;
  }
  if (i == 0) {
    return std::nullopt;
  }
  s.remove_prefix(i);
  return value;
}

std::vector<std::string_view> words(std::string_view s)
{
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_blank(s[i])) {
      ++i;
    }
    const size_t start = i;
    while (i < s.size() && !is_blank(s[i])) {
      ++i;
    }
    if (i > start) {
      out.push_back(s.substr(start, i - start));
    }
  }
  return out;
}

bool plain_device(std::string_view name)
{
  if (name.empty() || name.size() > 64) {
    return false;
  }
  for (const char ch : name) {
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
          ch == '_' || ch == '-' || ch == '.')) {
      return false;
    }
  }
  return true;
}

// The node description of the SHARP aggregation node inside NVIDIA's managed switches.
constexpr std::string_view k_aggregation_node = "Mellanox Technologies Aggregation Node";

struct CaBlock {
  std::string where;        // its Ca line
  std::string description;  // the node description
  bool readable = true;     // the Ca line could be read (else its problem is out already)
  bool lost_port = false;   // a port line of it could not be used
  std::vector<std::pair<int, std::string>> ports;  // port number, normalised GUID
};

class Topology : public SourceParser::Form {
public:
  Topology(std::string name, Collector& c) : m_name(std::move(name)), m_c(c) {}

  void line(std::string_view text, size_t number) override
  {
    const auto t = util::trim(text);
    if (!t.empty() && t.front() == '#') {
      return;
    }
    if (!t.empty() && t.front() == '[') {
      if (m_block) {
        port_line(t, number);
      }
      return;
    }
    // Anything else ends a block: an empty line, the next node's ids, a switch.
    flush();
    if (t.size() > 2 && t.substr(0, 2) == "Ca" && (t[2] == ' ' || t[2] == '\t')) {
      ca_line(t.substr(2), number);
    }
  }

  void finish() override
  {
    flush();
    for (auto& entry : m_hosts) {
      if (m_conflicted.count(entry.first) == 0) {
        m_c.host(std::move(entry.second));
      }
    }
    m_hosts.clear();
  }

private:
  std::string where(size_t number) const { return m_name + ":" + std::to_string(number); }

  // `Ca NPORTS "NAME" [# "DESCRIPTION" ...]`, from after "Ca".
  void ca_line(std::string_view rest, size_t number)
  {
    m_block = CaBlock();
    m_block->where = where(number);
    rest = skip_blanks(rest);
    const auto ports = take_number(rest);
    rest = skip_blanks(rest);
    const size_t close = rest.size() > 1 && rest.front() == '"' ? rest.find('"', 1) : 0;
    if (!ports || close == 0 || close == std::string_view::npos) {
      m_block->readable = false;
      m_c.problem(m_block->where,
                  "cannot read this Ca line (expected Ca N \"NAME\"): " + quote(rest, m_c.limits));
      return;
    }
    m_block->description = std::string(rest.substr(1, close - 1));
    // ibnetdiscover names a CA "H-<node GUID>" and gives its description in the comment.
    auto comment = skip_blanks(rest.substr(close + 1));
    if (!comment.empty() && comment.front() == '#') {
      comment = skip_blanks(comment.substr(1));
      const size_t last = comment.rfind('"');
      if (!comment.empty() && comment.front() == '"' && last > 0) {
        m_block->description = std::string(comment.substr(1, last - 1));
      }
    }
  }

  // `[N](PORTGUID) ...`
  void port_line(std::string_view t, size_t number)
  {
    if (!m_block->readable) {
      return;
    }
    auto rest = t.substr(1);
    const auto port = take_number(rest);
    if (!port || rest.empty() || rest.front() != ']' || *port < 1 || *port > 254) {
      m_block->lost_port = true;
      m_c.problem(where(number),
                  "cannot read this port line (expected [N](PORTGUID)): " + quote(t, m_c.limits));
      return;
    }
    rest.remove_prefix(1);
    const size_t close = rest.find(')');
    if (rest.empty() || rest.front() != '(' || close == std::string_view::npos) {
      m_block->lost_port = true;
      m_c.problem(where(number), "port " + std::to_string(*port) + " of " +
                                     quote(m_block->description, m_c.limits) +
                                     " has no (PORTGUID): " + quote(t, m_c.limits));
      return;
    }
    const auto guid = normalize_guid(rest.substr(1, close - 1));
    if (!guid) {
      m_block->lost_port = true;
      m_c.problem(where(number), quote(rest.substr(1, close - 1), m_c.limits) +
                                     " is not a port GUID: " + quote(t, m_c.limits));
      return;
    }
    for (const auto& [seen, seen_guid] : m_block->ports) {
      if (seen == *port) {
        // As the JSON reader does with a port listed twice; ibnetdiscover lists each once.
        m_block->lost_port = true;
        m_c.problem(where(number), "port " + std::to_string(*port) + " of " +
                                       quote(m_block->description, m_c.limits) +
                                       " is listed twice (" + seen_guid + ", then " + *guid +
                                       "); the first is kept");
        return;
      }
    }
    m_block->ports.emplace_back(*port, *guid);
  }

  void flush()
  {
    if (!m_block) {
      return;
    }
    CaBlock b = std::move(*m_block);
    m_block.reset();
    if (!b.readable) {
      return;
    }
    // A managed switch's SHARP aggregation node is a channel adapter too, but not a host.
    if (b.description == k_aggregation_node) {
      return;
    }
    const auto w = words(b.description);
    // rdma-ndd's %h is the host name, a full one on some sites: hosts go by their short name
    // here, as ibsetup's own (inspect, the profile's hostlists) do.
    const std::string host = w.size() == 2 ? std::string(w[0].substr(0, w[0].find('.'))) : "";
    if (w.size() != 2 || !is_valid_hostname(host) || !plain_device(w[1])) {
      std::string guids;
      for (const auto& p : b.ports) {
        guids += (guids.empty() ? "" : ", ") + p.second;
      }
      m_c.problem(b.where, "node description " + quote(b.description, m_c.limits) +
                               " is not \"HOST HCA\" (as rdma-ndd sets it); its ports (" +
                               (guids.empty() ? "none listed" : guids) + ") are left out");
      return;
    }
    const std::string device(w[1]);
    auto [it, added] = m_hosts.try_emplace(host);
    InventoryHost& h = it->second;
    if (added) {
      h.host = host;
      h.given = std::string(w[0]);
      h.origin = b.where;
    } else if (h.given != w[0]) {
      // cn01 and cn01.site are two hosts to a profile that has both, and one to the readers'
      // short names: kept together, one's ports would be the other's.
      m_c.problem(b.where, quote(std::string(w[0]), m_c.limits) + " and " +
                               quote(h.given, m_c.limits) + " (at " + h.origin +
                               ") go by one short name, " + host + ": " + host +
                               " is left out (the readers key hosts by their short name)");
      m_conflicted.insert(host);
      return;
    }
    h.incomplete = h.incomplete || b.lost_port;
    if (m_devices.count({host, device}) > 0) {
      // Two CA blocks for one HCA: ibnetdiscover lists each node once, so one of them names a
      // host it is not (a cloned image, a forged description). Either could be the real one.
      m_c.problem(b.where, host + " " + device + " is given twice, here and at " +
                               m_devices[{host, device}] + ": " + host +
                               " is left out (one of them is not that host: a cloned image, "
                               "or a node description naming another host?)");
      m_conflicted.insert(host);
      return;
    }
    m_devices[{host, device}] = b.where;
    for (const auto& [port, guid] : b.ports) {
      h.ports.push_back({device, port, guid, true});
    }
  }

  std::string m_name;
  Collector& m_c;
  std::optional<CaBlock> m_block;
  std::map<std::string, InventoryHost> m_hosts;
  std::map<std::pair<std::string, std::string>, std::string> m_devices;  // -> where
  std::set<std::string> m_conflicted;  // hosts with an HCA given twice: left out
};

}  // namespace

std::unique_ptr<SourceParser::Form> topology_form(const std::string& name, Collector& c)
{
  return std::make_unique<Topology>(name, c);
}

}  // namespace ibsetup::partitions
