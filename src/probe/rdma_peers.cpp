// rdma.route and rdma.pingpong for every peer address: the results each target gets, and the
// RDMA connection manager's event channel that the event loop (rdma_loop.cpp) runs on.
#include "os/rdma_dl.hpp"
#include "os/verbs_device.hpp"
#include "probe/rdma_checks.hpp"
#include "probe/rdma_endpoint.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace ibsetup::check::rdma {

namespace {

Result make_result(const char* id, const std::string& subject, std::string expected)
{
  Result r;
  r.id = id;
  r.subject = subject;
  r.expected = std::move(expected);
  return r;
}

std::string errno_text(const char* call, int error)
{
  return std::string(call) + ": " + std::strerror(error);
}

}  // namespace

std::vector<Result> peer_checks(const profile::ResolvedNode& node, const RdmaOptions& options)
{
  std::vector<Result> out;
  std::vector<std::string> unaddressed;
  const auto targets = peer_targets(node, &unaddressed);
  for (const auto& host : unaddressed) {
    Result r = make_result("rdma.route", host, "an address on an interface of this node");
    r.status = Status::skip;
    r.observed = "no address";
    r.message = host + ": no address on an interface this node has: RDMA route not checked";
    out.push_back(r);
  }
  const std::string route_expected =
      "address and route resolved within " + std::to_string(options.deadline_ms) + " ms";
  const std::string ping_expected = "RC send/recv echo from ibsetup responder on port " +
                                    std::to_string(options.port) + " within " +
                                    std::to_string(options.deadline_ms) + " ms";
  std::vector<Result> routes;
  std::vector<Result> pings;
  for (const auto& t : targets) {
    size_t addresses = 0;
    for (const auto& o : targets) {
      addresses += o.host == t.host ? 1 : 0;
    }
    const std::string subject = target_subject(t, addresses > 1);
    routes.push_back(make_result("rdma.route", subject, route_expected));
    pings.push_back(make_result("rdma.pingpong", subject, ping_expected));
  }
  if (targets.empty()) {
    return out;
  }

  std::string unavailable;
  std::string unavailable_observed = "no " + options.dev_dir;
  Status unavailable_status = Status::skip;
  rdma_event_channel* channel = nullptr;
  if (!os::device_dir_present(options.dev_dir)) {
    unavailable = "no " + options.dev_dir + " on this host (rdma_ucm not loaded?): not checked";
  } else if ((channel = rdma_create_event_channel()) == nullptr) {
    unavailable_status = Status::fail;
    const int error = errno;
    unavailable = error == ENOSYS && !os::rdmacm_load_error().empty()
                      ? "cannot open the RDMA connection manager: " + os::rdmacm_load_error()
                      : errno_text("cannot open the RDMA connection manager (rdma_cm)", error) +
                            " (is rdma_ucm loaded?)";
  }
  if (channel != nullptr) {
    try {
      set_nonblocking(channel->fd, "RDMA CM event channel");
    } catch (const std::runtime_error& e) {
      unavailable_status = Status::fail;
      unavailable = e.what();
      rdma_destroy_event_channel(channel);
      channel = nullptr;
    }
  }
  if (channel == nullptr) {
    for (size_t i = 0; i < targets.size(); ++i) {
      for (Result* r : {&routes[i], &pings[i]}) {
        r->status = unavailable_status;
        r->observed = unavailable_status == Status::skip ? unavailable_observed : unavailable;
        r->message = r->subject + ": " + unavailable;
      }
    }
  } else {
    resolve_all(options, channel, targets, routes, pings);
    rdma_destroy_event_channel(channel);
  }
  out.insert(out.end(), routes.begin(), routes.end());
  if (options.pingpong) {
    out.insert(out.end(), pings.begin(), pings.end());
  }
  return out;
}

}  // namespace ibsetup::check::rdma
