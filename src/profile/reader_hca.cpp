// The `hcas:` entries of a node group: device or PCI address, link type, firmware minimum,
// PCIe link and ports, each value checked on its own against what the hardware can report.
#include "profile/reader.hpp"

#include "common/strings.hpp"

#include <cmath>
#include <map>

namespace ibsetup::profile::detail {

namespace {

constexpr EnumName<LinkType> k_link_types[] = {
    {"ib", LinkType::ib}, {"eth", LinkType::eth}, {"vpi", LinkType::vpi}};
constexpr EnumName<PortState> k_states[] = {{"down", PortState::down},
                                            {"init", PortState::init},
                                            {"armed", PortState::armed},
                                            {"active", PortState::active},
                                            {"active_defer", PortState::active_defer}};

// Rates the kernel reports for an IB port (enum ib_rate), in Gb/s.
const double k_rates[] = {2.5, 5,   10,  14,  20,  25,  30,  40,  50,  56,  60,
                          80,  100, 112, 120, 168, 200, 300, 400, 600, 800, 1200};
const int k_pcie_widths[] = {1, 2, 4, 8, 12, 16, 32};
const double k_pcie_speeds[] = {2.5, 5, 8, 16, 32, 64};

template <class T, size_t N>
std::string list_values(const T (&values)[N])
{
  std::vector<std::string> words;
  for (const auto v : values) {
    words.push_back(util::format_number(static_cast<double>(v)));
  }
  return util::join_alternatives(words);
}

template <class T, size_t N>
bool one_of(const T (&values)[N], double v)
{
  for (const auto x : values) {
    if (std::fabs(static_cast<double>(x) - v) < 1e-9) {
      return true;
    }
  }
  return false;
}

bool valid_pci(std::string& text)
{
  auto address = util::pci_address(text);
  if (address) {
    text = std::move(*address);
  }
  return address.has_value();
}

bool valid_version(const std::string& text)
{
  if (text.empty() || text.front() == '.' || text.back() == '.') {
    return false;
  }
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (!(c >= '0' && c <= '9') && !(c == '.' && text[i - 1] != '.')) {
      return false;
    }
  }
  return true;
}

void read_port(const Entry& item, PortSpec& port, Diagnostics& diags)
{
  port.mark = item.value_mark;
  MapReader m(item.value, item.path, item.value_mark, diags,
              {"port", "link_type", "rate", "state"});
  if (const auto* e = m.get("port")) {
    if (auto p = read_int(*e, 1, k_max_port, diags)) {
      port.port = *p;
    }
  } else if (m.is_map()) {
    diags.error(item.value_mark, item.path, "missing required key 'port' (the port number)");
  }
  if (const auto* e = m.get("link_type")) {
    port.link_type = read_enum(*e, k_link_types, diags);
  }
  if (const auto* e = m.get("rate")) {
    port.rate = read_number(*e, diags);
    if (port.rate && !one_of(k_rates, *port.rate)) {
      diags.error(e->value_mark, e->path,
                  util::format_number(*port.rate) + " is not an InfiniBand rate in Gb/s (" +
                      list_values(k_rates) + ")");
      port.rate = {};
    }
  }
  if (const auto* e = m.get("state")) {
    port.state = read_enum(*e, k_states, diags);
  }
}

}  // namespace

void read_hca(const Entry& item, HcaSpec& hca, Diagnostics& diags)
{
  hca.mark = item.value_mark;
  hca.path = item.path;
  MapReader m(item.value, item.path, item.value_mark, diags,
              {"device", "pci", "link_type", "firmware", "pcie", "ports"});
  if (const auto* e = m.get("device")) {
    hca.device = read_device_name(*e, diags);
  }
  if (const auto* e = m.get("pci")) {
    if (auto pci = read_string(*e, diags)) {
      std::string text(util::trim(*pci));
      if (valid_pci(text)) {
        hca.pci = {text, pci.mark};
      } else {
        diags.error(e->value_mark, e->path,
                    "'" + *pci + "' is not a PCI address (expected e.g. 0000:3b:00.0)");
      }
    }
  }
  if (m.is_map() && !m.get("device") && !m.get("pci")) {
    diags.error(item.value_mark, item.path,
                "an HCA needs 'device' (e.g. mlx5_0) or 'pci' (e.g. 0000:3b:00.0)");
  }
  if (const auto* e = m.get("link_type")) {
    hca.link_type = read_enum(*e, k_link_types, diags);
  }
  if (const auto* e = m.get("firmware")) {
    MapReader fw(e->value, e->path, e->value_mark, diags, {"min"});
    if (const auto* min = fw.get("min")) {
      auto v = read_string(*min, diags);
      if (v && !valid_version(*v)) {
        diags.error(min->value_mark, min->path,
                    "'" + *v + "' is not a firmware version (expected e.g. 20.31.1014)");
      } else {
        hca.firmware_min = v;
      }
    }
  }
  if (const auto* e = m.get("pcie")) {
    MapReader pcie(e->value, e->path, e->value_mark, diags, {"width", "speed"});
    if (const auto* w = pcie.get("width")) {
      hca.pcie_width = read_int(*w, 1, 32, diags);
      if (hca.pcie_width && !one_of(k_pcie_widths, *hca.pcie_width)) {
        diags.error(w->value_mark, w->path,
                    "x" + std::to_string(*hca.pcie_width) + " is not a PCIe link width (" +
                        list_values(k_pcie_widths) + ")");
        hca.pcie_width = {};
      }
    }
    if (const auto* s = pcie.get("speed")) {
      hca.pcie_speed = read_number(*s, diags);
      if (hca.pcie_speed && !one_of(k_pcie_speeds, *hca.pcie_speed)) {
        diags.error(s->value_mark, s->path,
                    util::format_number(*hca.pcie_speed) + " is not a PCIe speed in GT/s (" +
                        list_values(k_pcie_speeds) + ")");
        hca.pcie_speed = {};
      }
    }
  }
  if (const auto* e = m.get("ports")) {
    std::map<int, std::string> seen;  // port -> where first listed
    for (const auto& p : read_list(*e, diags)) {
      PortSpec& port = hca.ports.emplace_back();
      read_port(p, port, diags);
      // Two entries for one port would be folded, the last winning: a link type, state or
      // rate silently dropped.
      if (port.port != 0) {
        if (const auto [it, fresh] = seen.emplace(port.port, p.path); !fresh) {
          diags.error(p.value_mark, p.path + ".port",
                      "port " + std::to_string(port.port) + " is listed twice in this HCA (also " +
                          it->second + "); list each port once");
        }
      }
    }
  }
}

}  // namespace ibsetup::profile::detail
