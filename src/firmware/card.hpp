#pragma once
// The PCI side of the firmware step: mstconfig works on a card, and a card may carry several
// HCAs (one per PCI function), so HCAs are grouped by card and their ports mapped to the
// card's physical ports.

#include <ibsetup/firmware.hpp>

#include <string>
#include <utility>
#include <vector>

namespace ibsetup::firmware::detail {

// "0000:3b:00.1" -> the card ("0000:3b:00") and the function (1); an address without a
// function is a card of its own.
std::pair<std::string, int> split_function(const std::string& pci);

// The address mstconfig is given for the card of pci: its lowest PCI function on the host,
// so every HCA of one card is queried and set through the same address.
std::string card_address(const inventory::Host& host, const std::string& pci);

// The HCAs of one card, in the profile's order, and the physical ports they cover.
struct Card {
  std::string address;
  std::vector<DeviceLinkTypes*> devices;

  std::vector<int> physical_ports() const;

  // A lone HCA on the address mstconfig gets is named as elsewhere in the report; otherwise the
  // message must say which card mstconfig was run on and which HCAs it covers.
  std::string label() const;
};

std::vector<Card> cards(std::vector<DeviceLinkTypes>& devices);

}  // namespace ibsetup::firmware::detail
