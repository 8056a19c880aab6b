#include "common/strings.hpp"
#include "plan/addresses.hpp"
#include "profile/validate.hpp"

#include <ibsetup/plan.hpp>

#include <algorithm>
#include <iterator>

namespace ibsetup::plan {

namespace {

using inventory::Host;
using inventory::IpoibMode;
using inventory::LinkLayer;
using inventory::Netdev;
using inventory::Port;
using profile::Mode;
using profile::ResolvedInterface;

const Netdev* find_netdev(const Host& host, const std::string& name)
{
  for (const auto& n : host.netdevs) {
    if (n.name == name) {
      return &n;
    }
  }
  return nullptr;
}

struct Binding {
  const inventory::Device* device = nullptr;
  const Port* port = nullptr;
};

Binding find_port(const Host& host, const std::optional<std::string>& device,
                  const std::optional<int>& port)
{
  Binding b;
  if (!device || !port) {
    return b;
  }
  // Both or neither: a netdev that names a port its HCA does not have (a hand-edited or
  // foreign inventory) is on no port, and nothing may read a port that is not there.
  for (const auto& d : host.devices) {
    if (d.name != *device) {
      continue;
    }
    for (const auto& p : d.ports) {
      if (p.port == *port) {
        b.device = &d;
        b.port = &p;
      }
    }
  }
  return b;
}

IpoibMode ipoib_mode(Mode mode)
{
  return mode == Mode::connected ? IpoibMode::connected : IpoibMode::datagram;
}

bool is_mlx5(const inventory::Device& d)
{
  return (d.driver && *d.driver == "mlx5_core") || d.name.compare(0, 5, "mlx5_") == 0;
}

std::string where(const Binding& b)
{
  return b.device->name + " port " + std::to_string(b.port->port);
}

class Planner {
public:
  Planner(const profile::ResolvedNode& desired, const Host& observed, const Options& options)
      : m_desired(desired), m_observed(observed), m_options(options)
  {
    m_plan.host = desired.host;
  }

  Plan run()
  {
    for (const auto& d : m_desired.interfaces) {
      plan_interface(d);
    }
    plan_prune();
    order();
    return std::move(m_plan);
  }

private:
  void error(const std::string& ifname, const std::string& message)
  {
    m_plan.errors.push_back({ifname, message});
  }

  void warning(const std::string& ifname, const std::string& message)
  {
    m_plan.warnings.push_back(ifname + ": " + message);
  }

  void add(Action a) { m_plan.actions.push_back(std::move(a)); }

  // Where the interface really is (its own binding, or its parent's for a child).
  Binding observed_binding(const Netdev* n, const Netdev* parent)
  {
    const Netdev* src = n != nullptr && n->device ? n : parent;
    return src != nullptr ? find_port(m_observed, src->device, src->port) : Binding{};
  }

  bool check_binding(const ResolvedInterface& d, const Netdev* present, const Binding& actual)
  {
    if (!d.device) {
      return true;
    }
    const std::string declared =
        *d.device + (d.port ? " port " + std::to_string(*d.port) : std::string());
    const bool device_exists =
        std::any_of(m_observed.devices.begin(), m_observed.devices.end(),
                    [&](const inventory::Device& x) { return x.name == *d.device; });
    if (!device_exists) {
      error(d.name, "declared on " + declared + ", but this host has no HCA " + *d.device);
      return false;
    }
    if (present == nullptr && actual.device == nullptr) {
      return true;  // a child to be created: checked through its parent
    }
    if (actual.device == nullptr) {
      error(d.name, "declared on " + declared + ", but it is on no HCA port");
      return false;
    }
    if (actual.device->name != *d.device || (d.port && actual.port->port != *d.port)) {
      error(d.name, "declared on " + declared + ", but the host has it on " + where(actual));
      return false;
    }
    return true;
  }

  void plan_interface(const ResolvedInterface& d)
  {
    const Netdev* n = find_netdev(m_observed, d.name);
    const Netdev* parent = d.parent ? find_netdev(m_observed, *d.parent) : nullptr;
    if (d.parent && parent == nullptr) {
      error(d.name, "parent " + *d.parent + " does not exist on this host");
      return;
    }
    if (!d.parent && n == nullptr) {
      error(d.name,
            "no such interface on this host (base IPoIB interfaces come from the HCA "
            "driver: is ib_ipoib loaded?)");
      return;
    }
    const Binding actual = observed_binding(n, parent);
    if (!check_binding(d, n, actual)) {
      return;
    }
    if (actual.port != nullptr && actual.port->link_layer == LinkLayer::ethernet) {
      error(d.name, where(actual) +
                        " is an Ethernet (RoCE) port; IPoIB needs an InfiniBand port (set "
                        "link_type: ib)");
      return;
    }
    const bool ipoib = n != nullptr ? n->ipoib : parent->ipoib;
    if (!ipoib) {
      if (n == nullptr) {
        error(d.name,
              "cannot create pkey child: parent " + *d.parent + " is not an IPoIB interface");
        return;
      }
      warning(d.name, "not an IPoIB interface; only its MTU, addresses and state are managed");
      if (d.mode) {
        error(d.name, std::string("mode ") + profile::to_string(*d.mode) +
                          " asked, but setting a mode needs an IPoIB interface");
      }
    }
    if (d.mode && *d.mode == Mode::connected && actual.device != nullptr &&
        is_mlx5(*actual.device)) {
      error(d.name, "connected mode is not supported on " + actual.device->name +
                        " (mlx5: ConnectX-4 and newer use enhanced IPoIB, datagram only)");
      return;
    }
    if (d.pkey && n != nullptr && n->pkey && *n->pkey != *d.pkey) {
      error(d.name, "exists with pkey " + util::hex16(*n->pkey) + ", the profile says " +
                        util::hex16(*d.pkey) + "; delete it or rename the interface");
      return;
    }
    if (d.pkey && actual.port != nullptr) {
      const auto& table = actual.port->pkeys;
      const bool listed = std::any_of(table.begin(), table.end(), [&](uint16_t k) {
        return (k & 0x7fffU) == (*d.pkey & 0x7fffU);
      });
      if (!listed) {
        warning(d.name, "P_Key " + util::hex16(*d.pkey) + " is not in " + where(actual) +
                            "'s P_Key table; the subnet manager may not have this partition");
      }
    }
    if (n == nullptr) {
      Action a;
      a.kind = ActionKind::create_child;
      a.ifname = d.name;
      a.parent = *d.parent;
      a.pkey = *d.pkey;
      a.mode = d.mode;
      add(a);
    } else if (d.mode && ipoib && n->mode != ipoib_mode(*d.mode)) {
      Action a;
      a.kind = ActionKind::set_mode;
      a.ifname = d.name;
      a.mode = d.mode;
      a.from_mode = n->mode;
      a.from_mtu = n->mtu;  // the kernel resets the MTU with the mode: rollback restores both
      add(a);
    }
    plan_mtu(d, n, ipoib, actual);
    for (auto& a : detail::address_actions(d, n)) {
      add(std::move(a));
    }
    if (n == nullptr || !n->admin_up || !*n->admin_up) {
      Action a;
      a.kind = ActionKind::set_up;
      a.ifname = d.name;
      a.restore_addresses = detail::ipv6_before_up(m_plan.actions, d.name, n);
      add(a);
    }
  }

  void plan_mtu(const ResolvedInterface& d, const Netdev* n, bool ipoib, const Binding& actual)
  {
    std::optional<IpoibMode> mode;
    if (d.mode) {
      mode = ipoib_mode(*d.mode);
    } else if (n != nullptr && n->mode) {
      mode = n->mode->value;
    }
    // 0 when unknown (no verbs, or a captured tree).
    const int ib_mtu =
        actual.port != nullptr && actual.port->active_mtu ? *actual.port->active_mtu : 0;
    const bool datagram = ipoib && mode == IpoibMode::datagram;
    std::optional<int> target = d.mtu;
    if (datagram && ib_mtu > 0 && d.mtu && *d.mtu > ib_mtu - 4) {
      error(d.name, "mtu " + std::to_string(*d.mtu) + " is above " + std::to_string(ib_mtu - 4) +
                        ", the datagram-mode maximum for " + where(actual) + " (IB MTU " +
                        std::to_string(ib_mtu) + ")");
      return;
    }
    if (!target && ipoib && mode) {
      if (datagram && ib_mtu > 0) {
        target = ib_mtu - 4;
      } else if (*mode == IpoibMode::connected) {
        target = profile::k_connected_mtu_max;
      }
    }
    // Changing the mode makes the kernel pick a new MTU, so the MTU is set again after it.
    const bool mode_changes = std::any_of(
        m_plan.actions.begin(), m_plan.actions.end(),
        [&](const Action& a) { return a.kind == ActionKind::set_mode && a.ifname == d.name; });
    if (!target || (!mode_changes && n != nullptr && n->mtu && *n->mtu == *target)) {
      return;
    }
    if (*target < profile::detail::k_ipv6_min_mtu) {
      // Below IPv6's minimum the kernel drops IPv6 from the interface, addresses the profile
      // does not manage included, and a rollback's MTU does not bring them back; nor can the
      // profile's own IPv6 address be added (validate sees only an explicit MTU, not one the
      // port's IB MTU gives).
      std::string lost;
      for (const auto& addr : detail::global_ipv6(n)) {
        lost += (lost.empty() ? "" : ", ") + addr.str();
      }
      const std::string below = "mtu " + std::to_string(*target) + " is below " +
                                std::to_string(profile::detail::k_ipv6_min_mtu) +
                                ", the IPv6 minimum: ";
      if (d.ipv6) {
        error(d.name, below + "the kernel would refuse " + d.ipv6->str());
        return;
      }
      if (!lost.empty()) {
        error(d.name, below + "the kernel would remove " + lost);
        return;
      }
      if (n == nullptr || !n->mtu || *n->mtu >= profile::detail::k_ipv6_min_mtu) {
        // Nothing the profile manages is lost, but the kernel's IPv6 state of the interface
        // is: when the MTU rises again (a rollback, a later apply) it starts afresh from the
        // defaults, disable_ipv6 and accept_ra included.
        warning(d.name, below + "the kernel takes IPv6 off " + d.name +
                            " (its link-local address and its IPv6 settings, such as "
                            "disable_ipv6 and accept_ra, which come back as the defaults when "
                            "the MTU rises again, a rollback's included)");
      }
    }
    Action a;
    a.kind = ActionKind::set_mtu;
    a.ifname = d.name;
    a.mtu = *target;
    a.from_mtu = n != nullptr ? n->mtu : std::nullopt;
    add(a);
  }

  // Undeclared pkey children of declared interfaces.
  void plan_prune()
  {
    for (const auto& n : m_observed.netdevs) {
      if (!n.ipoib || !n.parent) {
        continue;
      }
      const auto& ifs = m_desired.interfaces;
      const bool parent_declared =
          std::any_of(ifs.begin(), ifs.end(), [&](const auto& d) { return d.name == *n.parent; });
      const bool declared =
          std::any_of(ifs.begin(), ifs.end(), [&](const auto& d) { return d.name == n.name; });
      if (!parent_declared || declared) {
        continue;
      }
      if (!m_options.prune) {
        warning(n.name, "pkey child of " + *n.parent +
                            " is not in the profile; left alone (prune: true or --prune removes "
                            "it)");
        continue;
      }
      if (!n.pkey) {
        error(n.name,
              "cannot prune: its pkey cannot be read, so a rollback could not recreate "
              "it");
        continue;
      }
      Action a;
      a.kind = ActionKind::delete_child;
      a.ifname = n.name;
      a.parent = *n.parent;
      a.pkey = *n.pkey;
      a.from_mode = n.mode;
      a.from_mtu = n.mtu;
      a.was_up = n.admin_up.value_or(false);
      for (const auto& p : n.addresses) {
        if (!detail::is_link_local(p)) {
          a.restore_addresses.push_back(p);
        }
      }
      add(a);
    }
  }

  // Deletions, creations, modes, MTUs (raised parents first, lowered children first),
  // address removals, additions, links up.
  void order()
  {
    auto is_child = [&](const std::string& name) {
      for (const auto& d : m_desired.interfaces) {
        if (d.name == name) {
          return d.parent.has_value();
        }
      }
      return false;
    };
    auto rank = [&](const Action& a) {
      int r = static_cast<int>(a.kind) * 4;
      if (a.kind == ActionKind::set_mtu) {
        const bool lowering = a.from_mtu && a.mtu < *a.from_mtu;
        r += is_child(a.ifname) == lowering ? 0 : 1;
      }
      return r;
    };
    std::stable_sort(m_plan.actions.begin(), m_plan.actions.end(),
                     [&](const Action& a, const Action& b) { return rank(a) < rank(b); });
  }

  const profile::ResolvedNode& m_desired;
  const Host& m_observed;
  const Options& m_options;
  Plan m_plan;
};

}  // namespace

Plan make_plan(const profile::ResolvedNode& desired, const inventory::Host& observed,
               const Options& options)
{
  return Planner(desired, observed, options).run();
}

std::vector<std::string> netdev_names(const profile::ResolvedNode& desired)
{
  std::vector<std::string> out;
  for (const auto& d : desired.interfaces) {
    out.push_back(d.name);
    if (d.parent) {
      out.push_back(*d.parent);
    }
  }
  return out;
}

}  // namespace ibsetup::plan
