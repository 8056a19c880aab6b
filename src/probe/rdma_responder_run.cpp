// ibsetup responder's entry point, and the responder check --loopback runs on a thread of its
// own: the same event loop as the peers' responder, stopped through its flag.
#include "probe/rdma_responder.hpp"
#include "probe/rdma_responder_loop.hpp"

#include <ibsetup/rdma_check.hpp>

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace ibsetup::check {

int run_responder(const ResponderOptions& options,
                  const std::function<void(const std::string&)>& log)
{
  responder::Responder responder(options, log);
  responder.listen();
  return responder.serve();
}

namespace rdma {

struct BackgroundResponder::Impl {
  explicit Impl(const ResponderOptions& o) : options(o), responder(options, log, &stop) {}
  ResponderOptions options;
  std::function<void(const std::string&)> log = [](const std::string&) {};
  std::atomic<bool> stop{false};
  responder::Responder responder;
  std::thread thread;
};

BackgroundResponder::BackgroundResponder(const ResponderOptions& options)
    : m_impl(std::make_unique<Impl>(options))
{
  m_impl->responder.listen();
  m_impl->thread = std::thread([impl = m_impl.get()] {
    try {
      impl->responder.serve();
    } catch (const std::exception&) {
      // The measuring side then fails on its own deadline, with its own words.
    }
  });
}

BackgroundResponder::~BackgroundResponder()
{
  m_impl->stop = true;
  m_impl->thread.join();
}

uint16_t BackgroundResponder::port() const
{
  return m_impl->responder.port();
}

}  // namespace rdma

}  // namespace ibsetup::check
