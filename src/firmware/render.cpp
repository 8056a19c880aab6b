#include <ibsetup/firmware.hpp>

#include "common/strings.hpp"
#include "common/json.hpp"
#include "firmware/reboot.hpp"

#include <sstream>

namespace ibsetup::firmware {

namespace {

size_t change_count(const State& state)
{
  size_t n = 0;
  for (const auto& d : state.devices) {
    for (const auto& p : d.ports) {
      n += p.differs() ? 1 : 0;
    }
  }
  return n;
}

// What a report's changes make owed as well (reboot.hpp); none without a report.
const std::vector<Change>& done_of(const Report* report)
{
  static const std::vector<Change> none;
  return report != nullptr ? report->done : none;
}

bool any_reboot(const State& state, const Report* report)
{
  for (const auto& d : state.devices) {
    for (const auto& p : d.ports) {
      if (detail::reboot_owed(d, p, done_of(report))) {
        return true;
      }
    }
  }
  return false;
}

std::string port_line(const DeviceLinkTypes& d, const PortLinkType& p, bool queried, bool owed)
{
  std::ostringstream s;
  const std::string running = p.link_layer ? p.link_layer->name() : "unknown";
  const std::string where =
      d.device + " port " + std::to_string(p.port) + " (" + d.pci +
      (p.mst_port() != p.port ? ", physical port " + std::to_string(p.mst_port()) : "") + ")";
  if (!queried) {
    s << "  ? " << where << ": profile " << mst_name(p.desired) << ", running " << running
      << ", next boot not queried";
  } else if (p.differs()) {
    s << "  ~ " << where << ": next boot " << (p.next_boot ? mst_name(*p.next_boot) : "?") << " -> "
      << mst_name(p.desired) << ", running " << running << "  (mstconfig set LINK_TYPE_P"
      << p.mst_port() << "=" << mst_value(p.desired) << ")";
  } else if (owed) {
    s << "  ! " << where << ": next boot " << mst_name(p.desired) << ", running " << running
      << ": pending, reboot required";
  } else {
    s << "    " << where << ": " << mst_name(p.desired) << ", running " << running;
  }
  // Device names and PCI addresses come from sysfs, link layers from the kernel: escaped, the
  // line stays one line.
  return util::escape_text(s.str());
}

}  // namespace

std::string to_text(const State& state, const Report* report)
{
  std::ostringstream s;
  if (!state.declared) {
    s << "firmware link types: the profile declares no link_type for "
      << util::escape_text(state.host) << "; nothing to do\n";
    return s.str();
  }
  const State& shown = report != nullptr ? report->state : state;
  if (report == nullptr) {
    s << "firmware link types on " << util::escape_text(state.host) << ": ";
    if (state.queried) {
      const size_t n = change_count(state);
      s << n << (n == 1 ? " change" : " changes");
      if (any_reboot(state, nullptr)) {
        s << ", reboot pending";
      }
    } else {
      s << "next boot not queried";
    }
    s << '\n';
  } else {
    s << "firmware link types on " << util::escape_text(state.host) << ": " << report->done.size()
      << (report->done.size() == 1 ? " change" : " changes") << " made\n";
  }
  for (const auto& d : shown.devices) {
    for (const auto& p : d.ports) {
      s << port_line(d, p, shown.queried, detail::reboot_owed(d, p, done_of(report))) << '\n';
    }
  }
  if (report != nullptr) {
    for (const auto& c : report->done) {
      s << "  set " << util::escape_text(c.device) << " port " << c.port << " ("
        << util::escape_text(c.pci) << ") LINK_TYPE_P" << (c.physical > 0 ? c.physical : c.port)
        << " " << (c.from ? mst_name(*c.from) : "?") << " -> " << mst_name(c.to)
        << " (confirmed by a second query)\n";
    }
    if (report->failure) {
      s << "  failed: " << util::escape_text(*report->failure) << '\n';
    }
    if (report->reboot_required()) {
      s << "reboot required: the new link types take effect at the next boot\n";
    }
  }
  for (const auto& w : shown.warnings) {
    s << "warning: " << util::escape_text(w) << '\n';
  }
  return s.str();
}

std::string to_json(const State& state, const Report* report)
{
  const State& shown = report != nullptr ? report->state : state;
  JsonWriter w;
  w.begin_object();
  w.key("host").value(state.host);
  w.key("declared").value(state.declared);
  w.key("queried").value(shown.queried);
  w.key("devices").begin_array();
  for (const auto& d : shown.devices) {
    w.begin_object();
    w.key("device").value(d.device);
    w.key("pci").value(d.pci);
    w.key("ports").begin_array();
    for (const auto& p : d.ports) {
      w.begin_object();
      w.key("port").value(p.port);
      if (p.mst_port() != p.port) {
        w.key("physical_port").value(p.mst_port());
      }
      w.key("desired").value(profile::to_string(p.desired));
      if (p.next_boot) {
        w.key("next_boot").value(profile::to_string(*p.next_boot));
      } else {
        w.key("next_boot").null();
      }
      // The documented values only: text the kernel gave that ibsetup does not know is null.
      w.key("running").value(p.link_layer && p.link_layer->value != inventory::LinkLayer::other
                                 ? std::optional<std::string>(p.link_layer->name())
                                 : std::nullopt);
      w.key("change").value(shown.queried && p.differs());
      w.key("reboot_pending").value(detail::reboot_owed(d, p, done_of(report)));
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.key("changes").value(static_cast<uint64_t>(shown.queried ? change_count(shown) : 0));
  w.key("reboot_required").value(any_reboot(shown, report));
  w.key("applied").value(report != nullptr);
  w.key("done").begin_array();
  if (report != nullptr) {
    for (const auto& c : report->done) {
      w.begin_object();
      w.key("device").value(c.device);
      w.key("pci").value(c.pci);
      w.key("port").value(c.port);
      if (c.physical > 0 && c.physical != c.port) {
        w.key("physical_port").value(c.physical);
      }
      if (c.from) {
        w.key("from").value(profile::to_string(*c.from));
      } else {
        w.key("from").null();
      }
      w.key("to").value(profile::to_string(c.to));
      w.end_object();
    }
  }
  w.end_array();
  w.key("failure").value(report != nullptr ? report->failure : std::nullopt);
  w.key("warnings").begin_array();
  for (const auto& x : shown.warnings) {
    w.value(x);
  }
  w.end_array();
  w.end_object();
  return w.take_line();
}

}  // namespace ibsetup::firmware
