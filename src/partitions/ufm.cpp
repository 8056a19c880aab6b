// The UFM Enterprise REST calls for a Layout. UFM generates OpenSM's partitions.conf itself;
// what it takes from outside is P_Key membership through its REST API (UFM Enterprise REST API
// Guide, "PKey GUIDs REST API", the /ufmRest/resources/ set that replaced the deprecated
// /ufmRest/actions/ one):
//
//   POST /ufmRest/resources/pkeys            adds GUIDs to a P_Key, creating it when absent
//     pkey         "0x0001": the P_Key without the membership bit (UFM: 0x0 < pkey < 0x7fff)
//     guids        port GUIDs, as 16 hex digits (UFM accepts 16 to 20 characters)
//     membership   "full" | "limited" for all GUIDs, or
//     memberships  one per GUID, in the order of guids (the two conflict: one is sent)
//     ip_over_ib   the P_Key's IPoIB flag (UFM's default: true)
//     index0       false: ibsetup never asks for index 0 of the P_Key tables
//   POST /ufmRest/resources/pkeys/qos_conf   the P_Key's QoS, sent when the profile sets any
//     pkey, mtu_limit (KiB: 2 for 2048, 4 for 4096; UFM's defaults are the SDR ones,
//     mtu_limit 2 with rate_limit 2.5), service_level (0-15), rate_limit (Gb/s)
//
// Adding is not replacing: GUIDs a P_Key already has in UFM stay (remove them with DELETE
// /ufmRest/resources/pkeys/PKEY/guids/GUID,GUID). The Default partition (0x7fff) is UFM's own
// management key, and "ALL" members have no REST form: both are listed in "left_out".
#include "partitions/ufm.hpp"

#include "common/json.hpp"
#include "common/strings.hpp"

#include <vector>

namespace ibsetup::partitions {

namespace {

std::string bare_guid(const std::string& guid)
{
  return guid.size() > 2 && guid.compare(0, 2, "0x") == 0 ? guid.substr(2) : guid;
}

std::string call(const char* path, const JsonWriter& body)
{
  JsonWriter j;
  j.begin_object().key("method").value("POST").key("path").value(path).key("body");
  return j.str() + body.str() + "}";
}

std::string members_call(const Partition& p)
{
  JsonWriter b;
  b.begin_object().key("pkey").value(util::hex16(p.pkey)).key("guids").begin_array();
  size_t full = 0;
  for (const auto& m : p.members) {
    b.value(bare_guid(m.guid));
    full += m.full ? 1 : 0;
  }
  b.end_array();
  if (full == p.members.size() || full == 0) {
    b.key("membership").value(full == 0 ? "limited" : "full");
  } else {
    b.key("memberships").begin_array();
    for (const auto& m : p.members) {
      b.value(m.full ? "full" : "limited");
    }
    b.end_array();
  }
  b.key("ip_over_ib").value(p.ipoib).key("index0").value(false).end_object();
  return call("/ufmRest/resources/pkeys", b);
}

// Only what the profile sets; UFM keeps its own value of the rest.
std::string qos_call(const Partition& p, int mtu_kib, double rate_gbps)
{
  JsonWriter b;
  b.begin_object().key("pkey").value(util::hex16(p.pkey));
  if (mtu_kib > 0) {
    b.key("mtu_limit").value(mtu_kib);
  }
  if (p.sl) {
    b.key("service_level").value(*p.sl);
  }
  if (rate_gbps > 0) {
    b.key("rate_limit").value(rate_gbps);
  }
  b.end_object();
  return call("/ufmRest/resources/pkeys/qos_conf", b);
}

std::string left_out(uint16_t pkey, const std::string& why)
{
  JsonWriter j;
  j.begin_object().key("pkey").value(util::hex16(pkey)).key("why").value(why).end_object();
  return j.str();
}

// One element per line, so that a changed partition changes its own lines.
std::string lines(const std::vector<std::string>& items)
{
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    out += (i == 0 ? "\n" : ",\n") + items[i];
  }
  return out + (items.empty() ? "]" : "\n]");
}

}  // namespace

double ufm_rate_gbps(int rate_code)
{
  // IBTA PathRecord rate encoding (kernel enum ib_rate), the same codes OpenSM's rate= takes.
  static const double rates[] = {0,  0,   2.5, 10, 30,  5,   20,  40, 60, 80,  120, 14,
                                 56, 112, 168, 25, 100, 200, 300, 28, 50, 400, 600, 800};
  if (rate_code < 0 || rate_code >= static_cast<int>(sizeof rates / sizeof rates[0])) {
    return 0;
  }
  return rates[rate_code];
}

std::string write_ufm(const Layout& layout)
{
  std::vector<std::string> calls;
  std::vector<std::string> skipped;
  for (const auto& p : layout.partitions) {
    if (p.pkey == 0x7fff) {
      skipped.push_back(left_out(p.pkey, "the Default partition is UFM's own management key"));
      continue;
    }
    // As opensm.cpp's "# left out" comments: the second host's listing of a GUID already
    // taken (the call keeps the first host's).
    for (const auto& d : p.duplicates) {
      skipped.push_back(left_out(p.pkey, "its GUID is on two hosts: " + d));
    }
    if (p.all_full || p.all_limited) {
      skipped.push_back(left_out(p.pkey, std::string("ALL=") + (p.all_full ? "full" : "limited") +
                                             " has no form in UFM's REST API: set it in UFM"));
    }
    if (!p.members.empty()) {
      calls.push_back(members_call(p));
    } else if (!p.all_full && !p.all_limited) {
      skipped.push_back(left_out(p.pkey, "no member port was found"));
      continue;
    }
    int mtu_kib = 0;
    if (p.mtu_code && *p.mtu_code >= 4 && *p.mtu_code <= 5) {
      mtu_kib = *p.mtu_code == 5 ? 4 : 2;
    } else if (p.mtu_code) {
      skipped.push_back(left_out(p.pkey, "mtu code " + std::to_string(*p.mtu_code) +
                                             " is below 2048 bytes, which UFM's mtu_limit "
                                             "(2 or 4 KiB) cannot say: set it in UFM"));
    }
    const double rate = p.rate_code ? ufm_rate_gbps(*p.rate_code) : 0;
    if (p.rate_code && rate == 0) {
      skipped.push_back(
          left_out(p.pkey, "rate code " + std::to_string(*p.rate_code) +
                               " is not one UFM's rate_limit can say: set it in UFM"));
    }
    if (mtu_kib > 0 || p.sl || rate > 0) {
      calls.push_back(qos_call(p, mtu_kib, rate));
    }
  }
  std::vector<std::string> missing;
  for (const auto& m : layout.missing) {
    JsonWriter j;
    j.begin_object().key("host").value(m.host).key("what").value(m.what).end_object();
    missing.push_back(j.str());
  }
  return "{\"generated_by\":\"ibsetup\",\"calls\":" + lines(calls) +
         ",\n\"left_out\":" + lines(skipped) + ",\n\"missing\":" + lines(missing) + "}\n";
}

}  // namespace ibsetup::partitions
