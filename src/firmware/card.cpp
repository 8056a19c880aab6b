#include "firmware/card.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>

namespace ibsetup::firmware {

namespace detail {

std::pair<std::string, int> split_function(const std::string& pci)
{
  const auto dot = pci.rfind('.');
  if (dot == std::string::npos || dot + 1 >= pci.size()) {
    return {pci, 0};
  }
  // A hex function number, no sign or spaces (std::stoi took "-1" and " 1").
  unsigned function = 0;
  const char* first = pci.data() + dot + 1;
  const char* last = pci.data() + pci.size();
  const auto r = std::from_chars(first, last, function, 16);
  if (r.ec == std::errc() && r.ptr == last && function <= 0xff) {
    return {pci.substr(0, dot), static_cast<int>(function)};
  }
  return {pci, 0};
}

std::string card_address(const inventory::Host& host, const std::string& pci)
{
  const auto [card, function] = split_function(pci);
  std::string best = pci;
  int lowest = function;
  for (const auto& d : host.devices) {
    if (!d.pci) {
      continue;
    }
    const auto [other, f] = split_function(d.pci->address);
    if (other == card && f < lowest) {
      best = d.pci->address;
      lowest = f;
    }
  }
  return best;
}

std::vector<Card> cards(std::vector<DeviceLinkTypes>& devices)
{
  std::vector<Card> out;
  for (auto& d : devices) {
    // A State built by hand (tests, callers) may leave card empty: then each HCA is its own.
    const std::string& address = d.card.empty() ? d.pci : d.card;
    auto it =
        std::find_if(out.begin(), out.end(), [&](const Card& c) { return c.address == address; });
    if (it == out.end()) {
      out.push_back(Card{address, {}});
      it = std::prev(out.end());
    }
    it->devices.push_back(&d);
  }
  return out;
}

std::vector<int> Card::physical_ports() const
{
  std::vector<int> out;
  for (const auto* d : devices) {
    for (const auto& p : d->ports) {
      out.push_back(p.mst_port());
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string Card::label() const
{
  if (devices.size() == 1 && devices.front()->pci == address) {
    return devices.front()->device + " (" + address + ")";
  }
  std::string names;
  for (const auto* d : devices) {
    names += (names.empty() ? "" : ", ") + d->device + " " + d->pci;
  }
  return "card " + address + " (" + names + ")";
}

}  // namespace detail

int physical_port(const inventory::Device& device, const std::string& pci, int port,
                  const std::string& path)
{
  const std::string who = path + ": " + device.name + " (" + pci + ")";
  if (device.ports.size() > 1) {
    // Asked of mstconfig, a port the card lacks reads as "no LINK_TYPE parameters": a fixed
    // link type, which it is not.
    std::string ports;
    bool found = false;
    for (const auto& p : device.ports) {
      ports += (ports.empty() ? "" : ", ") + std::to_string(p.port);
      found = found || p.port == port;
    }
    if (!found) {
      throw InputError(who + " has ports " + ports + ", so port " + std::to_string(port) +
                       " is not on it");
    }
    return port;
  }
  const int function = detail::split_function(pci).second;
  if (function > 1) {
    throw InputError(who + " has a single port and is PCI function " + std::to_string(function) +
                     ": ibsetup cannot tell which physical port of the card it is (only "
                     "functions 0 and 1 of a card whose ports are separate functions map to "
                     "LINK_TYPE_P1 and LINK_TYPE_P2; a virtual function has no link type of its "
                     "own); declare link_type on the HCA of the physical function");
  }
  if (port != 1) {
    throw InputError(who + " has a single port (port 1, the card's LINK_TYPE_P" +
                     std::to_string(function + 1) + "), so port " + std::to_string(port) +
                     " is not on it: each physical port of this card is its own HCA at its own "
                     "PCI function; declare the link type on that HCA's port 1");
  }
  return function + 1;
}

}  // namespace ibsetup::firmware
