// Fabric verification: expectations from the Layout, one SMP read per host port, the
// comparison, and the two output formats.
#include "partitions/verify.hpp"

#include "common/json.hpp"
#include "common/strings.hpp"
#include "os/smp_port.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <tuple>

namespace ibsetup::partitions {
namespace {

constexpr uint16_t k_full_bit = 0x8000;

uint16_t base_of(uint16_t pkey)
{
  return pkey & 0x7fff;
}

bool is_full(uint16_t pkey)
{
  return (pkey & k_full_bit) != 0;
}

// pkey without the bit -> full; both the Layout's and the port's tables reduce to this.
std::map<uint16_t, bool> by_base(const std::vector<uint16_t>& pkeys)
{
  std::map<uint16_t, bool> out;
  for (uint16_t p : pkeys) {
    out[base_of(p)] = out[base_of(p)] || is_full(p);
  }
  return out;
}

std::vector<uint16_t> sorted_by_base(std::vector<uint16_t> pkeys)
{
  std::sort(pkeys.begin(), pkeys.end(), [](uint16_t a, uint16_t b) {
    return std::make_pair(base_of(a), a) < std::make_pair(base_of(b), b);
  });
  pkeys.erase(std::unique(pkeys.begin(), pkeys.end()), pkeys.end());
  return pkeys;
}

std::string pkey_list(const std::vector<uint16_t>& pkeys)
{
  if (pkeys.empty()) {
    return "none";
  }
  std::string out;
  for (uint16_t p : pkeys) {
    out += (out.empty() ? "" : " ") + util::hex16(p);
  }
  return out;
}

std::string port_name(const PortVerdict& v)
{
  return v.device + "/" + std::to_string(v.port);
}

std::string result_text(const PortVerdict& v)
{
  if (!v.unreachable.empty()) {
    return v.guid + " unreachable: " + v.unreachable;
  }
  std::string lid = "LID " + std::to_string(v.lid) + ": ";
  if (v.ok()) {
    return lid + pkey_list(v.observed);
  }
  std::vector<std::string> parts;
  if (!v.missing.empty()) {
    parts.push_back("missing " + pkey_list(v.missing));
  }
  if (!v.extra.empty()) {
    parts.push_back("extra " + pkey_list(v.extra));
  }
  for (const auto& m : v.membership) {
    parts.push_back(util::hex16(base_of(m.expected)) + " " +
                    (is_full(m.observed) ? "full" : "limited") + " member, expected " +
                    (is_full(m.expected) ? "full" : "limited"));
  }
  std::string out = lid;
  for (const auto& p : parts) {
    out += p + "; ";
  }
  return out + "expected " + pkey_list(v.expected) + ", observed " + pkey_list(v.observed);
}

// The subnet manager's own port: OpenSM makes it a full member of every partition ibsetup
// writes as "ALL=limited, SELF=full".
ExpectedPort sm_port(const Layout& layout, ExpectedPort e)
{
  for (const auto& part : layout.partitions) {
    if (!part.all_full && part.all_limited) {
      for (auto& pkey : e.pkeys) {
        if (base_of(pkey) == base_of(part.pkey)) {
          pkey |= k_full_bit;
        }
      }
    }
  }
  return e;
}

}  // namespace

bool VerifyReport::ok() const
{
  return std::all_of(ports.begin(), ports.end(), [](const PortVerdict& p) { return p.ok(); });
}

std::vector<ExpectedPort> expected_ports(const Layout& layout)
{
  // guid -> (the port, pkey -> full)
  std::map<std::string, std::pair<Member, std::map<uint16_t, bool>>> ports;
  for (const auto& part : layout.partitions) {
    for (const auto& m : part.members) {
      auto& entry =
          ports.emplace(m.guid, std::make_pair(m, std::map<uint16_t, bool>{})).first->second;
      entry.second[base_of(part.pkey)] = entry.second[base_of(part.pkey)] || m.full;
    }
  }
  // Ports of the profile's hosts that are members of no partition: Default's ALL reaches them.
  for (const auto& m : layout.ports) {
    ports.emplace(m.guid, std::make_pair(m, std::map<uint16_t, bool>{}));
  }
  // ALL=full / ALL=limited reach every port that belongs to the Layout.
  for (const auto& part : layout.partitions) {
    if (!part.all_full && !part.all_limited) {
      continue;
    }
    for (auto& [guid, entry] : ports) {
      entry.second[base_of(part.pkey)] = entry.second[base_of(part.pkey)] || part.all_full;
    }
  }
  std::vector<ExpectedPort> out;
  for (const auto& [guid, entry] : ports) {
    ExpectedPort e;
    e.port = entry.first;
    for (const auto& [base, full] : entry.second) {
      e.pkeys.push_back(static_cast<uint16_t>(base | (full ? k_full_bit : 0)));
    }
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(), [](const ExpectedPort& a, const ExpectedPort& b) {
    return std::tie(a.port.host, a.port.device, a.port.port, a.port.guid) <
           std::tie(b.port.host, b.port.device, b.port.port, b.port.guid);
  });
  return out;
}

PortVerdict compare_port(const ExpectedPort& expected, const std::vector<uint16_t>& observed)
{
  PortVerdict v;
  v.host = expected.port.host;
  v.device = expected.port.device;
  v.port = expected.port.port;
  v.guid = expected.port.guid;
  v.expected = sorted_by_base(expected.pkeys);
  v.observed = sorted_by_base(observed);
  const auto want = by_base(v.expected);
  const auto have = by_base(v.observed);
  for (const auto& [base, full] : want) {
    auto it = have.find(base);
    if (it == have.end()) {
      v.missing.push_back(static_cast<uint16_t>(base | (full ? k_full_bit : 0)));
    } else if (it->second != full) {
      v.membership.push_back({static_cast<uint16_t>(base | (full ? k_full_bit : 0)),
                              static_cast<uint16_t>(base | (it->second ? k_full_bit : 0))});
    }
  }
  for (const auto& [base, full] : have) {
    if (want.count(base) == 0) {
      v.extra.push_back(static_cast<uint16_t>(base | (full ? k_full_bit : 0)));
    }
  }
  return v;
}

VerifyReport verify_fabric(const Layout& layout, os::SmpPort& smp)
{
  VerifyReport report;
  report.not_checked = layout.missing;
  for (const auto& e : expected_ports(layout)) {
    auto guid = util::parse_unsigned(e.port.guid);
    if (!guid || e.port.guid.size() < 3 || e.port.guid.compare(0, 2, "0x") != 0) {
      PortVerdict v = compare_port(e, {});
      v.missing.clear();
      v.unreachable = "not a port GUID";
      report.ports.push_back(std::move(v));
      continue;
    }
    const os::SmpLid lid = smp.resolve_guid(*guid);
    os::SmpPkeys table;
    if (lid.error.empty()) {
      table = smp.pkey_table(lid.lid);
    }
    PortVerdict v = compare_port(lid.lid != 0 && lid.lid == smp.sm_lid() ? sm_port(layout, e) : e,
                                 table.entries);
    v.lid = lid.lid;
    v.unreachable = lid.error.empty() ? table.error : lid.error;
    if (!v.unreachable.empty()) {
      // Nothing was read: no differences to claim, only the expectation.
      v.missing.clear();
      v.extra.clear();
      v.membership.clear();
    }
    report.ports.push_back(std::move(v));
  }
  return report;
}

VerifyReport verify_fabric(const Layout& layout, const VerifyOptions& options)
{
  os::SmpPortOptions o;
  o.ca = options.ca;
  o.port = options.port;
  o.timeout_ms = options.timeout_ms;
  o.retries = options.retries;
  auto smp = os::open_smp_port(o);
  return verify_fabric(layout, *smp);
}

std::string format_verify_text(const VerifyReport& report)
{
  struct Row {
    std::string status, host, port, result;
  };
  std::vector<Row> rows;
  size_t passed = 0;
  size_t differ = 0;
  size_t unreachable = 0;
  for (const auto& v : report.ports) {
    if (v.ok()) {
      ++passed;
    } else if (!v.unreachable.empty()) {
      ++unreachable;
    } else {
      ++differ;
    }
    // Host names and the libibmad side's words come from outside: escaped, one row each.
    rows.push_back({v.ok() ? "pass" : "fail", util::escape_text(v.host),
                    util::escape_text(port_name(v)), util::escape_text(result_text(v))});
  }
  for (const auto& m : report.not_checked) {
    std::string pkeys;
    for (uint16_t p : m.pkeys) {
      pkeys += (pkeys.empty() ? " (" : " ") + util::hex16(p);
    }
    rows.push_back(
        {"skip", util::escape_text(m.host), "-",
         "not checked: " + util::escape_text(m.what) + (pkeys.empty() ? "" : pkeys + ")")});
  }
  size_t host_w = 4;
  size_t port_w = 4;
  for (const auto& r : rows) {
    host_w = std::max(host_w, r.host.size());
    port_w = std::max(port_w, r.port.size());
  }
  std::ostringstream out;
  auto row = [&](const Row& r) {
    out << r.status << std::string(8 - std::min<size_t>(8, r.status.size()), ' ') << r.host
        << std::string(host_w + 2 - r.host.size(), ' ') << r.port
        << std::string(port_w + 2 - r.port.size(), ' ') << r.result << '\n';
  };
  row({"STATUS", "HOST", "PORT", "RESULT"});
  for (const auto& r : rows) {
    row(r);
  }
  out << "fabric: " << (report.ok() ? "ok" : "FAILED") << " (" << passed
      << (passed == 1 ? " port matches, " : " ports match, ") << differ
      << (differ == 1 ? " differs, " : " differ, ") << unreachable << " unreachable, "
      << report.not_checked.size() << " not checked)\n";
  return out.str();
}

std::string format_verify_json(const VerifyReport& report)
{
  auto list = [](JsonWriter& j, const char* name, const std::vector<uint16_t>& pkeys) {
    j.key(name).begin_array();
    for (uint16_t p : pkeys) {
      j.value(util::hex16(p));
    }
    j.end_array();
  };
  JsonWriter j;
  j.begin_object();
  j.key("ok").value(report.ok());
  j.key("ports").begin_array();
  for (const auto& v : report.ports) {
    j.begin_object();
    j.key("host").value(v.host);
    j.key("device").value(v.device);
    j.key("port").value(v.port);
    j.key("guid").value(v.guid);
    if (v.lid != 0) {
      j.key("lid").value(static_cast<int>(v.lid));
    } else {
      j.key("lid").null();
    }
    j.key("status").value(v.ok() ? "pass" : (v.unreachable.empty() ? "fail" : "unreachable"));
    list(j, "expected", v.expected);
    if (v.unreachable.empty()) {
      list(j, "observed", v.observed);
    } else {
      j.key("observed").null();
    }
    list(j, "missing", v.missing);
    list(j, "extra", v.extra);
    j.key("membership").begin_array();
    for (const auto& m : v.membership) {
      j.begin_object();
      j.key("pkey").value(util::hex16(base_of(m.expected)));
      j.key("expected").value(is_full(m.expected) ? "full" : "limited");
      j.key("observed").value(is_full(m.observed) ? "full" : "limited");
      j.end_object();
    }
    j.end_array();
    if (v.unreachable.empty()) {
      j.key("error").null();
    } else {
      j.key("error").value(v.unreachable);
    }
    j.end_object();
  }
  j.end_array();
  j.key("not_checked").begin_array();
  for (const auto& m : report.not_checked) {
    j.begin_object();
    j.key("host").value(m.host);
    j.key("what").value(m.what);
    list(j, "pkeys", m.pkeys);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.take_line();
}

}  // namespace ibsetup::partitions
