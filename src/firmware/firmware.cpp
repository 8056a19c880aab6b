#include <ibsetup/firmware.hpp>
#include <ibsetup/render.hpp>
#include "common/strings.hpp"
#include "common/termination_guard.hpp"
#include "firmware/card.hpp"
#include "firmware/reboot.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ibsetup::firmware {

const char* const k_reboot_marker = "/run/ibsetup/reboot-required";

namespace {

using detail::card_address;
using detail::cards;

std::optional<profile::LinkType> running_type(
    const std::optional<inventory::Reading<inventory::LinkLayer>>& link_layer)
{
  if (link_layer == inventory::LinkLayer::infiniband) {
    return profile::LinkType::ib;
  }
  if (link_layer == inventory::LinkLayer::ethernet) {
    return profile::LinkType::eth;
  }
  return std::nullopt;
}

const inventory::Device* find_device(const inventory::Host& host, const profile::HcaSpec& hca)
{
  for (const auto& d : host.devices) {
    if (hca.device ? d.name == *hca.device : (hca.pci && d.pci && d.pci->address == *hca.pci)) {
      return &d;
    }
  }
  return nullptr;
}

// The HCA's ports and their desired link types: an HCA-wide link_type covers every port the
// host shows (and the ones the profile lists); a port's own link_type wins.
std::map<int, profile::LinkType> desired_ports(const profile::HcaSpec& hca,
                                               const inventory::Device& device)
{
  std::map<int, profile::LinkType> out;
  if (hca.link_type) {
    for (const auto& p : device.ports) {
      out[p.port] = *hca.link_type;
    }
    for (const auto& p : hca.ports) {
      out[p.port] = *hca.link_type;
    }
    if (out.empty()) {
      out[1] = *hca.link_type;
    }
  }
  for (const auto& p : hca.ports) {
    if (p.link_type) {
      out[p.port] = *p.link_type;
    }
  }
  return out;
}

// The HCA port an interface runs on: as declared, else where the host has the netdev (a
// child runs where its parent does).
std::optional<std::pair<std::string, int>> interface_port(const profile::ResolvedNode& node,
                                                          const inventory::Host& host,
                                                          const profile::ResolvedInterface& i)
{
  if (i.device && i.port) {
    return std::make_pair(*i.device, *i.port);
  }
  const std::string name = i.parent ? *i.parent : i.name;
  if (i.parent) {
    for (const auto& p : node.interfaces) {
      if (p.name == *i.parent && p.device && p.port) {
        return std::make_pair(*p.device, *p.port);
      }
    }
  }
  for (const auto& n : host.netdevs) {
    if (n.name == name && n.device && n.port) {
      return std::make_pair(*n.device, *n.port);
    }
  }
  return std::nullopt;
}

// The end of the warning about a port whose next boot is ETH: apply_state drops it once the
// port is set to InfiniBand.
std::string next_boot_eth(const std::string& device, int port)
{
  return " on " + device + " port " + std::to_string(port) +
         ", whose link type is ETH in the firmware for the next boot (IPoIB needs InfiniBand)";
}

bool ends_with(const std::string& s, const std::string& tail)
{
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

void warn_ipoib_on_ethernet(const profile::ResolvedNode& node, const inventory::Host& host,
                            State& state)
{
  for (const auto& i : node.interfaces) {
    const auto where = interface_port(node, host, i);
    if (!where) {
      continue;
    }
    for (const auto& d : state.devices) {
      for (const auto& p : d.ports) {
        if (d.device != where->first || p.port != where->second) {
          continue;
        }
        if (p.desired == profile::LinkType::eth) {
          state.warnings.push_back(i.name + ": IPoIB is declared on " + d.device + " port " +
                                   std::to_string(p.port) +
                                   ", whose link type the profile sets to eth (IPoIB needs "
                                   "InfiniBand)");
        } else if (p.next_boot == profile::LinkType::eth) {
          state.warnings.push_back(i.name + ": IPoIB is declared" +
                                   next_boot_eth(d.device, p.port));
        }
      }
    }
  }
}

}  // namespace

bool PortLinkType::reboot_pending() const
{
  if (!next_boot || *next_boot == profile::LinkType::vpi) {
    return false;
  }
  const auto running = running_type(link_layer);
  return running && *running != *next_boot;
}

bool DeviceLinkTypes::differs() const
{
  return std::any_of(ports.begin(), ports.end(), [](const auto& p) { return p.differs(); });
}

bool DeviceLinkTypes::reboot_pending() const
{
  return std::any_of(ports.begin(), ports.end(), [](const auto& p) { return p.reboot_pending(); });
}

namespace detail {

bool reboot_owed(const DeviceLinkTypes& d, const PortLinkType& p, const std::vector<Change>& done)
{
  if (p.reboot_pending()) {
    return true;
  }
  // Set by this run while its running type cannot be read (no link_layer file, a value
  // ibsetup does not know): it may well differ, and a reboot owed must not go unreported.
  // Not for ports nobody set, or every apply on such a host would stop for a reboot.
  if (!p.next_boot || *p.next_boot == profile::LinkType::vpi || running_type(p.link_layer)) {
    return false;
  }
  return std::any_of(done.begin(), done.end(), [&](const Change& c) {
    return c.device == d.device && c.pci == d.pci && c.port == p.port;
  });
}

}  // namespace detail

bool Report::reboot_required() const
{
  return std::any_of(state.devices.begin(), state.devices.end(), [this](const auto& d) {
    return std::any_of(d.ports.begin(), d.ports.end(),
                       [&](const auto& p) { return detail::reboot_owed(d, p, done); });
  });
}

bool declares_link_type(const profile::ResolvedNode& node)
{
  for (const auto& h : node.hcas) {
    if (h.link_type) {
      return true;
    }
    for (const auto& p : h.ports) {
      if (p.link_type) {
        return true;
      }
    }
  }
  return false;
}

State query_state(const profile::ResolvedNode& node, const inventory::Host& host, Tool* tool)
{
  State state;
  state.host = node.host;
  state.declared = declares_link_type(node);
  // The first declaration of each physical port of each card: of two that disagree, the later
  // would silently win, whichever HCA each names.
  std::map<std::pair<std::string, int>, std::pair<std::string, profile::LinkType>> claims;
  // Every HCA is located and every query made before the caller may set anything, so a
  // problem with the second HCA leaves the first untouched.
  for (const auto& hca : node.hcas) {
    const std::string label = hca.device ? *hca.device : hca.pci ? *hca.pci : hca.path;
    const inventory::Device* device = find_device(host, hca);
    if (device == nullptr) {
      if (!hca.link_type && std::none_of(hca.ports.begin(), hca.ports.end(),
                                         [](const auto& p) { return bool(p.link_type); })) {
        continue;
      }
      throw InputError(hca.path + ": HCA " + label +
                       " is not on this host; its link_type cannot be checked");
    }
    const auto desired = desired_ports(hca, *device);
    if (desired.empty()) {
      continue;
    }
    DeviceLinkTypes d;
    d.device = device->name;
    if (device->pci) {
      d.pci = device->pci->address;
    } else if (hca.pci) {
      d.pci = *hca.pci;
    } else {
      throw EnvironmentError(hca.path + ": " + device->name +
                             " has no PCI address in sysfs (no 'device' link), and mstconfig "
                             "needs one; give the HCA's pci: in the profile");
    }
    d.card = card_address(host, d.pci);
    for (const auto& [port, type] : desired) {
      PortLinkType p;
      p.port = port;
      p.physical = physical_port(*device, d.pci, port, hca.path);
      p.desired = type;
      for (const auto& ip : device->ports) {
        if (ip.port == port) {
          p.link_layer = ip.link_layer;
        }
      }
      const std::string who = hca.path + ": " + d.device + " port " + std::to_string(port);
      const auto [claim, fresh] =
          claims.emplace(std::make_pair(d.card, p.physical), std::make_pair(who, type));
      if (!fresh && claim->second.second != type) {
        throw InputError(who + " (" + profile::to_string(type) + ") and " + claim->second.first +
                         " (" + profile::to_string(claim->second.second) +
                         ") are the same physical port, LINK_TYPE_P" + std::to_string(p.physical) +
                         " of the card at " + d.card +
                         ", with different link types; mstconfig would set only the last");
      }
      d.ports.push_back(p);
    }
    state.devices.push_back(std::move(d));
  }
  if (tool != nullptr) {
    state.queried = true;
    for (auto& card : cards(state.devices)) {
      for (const auto& [physical, type] : tool->query(card.address, card.physical_ports())) {
        for (auto* d : card.devices) {
          for (auto& p : d->ports) {
            if (p.mst_port() == physical) {
              p.next_boot = type;
            }
          }
        }
      }
    }
  }
  warn_ipoib_on_ethernet(node, host, state);
  return state;
}

Report apply_state(const State& state, Tool& tool)
{
  Report report;
  report.state = state;
  for (auto& card : cards(report.state.devices)) {
    // One set per card naming each of its LINK_TYPE_Pn that differs: the card is one device
    // to mstconfig, whichever function's HCA the profile declared the port on.
    std::map<int, profile::LinkType> wanted;
    for (const auto* d : card.devices) {
      for (const auto& p : d->ports) {
        if (p.differs()) {
          wanted[p.mst_port()] = p.desired;
        }
      }
    }
    if (wanted.empty()) {
      continue;
    }
    // A termination signal held by set_step, or apply's own stop (StopRequest): the card
    // being written was finished and confirmed; the next is left as it is, so that the run
    // ends soon and the marker is right.
    if (const int signal = TerminationGuard::pending(); signal != 0) {
      report.failure = card.label() + ": not set: interrupted (" + util::signal_name(signal) + ")";
      return report;
    }
    if (StopRequest::asked()) {
      report.failure = card.label() + ": not set: interrupted";
      return report;
    }
    const std::vector<std::pair<int, profile::LinkType>> values(wanted.begin(), wanted.end());
    // A set that fails may still have written (killed at its timeout after the write, or
    // output not understood): the second query runs either way and says what the firmware now
    // holds, so the report, the reboot marker and the exit status describe the card.
    std::optional<std::string> set_error;
    try {
      tool.set(card.address, values);
    } catch (const Error& e) {
      set_error = e.what();
    }
    std::vector<std::pair<int, profile::LinkType>> confirmed;
    try {
      confirmed = tool.query(card.address, card.physical_ports());
    } catch (const Error& e) {
      report.failure = card.label() + ": " +
                       (set_error ? *set_error + "; querying the card again failed too: "
                                  : std::string("mstconfig accepted the change but querying it "
                                                "again failed: ")) +
                       e.what();
      if (!set_error) {
        // Accepted, not confirmed: the firmware most likely holds it. The marker must not
        // miss a reboot that is owed (it used to list nothing, and removed an earlier one).
        for (auto* d : card.devices) {
          for (auto& p : d->ports) {
            if (wanted.count(p.mst_port()) != 0) {
              p.next_boot = p.desired;
            }
          }
        }
        *report.failure += "; the reboot marker counts the change as made";
      }
      return report;
    }
    const size_t done_before = report.done.size();
    // Every port of the card is read from the second query before a mismatch is reported: a
    // set that wrote some ports and not others still has its written ones recorded and marked.
    std::optional<std::string> mismatch;
    for (auto* d : card.devices) {
      for (auto& p : d->ports) {
        const auto before = p.next_boot;
        for (const auto& [physical, type] : confirmed) {
          if (physical == p.mst_port()) {
            p.next_boot = type;
          }
        }
        if (wanted.count(p.mst_port()) == 0) {
          continue;
        }
        if (p.next_boot != p.desired) {
          if (!set_error && !mismatch) {  // else the set's own error says why
            mismatch =
                d->device + " (" + d->pci + ") port " + std::to_string(p.port) +
                (p.mst_port() != p.port ? " (LINK_TYPE_P" + std::to_string(p.mst_port()) + ")"
                                        : std::string()) +
                ": mstconfig accepted " + mst_name(p.desired) + " but the next boot still shows " +
                (p.next_boot ? mst_name(*p.next_boot) : "nothing");
          }
          continue;
        }
        report.done.push_back(Change{d->device, d->pci, p.port, p.mst_port(), before, p.desired});
        // The warning that the next boot is ETH no longer holds.
        auto& warnings = report.state.warnings;
        const std::string stale = next_boot_eth(d->device, p.port);
        warnings.erase(std::remove_if(warnings.begin(), warnings.end(),
                                      [&](const std::string& w) { return ends_with(w, stale); }),
                       warnings.end());
      }
    }
    if (set_error) {
      report.failure = card.label() + ": " + *set_error +
                       (report.done.size() > done_before
                            ? "; a second query shows the change was made all the same"
                            : "");
      return report;
    }
    if (mismatch) {
      report.failure = mismatch;
      return report;
    }
  }
  return report;
}

}  // namespace ibsetup::firmware
