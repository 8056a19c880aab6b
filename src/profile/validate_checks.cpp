// The `checks:` section of each group: its peers are hosts of the file, the ids it disables or
// warns on exist, and its counter limits name counters the kernel has.
#include "common/check_ids.hpp"
#include "profile/validate.hpp"

#include <algorithm>
#include <iterator>

namespace ibsetup::profile::detail {

void check_checks(const Profile& profile, Diagnostics& diags)
{
  for (const auto& g : profile.groups) {
    for (size_t i = 0; i < g.peers.size(); ++i) {
      const auto& peer = g.peers[i];
      if (profile.group_of_host.count(*peer) == 0) {
        diags.error(peer.mark, g.path + ".checks.peers[" + std::to_string(i) + "]",
                    "peer '" + *peer + "' is not a host of this file");
      }
    }
    const auto ids = [&](const char* key, const std::vector<Setting<std::string>>& names) {
      for (size_t i = 0; i < names.size(); ++i) {
        if (!util::is_check_id_or_group(*names[i])) {
          diags.error(names[i].mark, g.path + ".checks." + key + "[" + std::to_string(i) + "]",
                      "'" + *names[i] + "' is not a check id or group (such as port.rate or port)");
        }
      }
    };
    ids("disable", g.check_disable);
    ids("warn", g.check_warn);
    // The kernel's port counters (drivers/infiniband/core/sysfs.c): a misspelt name would
    // otherwise never be judged and never fail.
    static const char* const k_counters[] = {"symbol_error",
                                             "link_error_recovery",
                                             "link_downed",
                                             "port_rcv_errors",
                                             "port_rcv_remote_physical_errors",
                                             "port_rcv_switch_relay_errors",
                                             "local_link_integrity_errors",
                                             "excessive_buffer_overrun_errors",
                                             "VL15_dropped",
                                             "port_xmit_discards",
                                             "port_xmit_constraint_errors",
                                             "port_rcv_constraint_errors",
                                             "port_xmit_wait",
                                             "port_xmit_data",
                                             "port_rcv_data",
                                             "port_xmit_packets",
                                             "port_rcv_packets",
                                             "unicast_xmit_packets",
                                             "unicast_rcv_packets",
                                             "multicast_xmit_packets",
                                             "multicast_rcv_packets"};
    for (const auto& c : g.counter_max) {
      const bool known = std::any_of(std::begin(k_counters), std::end(k_counters),
                                     [&](const char* k) { return *c.first == k; });
      if (!known) {
        diags.error(c.first.mark, g.path + ".checks.counters." + *c.first,
                    "'" + *c.first +
                        "' is not a port counter (error counters: symbol_error, "
                        "link_error_recovery, link_downed, port_rcv_errors, "
                        "port_rcv_remote_physical_errors, port_rcv_switch_relay_errors, "
                        "local_link_integrity_errors, excessive_buffer_overrun_errors, "
                        "VL15_dropped, port_xmit_discards, port_xmit_constraint_errors, "
                        "port_rcv_constraint_errors)");
      }
    }
  }
}

}  // namespace ibsetup::profile::detail
