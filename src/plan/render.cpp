#include "common/strings.hpp"
#include "common/json.hpp"

#include <ibsetup/plan.hpp>

namespace ibsetup::plan {

const char* to_string(ActionKind kind)
{
  switch (kind) {
  case ActionKind::delete_child:
    return "delete_child";
  case ActionKind::create_child:
    return "create_child";
  case ActionKind::set_mode:
    return "set_mode";
  case ActionKind::set_mtu:
    return "set_mtu";
  case ActionKind::remove_address:
    return "remove_address";
  case ActionKind::add_address:
    return "add_address";
  case ActionKind::set_up:
  default:
    return "set_up";
  }
}

std::string Action::describe() const
{
  switch (kind) {
  case ActionKind::delete_child:
    return "- delete " + ifname + " (pkey " + util::hex16(pkey) + ", parent " + parent + ")";
  case ActionKind::create_child:
    return "+ create " + ifname + " (pkey " + util::hex16(pkey) + ", parent " + parent +
           (mode ? std::string(", mode ") + profile::to_string(*mode) : std::string()) + ")";
  case ActionKind::set_mode:
    return "~ " + ifname + " mode " + (from_mode ? from_mode->name() : "?") + " -> " +
           profile::to_string(mode.value_or(profile::Mode::datagram));
  case ActionKind::set_mtu:
    if (from_mtu && *from_mtu == mtu) {
      return "~ " + ifname + " mtu " + std::to_string(mtu) + " (again: the mode change resets it)";
    }
    return "~ " + ifname + " mtu " + (from_mtu ? std::to_string(*from_mtu) + " -> " : "") +
           std::to_string(mtu);
  case ActionKind::remove_address:
    return "- " + address->str() + " on " + ifname;
  case ActionKind::add_address:
    return "+ " + address->str() + " on " + ifname;
  case ActionKind::set_up:
  default:
    return "~ " + ifname + " up";
  }
}

std::string plan_to_text(const Plan& plan)
{
  std::string out;
  for (const auto& e : plan.errors) {
    out += "error: " + util::escape_text(e.str()) + "\n";
  }
  for (const auto& w : plan.warnings) {
    out += "warning: " + util::escape_text(w) + "\n";
  }
  if (!plan.errors.empty()) {
    // A refused plan changes nothing: its actions would only suggest otherwise (--json has them).
    const size_t e = plan.errors.size();
    return out + "plan for " + util::escape_text(plan.host) + ": " + std::to_string(e) +
           (e == 1 ? " error" : " errors") + "; nothing can be applied until it is fixed\n";
  }
  const size_t n = plan.actions.size();
  out +=
      "plan for " + util::escape_text(plan.host) + ": " +
      (n == 0 ? std::string("no changes") : std::to_string(n) + (n == 1 ? " change" : " changes")) +
      "\n";
  for (const auto& a : plan.actions) {
    // Observed names and modes come from netlink: escaped, each action stays one line.
    out += "  " + util::escape_text(a.describe()) + "\n";
  }
  return out;
}

std::string plan_to_json(const Plan& plan)
{
  JsonWriter j;
  j.begin_object();
  j.key("host").value(plan.host);
  j.key("changes").value(static_cast<uint64_t>(plan.actions.size()));
  j.key("actions").begin_array();
  for (const auto& a : plan.actions) {
    j.begin_object();
    j.key("op").value(to_string(a.kind));
    j.key("interface").value(a.ifname);
    j.key("text").value(a.describe());
    switch (a.kind) {
    case ActionKind::create_child:
    case ActionKind::delete_child:
      j.key("parent").value(a.parent);
      j.key("pkey").value(util::hex16(a.pkey));
      if (a.mode) {
        j.key("mode").value(profile::to_string(*a.mode));
      }
      break;
    case ActionKind::set_mode:
      j.key("from").value(a.from_mode ? std::optional<std::string>(a.from_mode->name())
                                      : std::nullopt);
      j.key("to").value(profile::to_string(a.mode.value_or(profile::Mode::datagram)));
      break;
    case ActionKind::set_mtu:
      j.key("from").value(a.from_mtu);
      j.key("to").value(a.mtu);
      break;
    case ActionKind::add_address:
    case ActionKind::remove_address:
      j.key("address").value(a.address->str());
      break;
    case ActionKind::set_up:
    default:
      break;
    }
    j.end_object();
  }
  j.end_array();
  j.key("errors").begin_array();
  for (const auto& e : plan.errors) {
    j.value(e.str());
  }
  j.end_array();
  j.key("warnings").begin_array();
  for (const auto& w : plan.warnings) {
    j.value(w);
  }
  j.end_array();
  j.end_object();
  return j.take_line();
}

}  // namespace ibsetup::plan
