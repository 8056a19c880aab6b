#include "partitions/report.hpp"

#include "common/json.hpp"
#include "common/strings.hpp"

#include <ibsetup/hostlist.hpp>

namespace ibsetup::partitions {

namespace {

std::string pkey_list(const std::vector<uint16_t>& pkeys)
{
  std::string out;
  for (const uint16_t p : pkeys) {
    out += (out.empty() ? "" : ", ") + util::hex16(p);
  }
  return out;
}

void strings(JsonWriter& w, const char* key, const std::vector<std::string>& items)
{
  w.key(key).begin_array();
  for (const auto& s : items) {
    w.value(s);
  }
  w.end_array();
}

}  // namespace

bool layout_complete(const Layout& layout)
{
  return layout.missing.empty() && layout.duplicate_guids.empty();
}

std::vector<std::string> report_lines(const Layout& layout, const Inventories& inventories)
{
  std::vector<std::string> lines;
  // The inputs' problems first: a member is often missing because its inventory was left out
  // for one of them, and the cause reads best before its effect.
  for (const auto& p : inventories.problems) {
    lines.push_back(p.where + ": " + p.message);
  }
  for (const auto& m : layout.missing) {
    lines.push_back("missing member " + m.host + " (partition " + pkey_list(m.pkeys) +
                    "): " + m.what);
  }
  for (const auto& d : layout.duplicate_guids) {
    lines.push_back("GUID on two ports: " + d);
  }
  if (!layout.unknown_hosts.empty()) {
    lines.push_back("inventories of hosts not in the profile (left out): " +
                    fold_hostlist(layout.unknown_hosts));
  }
  lines.insert(lines.end(), layout.warnings.begin(), layout.warnings.end());
  return lines;
}

std::string layout_to_json(const Layout& layout, const Inventories& inventories)
{
  JsonWriter w;
  w.begin_object();
  w.key("complete").value(layout_complete(layout));
  w.key("partitions").begin_array();
  for (const auto& p : layout.partitions) {
    w.begin_object();
    w.key("name").value(p.name);
    w.key("pkey").value(util::hex16(p.pkey));
    w.key("ipoib").value(p.ipoib);
    w.key("mtu").value(p.mtu_code);
    w.key("rate").value(p.rate_code);
    w.key("sl").value(p.sl);
    w.key("all");
    if (p.all_full || p.all_limited) {
      w.value(p.all_full ? "full" : "limited");
    } else {
      w.null();
    }
    w.key("members").begin_array();
    for (const auto& m : p.members) {
      w.begin_object();
      w.key("guid").value(m.guid);
      w.key("host").value(m.host);
      w.key("device").value(m.device);
      w.key("port").value(m.port);
      w.key("membership").value(m.full ? "full" : "limited");
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.key("missing").begin_array();
  for (const auto& m : layout.missing) {
    w.begin_object();
    w.key("host").value(m.host);
    w.key("reason").value(m.what);
    w.key("pkeys").begin_array();
    for (const uint16_t p : m.pkeys) {
      w.value(util::hex16(p));
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  strings(w, "duplicate_guids", layout.duplicate_guids);
  strings(w, "unknown_hosts", layout.unknown_hosts);
  w.key("inventory_problems").begin_array();
  for (const auto& p : inventories.problems) {
    w.begin_object();
    w.key("where").value(p.where);
    w.key("message").value(p.message);
    w.end_object();
  }
  w.end_array();
  strings(w, "warnings", layout.warnings);
  w.end_object();
  return w.take_line();
}

}  // namespace ibsetup::partitions
