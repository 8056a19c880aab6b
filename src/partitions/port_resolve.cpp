// Which inventory port a profile's base interface stands for (partitions/port_resolve.hpp).
#include "partitions/port_resolve.hpp"

#include "common/strings.hpp"
#include "partitions/layout.hpp"

#include <vector>

namespace ibsetup::partitions {

namespace {

const InventoryPort* find_port(const InventoryHost& inv, const std::string& device, int port)
{
  for (const auto& p : inv.ports) {
    if (p.device == device && p.port == port) {
      return &p;
    }
  }
  return nullptr;
}

std::string list_ports(const std::vector<const InventoryPort*>& ports)
{
  std::vector<std::string> names;
  names.reserve(ports.size());
  for (const auto* p : ports) {
    names.push_back(port_name(p->device, p->port));
  }
  return names.empty() ? std::string("none") : util::join_alternatives(names, ", ");
}

}  // namespace

const InventoryPort* resolve_port(const InventoryHost& inv, const profile::ResolvedInterface& base,
                                  std::string& why)
{
  std::vector<const InventoryPort*> candidates;
  for (const auto& p : inv.ports) {
    if (p.infiniband && (!base.device || p.device == *base.device)) {
      candidates.push_back(&p);
    }
  }
  const InventoryPort* found = nullptr;
  if (base.device && base.port) {
    found = find_port(inv, *base.device, *base.port);
    if (found == nullptr) {
      std::vector<const InventoryPort*> all;
      for (const auto& p : inv.ports) {
        if (p.infiniband) {
          all.push_back(&p);
        }
      }
      why = "the inventory has no " + port_name(*base.device, *base.port) +
            " (declared); InfiniBand ports it has: " + list_ports(all);
      return nullptr;
    }
  } else if (const auto b = inv.netdevs.find(base.name);
             b != inv.netdevs.end() && (!base.device || b->second.first == *base.device)) {
    found = find_port(inv, b->second.first, b->second.second);
    if (found == nullptr) {
      why = base.name + " is bound to " + port_name(b->second.first, b->second.second) +
            ", which the inventory does not list";
      return nullptr;
    }
  } else if (candidates.size() == 1) {
    found = candidates.front();
  } else {
    why = candidates.empty() ? std::string("the inventory has no InfiniBand port") +
                                   (base.device ? " on " + *base.device : std::string())
                             : "candidates " + list_ports(candidates) +
                                   " (declare device and port on " + base.name + ")";
    return nullptr;
  }
  if (!found->infiniband) {
    why = port_name(found->device, found->port) + " is an Ethernet port";
    return nullptr;
  }
  if (found->guid.empty()) {
    why = "the inventory lists no GUID for " + port_name(found->device, found->port);
    return nullptr;
  }
  return found;
}

}  // namespace ibsetup::partitions
