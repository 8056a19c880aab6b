// A responder on its own thread, for --loopback: the measuring thread talks to it through the
// HCA as it would to a peer's.
#pragma once

#include <ibsetup/rdma_check.hpp>

#include <cstdint>
#include <memory>

namespace ibsetup::check::rdma {

class BackgroundResponder {
public:
  // Listens on options.bind (port 0: any free port) before returning; throws as
  // run_responder() does when it cannot.
  explicit BackgroundResponder(const ResponderOptions& options);
  // Stops the thread (within about 20 ms) and frees everything.
  ~BackgroundResponder();
  BackgroundResponder(const BackgroundResponder&) = delete;
  BackgroundResponder& operator=(const BackgroundResponder&) = delete;

  uint16_t port() const;

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace ibsetup::check::rdma
