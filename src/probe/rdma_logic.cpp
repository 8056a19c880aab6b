#include "probe/rdma_logic.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace ibsetup::check::rdma {

namespace {

void add_unique(std::vector<DevicePort>& out, DevicePort p)
{
  if (std::find(out.begin(), out.end(), p) == out.end()) {
    out.push_back(std::move(p));
  }
}

}  // namespace

std::vector<DevicePort> declared_ports(const profile::ResolvedNode& node)
{
  std::vector<DevicePort> out;
  for (const auto& hca : node.hcas) {
    DevicePort base;
    if (hca.device) {
      base.device = *hca.device;
    } else if (hca.pci) {
      base.pci = *hca.pci;
    } else {
      continue;
    }
    if (hca.ports.empty()) {
      add_unique(out, base);
    }
    for (const auto& port : hca.ports) {
      DevicePort p = base;
      p.port = port.port;
      add_unique(out, p);
    }
  }
  for (const auto& itf : node.interfaces) {
    if (!itf.device) {
      continue;
    }
    // An interface bound to a port of an HCA that hcas[] declares by PCI address only names
    // the same port a second time; the device check of that name is still worth having.
    DevicePort p;
    p.device = *itf.device;
    p.port = itf.port.value_or(0);
    const bool covered = std::any_of(out.begin(), out.end(), [&](const DevicePort& o) {
      return o.device == p.device && (o.port == p.port || o.port == 0);
    });
    if (!covered) {
      add_unique(out, p);
    }
  }
  return out;
}

std::vector<Target> peer_targets(const profile::ResolvedNode& node,
                                 std::vector<std::string>* unaddressed)
{
  std::vector<Target> out;
  for (const auto& peer : node.peers) {
    if (peer.addresses.empty() && unaddressed != nullptr) {
      unaddressed->push_back(peer.host);
    }
    for (const auto& [itf_name, prefix] : peer.addresses) {
      Target t;
      t.host = peer.host;
      t.interface = itf_name;
      t.address = prefix.address;
      for (const auto& mine : node.interfaces) {
        if (mine.name != itf_name) {
          continue;
        }
        const auto& own = prefix.address.family == Family::ipv4 ? mine.ipv4 : mine.ipv6;
        if (own) {
          t.source = own->address;
        }
      }
      out.push_back(std::move(t));
    }
  }
  return out;
}

int Deadline::remaining_ms(Clock::time_point now) const
{
  if (now >= m_end) {
    return 0;
  }
  const auto left = std::chrono::duration_cast<std::chrono::microseconds>(m_end - now).count();
  return static_cast<int>((left + 999) / 1000);
}

int poll_timeout_ms(const std::vector<Deadline>& deadlines, Clock::time_point now)
{
  int timeout = -1;
  for (const auto& d : deadlines) {
    const int left = d.remaining_ms(now);
    if (timeout < 0 || left < timeout) {
      timeout = left;
    }
  }
  return timeout;
}

long elapsed_ms(Clock::time_point start, Clock::time_point now)
{
  if (now <= start) {
    return 0;
  }
  return static_cast<long>(
      std::chrono::duration_cast<std::chrono::milliseconds>(now - start).count());
}

std::string format_duration(std::chrono::nanoseconds duration)
{
  const double us = static_cast<double>(duration.count()) / 1000.0;
  char buf[32];
  if (us < 1000.0) {
    std::snprintf(buf, sizeof buf, "%.0f us", us);
  } else if (us < 10000.0) {
    std::snprintf(buf, sizeof buf, "%.2f ms", us / 1000.0);
  } else if (us < 100000.0) {
    std::snprintf(buf, sizeof buf, "%.1f ms", us / 1000.0);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f ms", us / 1000.0);
  }
  return buf;
}

std::string reject_reason_text(int reason)
{
  switch (reason) {
  case 1:
    return "no QP available on the peer";
  case 5:
    return "no resources on the peer";
  case 6:
    return "timeout";
  case 8:
    return "invalid service ID: nothing listens on that port";
  case 28:
    return "rejected by the peer";
  default:
    return "reject reason " + std::to_string(reason);
  }
}

std::string event_detail(const std::string& event_name, int status, bool is_reject)
{
  if (is_reject) {
    return event_name + ": " + reject_reason_text(status);
  }
  if (status == 0) {
    return event_name;
  }
  return event_name + ": " + std::strerror(status < 0 ? -status : status);
}

std::string route_failure_message(const Target& target, bool timed_out, int budget_ms, long elapsed,
                                  const std::string& detail)
{
  std::string m = target.host + ": RDMA route to " + target.address.str();
  if (timed_out) {
    m += " not resolved within " + std::to_string(budget_ms) + " ms";
  } else {
    m += " failed after " + std::to_string(elapsed) + " ms";
  }
  return m + " (" + detail + ")";
}

std::string pingpong_failure_message(const Target& target, int port, bool timed_out, int budget_ms,
                                     long elapsed, const std::string& detail)
{
  std::string m = target.host + ": RDMA ping-pong with " + target.address.str() + " port " +
                  std::to_string(port);
  if (timed_out) {
    m += " not finished within " + std::to_string(budget_ms) + " ms";
  } else {
    m += " failed after " + std::to_string(elapsed) + " ms";
  }
  return m + " (" + detail + ")";
}

std::string target_subject(const Target& target, bool several)
{
  return several ? target.host + "/" + target.interface : target.host;
}

}  // namespace ibsetup::check::rdma
