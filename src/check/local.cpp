// The checks that need no network traffic: HCAs, PCIe links, ports and IPoIB interfaces,
// compared with what the profile expects. IPoIB drift reuses the planner: a non-empty plan
// for an interface is drift.
#include <ibsetup/check.hpp>
#include <ibsetup/plan.hpp>

#include "check/local_ports.hpp"
#include "common/strings.hpp"
#include "os/sysfs.hpp"

#include <algorithm>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

namespace ibsetup::check {

namespace detail {

void add(std::vector<Result>& out, const char* id, const std::string& subject, bool ok,
         const std::string& expected, const std::string& observed, const std::string& message)
{
  out.push_back(
      {id, subject, ok ? Status::pass : Status::fail, expected, observed, message, {}, {}});
}

void skip(std::vector<Result>& out, const char* id, const std::string& subject,
          const std::string& why)
{
  out.push_back({id, subject, Status::skip, "", "", subject + ": " + why, {}, {}});
}

const inventory::Device* find_device(const inventory::Host& host, const profile::HcaSpec& spec)
{
  for (const auto& d : host.devices) {
    if ((spec.device && d.name == *spec.device) ||
        (!spec.device && spec.pci && d.pci && d.pci->address == *spec.pci)) {
      return &d;
    }
  }
  return nullptr;
}

}  // namespace detail

namespace {

using detail::add;
using detail::skip;

// The numbers of a dotted firmware version ("20.31.1014"), leading zeros dropped; nullopt
// when text is not one ("N/A", empty, binary, "20..31").
std::optional<std::vector<std::string_view>> version_numbers(std::string_view text)
{
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    const size_t dot = std::min(text.find('.', start), text.size());
    std::string_view n = text.substr(start, dot - start);
    if (n.empty() || n.find_first_not_of("0123456789") != std::string_view::npos) {
      return std::nullopt;
    }
    n.remove_prefix(std::min(n.find_first_not_of('0'), n.size() - 1));
    out.push_back(n);
    if (dot == text.size()) {
      return out;
    }
    start = dot + 1;
  }
}

// have >= want, number by number ("20.31.1014" >= "20.28.2006"); a version with fewer
// numbers than want is not enough. Numbers are compared by length, then digit by digit: no
// conversion, so a 20-digit number cannot overflow.
bool version_at_least(const std::vector<std::string_view>& have,
                      const std::vector<std::string_view>& want)
{
  for (size_t i = 0; i < want.size(); ++i) {
    if (i >= have.size()) {
      return false;
    }
    if (have[i].size() != want[i].size()) {
      return have[i].size() > want[i].size();
    }
    if (have[i] != want[i]) {
      return have[i] > want[i];
    }
  }
  return true;
}

// A value read from the host, quoted for a message: escaped as every text output escapes
// outside text (util::escape_text), cut after 64 bytes.
std::string quoted(std::string_view text)
{
  return "'" + util::escape_text(text.substr(0, 64)) + (text.size() > 64 ? "'..." : "'");
}

std::string hca_name(const profile::HcaSpec& spec)
{
  return spec.device ? *spec.device : spec.pci ? *spec.pci : spec.path;
}

void check_abi(const std::string& sysfs_root, bool any_hca, std::vector<Result>& out)
{
  if (!any_hca) {
    return;
  }
  const inventory::SysfsReader fs(sysfs_root, inventory::is_live_root(sysfs_root));
  for (const char* cls : {"infiniband_mad", "infiniband_verbs"}) {
    const auto abi = fs.read(std::string("class/") + cls + "/abi_version");
    add(out, "hca.abi", cls, abi.has_value(), "abi_version present",
        abi ? "abi_version " + *abi : "missing",
        abi ? std::string(cls) + ": ABI version " + *abi
            : std::string(cls) + ": " +
                  (inventory::is_live_root(sysfs_root) ? std::string("/sys")
                                                       : util::escape_text(sysfs_root)) +
                  "/class/" + cls + "/abi_version missing (is the kernel module " +
                  (std::string(cls) == "infiniband_mad" ? "ib_umad" : "ib_uverbs") + " loaded?)");
  }
}

// An attribute the kernel could not give ("Unknown" speed, no current_link_width: a link that
// did not train, or a virtual function, whose link registers read zero) cannot show the
// profile's minimum is met, so it fails; without a minimum in the profile it is a skip.
void unknown_link(std::vector<Result>& out, const char* id, const std::string& subject,
                  const char* attribute, const std::optional<std::string>& required)
{
  if (!required) {
    skip(out, id, subject, std::string("PCIe ") + attribute + " unknown in sysfs");
    return;
  }
  add(out, id, subject, false, "at least " + *required, "unknown",
      subject + ": PCIe link " + attribute + " unknown in sysfs, expected at least " + *required +
          " (profile)");
}

// The 6-bit width field of a PCIe config read that returned all ones.
constexpr int k_width_all_ones = 63;

void check_pcie(const profile::HcaSpec& spec, const inventory::Device& d, std::vector<Result>& out)
{
  const std::string subject = d.name;
  if (!d.pci) {
    skip(out, "pcie.width", subject, "no PCIe link attributes in sysfs");
    skip(out, "pcie.speed", subject, "no PCIe link attributes in sysfs");
    return;
  }
  // A maximum of 0 is not known either: a conventional PCI bridge (often what a VM's passed-
  // through HCA sits behind) shows 0, and taking it as the limit passed any width.
  // A maximum of all ones (63, the 6-bit field of a config read that got no answer) is not
  // known either.
  auto p = *d.pci;
  for (auto* v : {&p.max_link_width, &p.bridge_max_width}) {
    if (*v && (**v <= 0 || **v == k_width_all_ones)) {
      v->reset();
    }
  }
  for (auto* v : {&p.max_link_speed_gts, &p.bridge_max_speed_gts}) {
    if (*v && !(**v > 0)) {
      v->reset();
    }
  }
  // The link can train no wider or faster than the slower end: the card or its bridge.
  // A virtual function's (or a link down's) width reads 0: unknown, as a missing file is.
  // A width of all ones is a config read that got no answer: a card that fell off the bus, or
  // hung, reads 0xffff, and no link is 63 lanes wide. It fails with or without a minimum.
  if (p.link_width && *p.link_width == k_width_all_ones) {
    add(out, "pcie.width", subject, false,
        spec.pcie_width ? "at least x" + util::format_number(*spec.pcie_width)
                        : std::string("a working PCIe link"),
        "x63",
        subject +
            ": PCIe link status reads all ones (x63): the card does not answer config reads "
            "(removed from the bus, or hung?)");
  } else if (!p.link_width || *p.link_width == 0) {
    unknown_link(out, "pcie.width", subject, "width",
                 spec.pcie_width
                     ? std::optional<std::string>("x" + util::format_number(*spec.pcie_width))
                     : std::nullopt);
  } else {
    int want_width = p.max_link_width.value_or(0);
    if (p.bridge_max_width) {
      want_width =
          std::min(want_width == 0 ? *p.bridge_max_width : want_width, *p.bridge_max_width);
    }
    std::string why =
        "card max x" +
        (p.max_link_width ? util::format_number(*p.max_link_width) : std::string("?")) +
        ", bridge max x" +
        (p.bridge_max_width ? util::format_number(*p.bridge_max_width) : std::string("?"));
    if (spec.pcie_width) {
      want_width = std::max(want_width, *spec.pcie_width);
      why += ", profile x" + util::format_number(*spec.pcie_width);
    }
    add(out, "pcie.width", subject, *p.link_width >= want_width,
        "at least x" + util::format_number(want_width), "x" + util::format_number(*p.link_width),
        subject + ": PCIe link x" + util::format_number(*p.link_width) +
            (*p.link_width >= want_width
                 ? ""
                 : ", expected at least x" + util::format_number(want_width)) +
            " (" + why + ")");
  }
  if (!p.link_speed_gts) {
    unknown_link(out, "pcie.speed", subject, "speed",
                 spec.pcie_speed
                     ? std::optional<std::string>(util::format_number(*spec.pcie_speed) + " GT/s")
                     : std::nullopt);
    return;
  }
  double want_speed = p.max_link_speed_gts.value_or(0);
  if (p.bridge_max_speed_gts) {
    want_speed =
        std::min(want_speed == 0 ? *p.bridge_max_speed_gts : want_speed, *p.bridge_max_speed_gts);
  }
  std::string swhy =
      "card max " + util::format_number(p.max_link_speed_gts.value_or(0)) + " GT/s, bridge max " +
      (p.bridge_max_speed_gts ? util::format_number(*p.bridge_max_speed_gts) : std::string("?")) +
      " GT/s";
  if (spec.pcie_speed) {
    want_speed = std::max(want_speed, *spec.pcie_speed);
    swhy += ", profile " + util::format_number(*spec.pcie_speed) + " GT/s";
  }
  const bool speed_ok = *p.link_speed_gts + 1e-9 >= want_speed;
  add(out, "pcie.speed", subject, speed_ok, "at least " + util::format_number(want_speed) + " GT/s",
      util::format_number(*p.link_speed_gts) + " GT/s",
      subject + ": PCIe link " + util::format_number(*p.link_speed_gts) + " GT/s" +
          (speed_ok ? "" : ", expected at least " + util::format_number(want_speed) + " GT/s") +
          " (" + swhy + ")");
}

void check_hcas(const profile::ResolvedNode& node, const inventory::Host& host,
                std::vector<Result>& out)
{
  std::string found;
  for (const auto& d : host.devices) {
    found += (found.empty() ? "" : ", ") + d.name;
  }
  for (const auto& spec : node.hcas) {
    const std::string name = hca_name(spec);
    const inventory::Device* d = detail::find_device(host, spec);
    add(out, "hca.present", name, d != nullptr, "present", d ? "present" : "absent",
        d ? name + ": present" + (d->pci ? " at " + d->pci->address : std::string())
          : name + ": not found (HCAs on this host: " + (found.empty() ? "none" : found) + ")");
    if (d == nullptr) {
      continue;
    }
    if (spec.firmware_min) {
      // A version that is not dotted numbers ("N/A", empty, garbage) is unknown: it fails.
      const auto have = d->fw_ver ? version_numbers(*d->fw_ver) : std::nullopt;
      const auto want = version_numbers(*spec.firmware_min);
      const bool ok = have && want && version_at_least(*have, *want);
      const std::string fw = !d->fw_ver ? "unknown" : have ? *d->fw_ver : quoted(*d->fw_ver);
      add(out, "hca.firmware", name, ok, "at least " + *spec.firmware_min, fw,
          name + ": firmware " + fw +
              (ok ? ""
               : d->fw_ver && !have
                   ? " is not a version number, expected at least " + *spec.firmware_min
                   : ", expected at least " + *spec.firmware_min));
    }
    check_pcie(spec, *d, out);
  }
}

}  // namespace

std::vector<Result> check_local(const profile::ResolvedNode& node, const inventory::Host& host,
                                const std::string& sysfs_root, const LocalOptions& options)
{
  std::vector<Result> out;
  if (options.abi_known) {
    check_abi(sysfs_root, !node.hcas.empty() || !host.devices.empty(), out);
  } else {
    detail::skip(out, "hca.abi", host.host,
                 "the kernel's ABI files are not in a saved inventory (checked on the host)");
  }
  check_hcas(node, host, out);
  detail::check_ports(node, host, out);
  detail::check_ipoib(node, host, options, out);
  return out;
}

}  // namespace ibsetup::check
