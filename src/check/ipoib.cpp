// IPoIB checks: each declared interface exists, is up with carrier, sits on the declared HCA
// port, and has the declared mode, MTU and addresses. Mode, MTU and addresses come from the
// planner: an action apply would take is drift.
#include "check/local_ports.hpp"

#include <ibsetup/plan.hpp>

#include <algorithm>

namespace ibsetup::check::detail {

namespace {

const inventory::Netdev* find_netdev(const inventory::Host& host, const std::string& name)
{
  for (const auto& n : host.netdevs) {
    if (n.name == name) {
      return &n;
    }
  }
  return nullptr;
}

std::string join(const std::vector<std::string>& items)
{
  std::string out;
  for (const auto& i : items) {
    out += (out.empty() ? "" : " ") + i;
  }
  return out.empty() ? "none" : out;
}

std::string join(const std::vector<IpPrefix>& items)
{
  std::vector<std::string> text;
  text.reserve(items.size());
  for (const auto& i : items) {
    text.push_back(i.str());
  }
  return join(text);
}

// The MTU the planner aims at when the profile names none, as plan_mtu works it out: the
// port's IB MTU less 4 in datagram mode, the largest in connected mode; nullopt when that is
// not known (no verbs, a captured tree, a saved inventory without active_mtu).
std::optional<int> expected_mtu(const profile::ResolvedInterface& i, const inventory::Netdev& n,
                                const inventory::Host& host)
{
  if (i.mtu) {
    return i.mtu;
  }
  const std::optional<std::string> mode =
      i.mode ? std::optional<std::string>(profile::to_string(*i.mode))
             : (n.mode ? std::optional<std::string>(n.mode->name()) : std::nullopt);
  if (mode == std::string(profile::to_string(profile::Mode::connected))) {
    return profile::k_connected_mtu_max;
  }
  if (mode != std::string(profile::to_string(profile::Mode::datagram)) || !n.device || !n.port) {
    return std::nullopt;
  }
  for (const auto& d : host.devices) {
    for (const auto& p : d.ports) {
      if (d.name == *n.device && p.port == *n.port && p.active_mtu && *p.active_mtu > 4) {
        return *p.active_mtu - 4;
      }
    }
  }
  return std::nullopt;
}

void check_drift(const profile::ResolvedInterface& i, const inventory::Netdev& n,
                 const inventory::Host& host, const plan::Plan& plan, const LocalOptions& options,
                 std::vector<Result>& out)
{
  const std::string& s = i.name;
  const auto mine = [&](plan::ActionKind kind) {
    std::vector<const plan::Action*> found;
    for (const auto& a : plan.actions) {
      if (a.ifname == s && a.kind == kind) {
        found.push_back(&a);
      }
    }
    return found;
  };
  // The plan's actions say what apply would change; when the plan has an error for the
  // interface it has none, so the values are also compared with the profile's here.
  if (i.mode) {
    const std::string want = profile::to_string(*i.mode);
    const bool planned = !mine(plan::ActionKind::set_mode).empty();
    if (!n.mode && !planned) {
      skip(out, "ipoib.mode", s, "mode not known (no readable mode file), expected " + want);
    } else {
      const std::string seen = n.mode ? n.mode->name() : "unknown";
      const bool ok = !planned && seen == want;
      add(out, "ipoib.mode", s, ok, want, seen,
          s + ": mode " + seen + (ok ? "" : ", expected " + want));
    }
  }
  auto mtu = mine(plan::ActionKind::set_mtu);
  // A mode change makes the planner re-set the MTU even when it stays the same.
  mtu.erase(std::remove_if(mtu.begin(), mtu.end(),
                           [&](const plan::Action* a) { return n.mtu && *n.mtu == a->mtu; }),
            mtu.end());
  const std::string seen_mtu = n.mtu ? std::to_string(*n.mtu) : std::string("unknown");
  if (!mtu.empty()) {
    add(out, "ipoib.mtu", s, false, std::to_string(mtu[0]->mtu), seen_mtu,
        s + ": MTU " + seen_mtu + ", expected " + std::to_string(mtu[0]->mtu));
  } else if (n.mtu) {
    if (const auto want = expected_mtu(i, n, host); !want) {
      skip(out, "ipoib.mtu", s,
           "MTU " + seen_mtu + "; the largest allowed is not known (the port's IB MTU is not)");
    } else {
      const bool ok = *want == *n.mtu;
      add(out, "ipoib.mtu", s, ok, std::to_string(*want), seen_mtu,
          s + ": MTU " + seen_mtu + (ok ? "" : ", expected " + std::to_string(*want)));
    }
  }
  if (!i.ipv4 && !i.ipv6) {
    return;
  }
  if (!options.addresses_known) {
    skip(out, "ipoib.addresses", s,
         "addresses are judged only when checking this machine (not a captured tree or a saved "
         "inventory)");
    return;
  }
  std::vector<std::string> want;
  for (const auto* a : {&i.ipv4, &i.ipv6}) {
    if (*a) {
      want.push_back((*a)->str());
    }
  }
  std::vector<std::string> missing;
  std::vector<std::string> extra;
  for (const auto* a : mine(plan::ActionKind::add_address)) {
    missing.push_back(a->address->str());
  }
  for (const auto* a : mine(plan::ActionKind::remove_address)) {
    // A wanted secondary of a primary that goes is removed and added back by the plan: it is
    // there, neither missing nor unexpected.
    const auto again = std::find(missing.begin(), missing.end(), a->address->str());
    if (again != missing.end()) {
      missing.erase(again);
    } else {
      extra.push_back(a->address->str());
    }
  }
  const bool ok = missing.empty() && extra.empty();
  std::string message = s + ": addresses " + join(n.addresses);
  if (!missing.empty()) {
    message += ", missing " + join(missing);
  }
  if (!extra.empty()) {
    message += ", unexpected " + join(extra);
  }
  add(out, "ipoib.addresses", s, ok, join(want), join(n.addresses), message);
}

}  // namespace

void check_ipoib(const profile::ResolvedNode& node, const inventory::Host& host,
                 const LocalOptions& options, std::vector<Result>& out)
{
  const plan::Plan plan = plan::make_plan(node, host, {false});
  for (const auto& e : plan.errors) {
    std::string subject = node.host;
    for (const auto& i : node.interfaces) {
      if (e.interface == i.name) {
        subject = i.name;
      }
    }
    if (subject != node.host && find_netdev(host, subject) == nullptr) {
      continue;  // ipoib.exists reports the missing interface
    }
    out.push_back({"ipoib.plan",
                   subject,
                   Status::fail,
                   "a plan apply can carry out",
                   e.str(),
                   e.str(),
                   {},
                   {}});
  }
  for (const auto& i : node.interfaces) {
    const std::string& s = i.name;
    const inventory::Netdev* n = find_netdev(host, s);
    add(out, "ipoib.exists", s, n != nullptr, "present", n ? "present" : "absent",
        n ? s + ": present" : s + ": no such interface");
    if (n == nullptr) {
      continue;
    }
    const bool admin = n->admin_up.value_or(false);
    const bool carrier = n->carrier.value_or(false);
    const std::string oper = n->operstate.value_or("unknown");
    const std::string seen = std::string(admin ? "up" : "down") + ", operstate " + oper +
                             ", carrier " + (carrier ? "on" : "off");
    const bool up = admin && carrier;
    add(out, "ipoib.up", s, up, "up with carrier", seen,
        up ? s + ": up, carrier on" : s + ": not up with carrier (" + seen + ")");
    if (!i.parent && i.device && i.port) {
      const std::string want = *i.device + "/" + std::to_string(*i.port);
      const std::string have = n->device && n->port ? *n->device + "/" + std::to_string(*n->port)
                                                    : std::string("no HCA port");
      add(out, "ipoib.port", s, want == have, want, have,
          s + ": on " + have + (want == have ? "" : ", expected " + want));
    }
    check_drift(i, *n, host, plan, options, out);
  }
}

}  // namespace ibsetup::check::detail
