// The `partitions:` section: what the subnet manager's partitions.conf holds beyond what the
// interfaces imply (names, broadcast-group settings, limited members, the Default partition).
#include "common/strings.hpp"
#include "profile/reader.hpp"
#include "profile/reader_fields.hpp"

#include <cmath>

namespace ibsetup::profile::detail {

namespace {

constexpr EnumName<Membership> k_memberships[] = {{"full", Membership::full},
                                                  {"limited", Membership::limited}};

// IB MTUs (the IPoIB broadcast group's), and the rates that have an IBTA rate code (kernel
// enum ib_rate): partitions/layout.cpp turns both into OpenSM's codes.
const int k_ib_mtus[] = {256, 512, 1024, 2048, 4096};
const double k_partition_rates[] = {2.5, 5,  10,  14,  20,  25,  28,  30,  40,  50,  56,
                                    60,  80, 100, 112, 120, 168, 200, 300, 400, 600, 800};

// OpenSM keeps 32 bytes of a name; its parser splits on ',', '=', ':', ';', '#' and blanks.
constexpr size_t k_name_max = 31;

std::string name_problem(const std::string& name)
{
  if (name.empty()) {
    return "a partition name is not empty";
  }
  if (name.size() > k_name_max) {
    return "'" + util::escape_text(name) + "' is " + std::to_string(name.size()) +
           " bytes; OpenSM keeps at most 31";
  }
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-';
    if (!ok || (i == 0 && c >= '0' && c <= '9')) {
      return "partition name '" + util::escape_text(name) + "' " +
             (ok ? "starts with a digit" : "contains " + util::describe_char(name, i)) +
             "; names hold ASCII letters, digits, '_', '.' and '-', and start with a letter";
    }
  }
  if (name == "Default") {
    return "'Default' names the default partition (0x7fff); set it under partitions.default";
  }
  return {};
}

Setting<uint16_t> read_partition_pkey(const Entry& e, Diagnostics& diags)
{
  const auto value = read_pkey_number(e, diags);
  if (!value) {
    return {};
  }
  // 0x8001 and 0x0001 are the same partition: the top bit is a port's membership, which the
  // subnet manager sets per member.
  const auto number = static_cast<uint16_t>(*value & 0x7fffU);
  if (number == 0) {
    diags.error(e.value_mark, e.path,
                util::hex16(static_cast<uint16_t>(*value)) +
                    " is not a usable P_Key (partition numbers run from 0x0001 to 0x7ffe)");
    return {};
  }
  if (number == 0x7fff) {
    diags.error(e.value_mark, e.path,
                "0x7fff is the Default partition; set its membership and broadcast group under "
                "partitions.default");
    return {};
  }
  return {number, e.value_mark};
}

template <size_t N>
bool one_of(const double (&values)[N], double v)
{
  for (const double x : values) {
    if (std::fabs(x - v) < 1e-9) {
      return true;
    }
  }
  return false;
}

// mtu, rate and sl: the keys the Default partition and the others share.
void read_group_settings(const MapReader& m, PartitionSpec& spec, Diagnostics& diags)
{
  if (const auto* e = m.get("mtu")) {
    spec.mtu = read_int(*e, 1, 65520, diags);
    bool valid = false;
    for (const int v : k_ib_mtus) {
      valid = valid || (spec.mtu && *spec.mtu == v);
    }
    if (spec.mtu && !valid) {
      const int asked = *spec.mtu;
      std::string hint;
      if (asked == 4092 || asked == 2044) {
        hint = "; " + std::to_string(asked) + " is the IPoIB datagram MTU, whose IB MTU is " +
               std::to_string(asked + 4);
      }
      diags.error(e->value_mark, e->path,
                  std::to_string(asked) +
                      " is not an IB MTU in bytes (256, 512, 1024, 2048 or 4096)" + hint);
      spec.mtu = {};
    }
  }
  if (const auto* e = m.get("rate")) {
    spec.rate = read_number(*e, diags);
    if (spec.rate && !one_of(k_partition_rates, *spec.rate)) {
      std::vector<std::string> words;
      for (const double r : k_partition_rates) {
        words.push_back(util::format_number(r));
      }
      diags.error(e->value_mark, e->path,
                  util::format_number(*spec.rate) + " is not an InfiniBand rate in Gb/s (" +
                      util::join_alternatives(words) + ")");
      spec.rate = {};
    }
  }
  if (const auto* e = m.get("sl")) {
    spec.sl = read_int(*e, 0, 15, diags);
  }
}

void read_one(const Entry& item, PartitionSpec& spec, Diagnostics& diags)
{
  spec.mark = item.value_mark;
  spec.path = item.path;
  MapReader m(item.value, item.path, item.value_mark, diags,
              {"pkey", "name", "mtu", "rate", "sl", "limited"});
  if (!m.is_map()) {
    return;
  }
  if (const auto* e = m.get("pkey")) {
    spec.pkey = read_partition_pkey(*e, diags);
  } else {
    diags.error(item.value_mark, item.path, "missing required key 'pkey' (e.g. 0x8001)");
  }
  if (const auto* e = m.get("name")) {
    auto name = read_string(*e, diags);
    if (name) {
      if (const auto problem = name_problem(*name); !problem.empty()) {
        diags.error(e->value_mark, e->path, problem);
      } else {
        spec.name = name;
      }
    }
  }
  read_group_settings(m, spec, diags);
  if (const auto* e = m.get("limited")) {
    spec.limited = read_string(*e, diags);
    if (spec.limited && e->value.Tag() == "!") {
      ++spec.limited.mark.column;  // quoted: hostlist offsets count from inside the quotes
    }
  }
}

}  // namespace

void read_partitions(const Entry& section, Profile& profile, Diagnostics& diags)
{
  PartitionsSpec& out = profile.partitions;
  out.mark = section.value_mark;
  out.declared = true;
  MapReader m(section.value, section.path, section.value_mark, diags, {"default", "pkeys"});
  if (const auto* e = m.get("default")) {
    PartitionSpec& d = out.default_partition;
    d.mark = e->value_mark;
    d.path = e->path;
    d.pkey = {static_cast<uint16_t>(0x7fff), e->value_mark};
    MapReader dm(e->value, e->path, e->value_mark, diags, {"membership", "mtu", "rate", "sl"});
    if (const auto* x = dm.get("membership")) {
      d.membership = read_enum(*x, k_memberships, diags);
    }
    read_group_settings(dm, d, diags);
  }
  if (const auto* e = m.get("pkeys")) {
    for (const auto& item : read_list(*e, diags)) {
      read_one(item, out.pkeys.emplace_back(), diags);
    }
  }
}

}  // namespace ibsetup::profile::detail
