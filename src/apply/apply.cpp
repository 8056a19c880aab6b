#include "apply/callbacks.hpp"
#include "common/strings.hpp"
#include "common/json.hpp"

#include <ibsetup/apply.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <iterator>
#include <thread>

namespace ibsetup::apply {

namespace {

using plan::Action;
using plan::ActionKind;

profile::Mode mode_from(const std::optional<inventory::Reading<inventory::IpoibMode>>& mode)
{
  return mode == inventory::IpoibMode::connected ? profile::Mode::connected
                                                 : profile::Mode::datagram;
}

void run(const Action& a, LinkBackend& backend)
{
  switch (a.kind) {
  case ActionKind::delete_child:
    backend.delete_link(a.ifname);
    break;
  case ActionKind::create_child:
    backend.create_child(a.parent, a.ifname, a.pkey, a.mode);
    break;
  case ActionKind::set_mode:
    backend.set_mode(a.ifname, *a.mode);
    break;
  case ActionKind::set_mtu:
    backend.set_mtu(a.ifname, a.mtu);
    break;
  case ActionKind::remove_address:
    backend.remove_address(a.ifname, *a.address);
    break;
  case ActionKind::add_address:
    backend.add_address(a.ifname, *a.address);
    break;
  case ActionKind::set_up:
    backend.set_up(a.ifname, true);
    break;
  }
}

// The step that restores the state an action changed; nullopt when there is nothing to undo.
std::optional<std::pair<std::string, std::function<void(LinkBackend&)>>> inverse(const Action& a)
{
  using Undo = std::pair<std::string, std::function<void(LinkBackend&)>>;
  switch (a.kind) {
  case ActionKind::delete_child:
    // Recreated as it was: mode, MTU, addresses and state.
    return Undo{"recreate " + a.ifname, [a](LinkBackend& b) {
                  b.create_child(a.parent, a.ifname, a.pkey,
                                 a.from_mode ? std::optional<profile::Mode>(mode_from(a.from_mode))
                                             : std::nullopt);
                  if (a.from_mtu) {
                    b.set_mtu(a.ifname, *a.from_mtu);
                  }
                  for (const auto& address : a.restore_addresses) {
                    b.add_address(a.ifname, address);
                  }
                  if (a.was_up) {
                    b.set_up(a.ifname, true);
                  }
                }};
  case ActionKind::create_child:
    return Undo{"delete " + a.ifname, [a](LinkBackend& b) { b.delete_link(a.ifname); }};
  case ActionKind::set_mode:
    if (!a.from_mode) {
      return std::nullopt;
    }
    return Undo{a.ifname + " mode back to " + a.from_mode->name() +
                    (a.from_mtu ? ", mtu back to " + std::to_string(*a.from_mtu) : ""),
                [a](LinkBackend& b) {
                  b.set_mode(a.ifname, mode_from(a.from_mode));
                  if (a.from_mtu) {
                    b.set_mtu(a.ifname, *a.from_mtu);
                  }
                }};
  case ActionKind::set_mtu:
    if (!a.from_mtu) {
      return std::nullopt;
    }
    return Undo{a.ifname + " mtu back to " + std::to_string(*a.from_mtu),
                [a](LinkBackend& b) { b.set_mtu(a.ifname, *a.from_mtu); }};
  case ActionKind::remove_address:
    return Undo{"re-add " + a.address->str() + " on " + a.ifname,
                [a](LinkBackend& b) { b.add_address(a.ifname, *a.address); }};
  case ActionKind::add_address:
    return Undo{"remove " + a.address->str() + " from " + a.ifname,
                [a](LinkBackend& b) { b.remove_address(a.ifname, *a.address); }};
  case ActionKind::set_up:
  default:
    return Undo{a.ifname + " down again" +
                    (a.restore_addresses.empty() ? std::string() : ", its IPv6 addresses back"),
                [a](LinkBackend& b) {
                  b.set_up(a.ifname, false);
                  // Going down flushed them, unless keep_addr_on_down kept them (then the
                  // kernel answers "exists": the address is where it should be).
                  for (const auto& address : a.restore_addresses) {
                    try {
                      b.add_address(a.ifname, address);
                    } catch (const Error& e) {
                      if (std::string(e.what()).find(std::strerror(EEXIST)) == std::string::npos) {
                        throw;
                      }
                    }
                  }
                }};
  }
}

// "desired X, current Y" for an action the host still needs after applying.
std::string unconverged(const Action& a)
{
  switch (a.kind) {
  case ActionKind::create_child:
    return a.ifname + ": desired present, current absent";
  case ActionKind::delete_child:
    return a.ifname + ": desired absent, current present";
  case ActionKind::set_mode:
    return a.ifname + " mode: desired " +
           profile::to_string(a.mode.value_or(profile::Mode::datagram)) + ", current " +
           (a.from_mode ? a.from_mode->name() : "?");
  case ActionKind::set_mtu:
    return a.ifname + " mtu: desired " + std::to_string(a.mtu) + ", current " +
           (a.from_mtu ? std::to_string(*a.from_mtu) : "?");
  case ActionKind::add_address:
    return a.ifname + " address " + a.address->str() + ": desired present, current absent";
  case ActionKind::remove_address:
    return a.ifname + " address " + a.address->str() + ": desired absent, current present";
  case ActionKind::set_up:
  default:
    return a.ifname + " state: desired up, current down";
  }
}

// A caller's callbacks, by the rule of apply/callbacks.hpp (an exception out of apply_plan
// would leave the steps made so far in place).
void say(const Options& options, const std::string& line)
{
  detail::tell_progress(options.progress, line);
}

bool stop_asked(const Options& options)
{
  return detail::ask_interrupted(options.interrupted);
}

// What a backend's call threw, other than BackendError (a caller's LinkBackend, or the
// allocator): the step failed like any other, and the run rolls back.
std::string thrown(const std::exception_ptr& error)
{
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

}  // namespace

const char* to_string(Backend backend)
{
  return backend == Backend::networkmanager ? "networkmanager" : "netlink";
}

bool verify_host(const std::function<plan::Plan()>& replan, const Options& options, Report& report)
{
  // Addresses and carrier settle asynchronously: re-read a few times before judging.
  // At least one re-read: verify_tries below 1 must not pass a host unread.
  const int tries = std::max(1, options.verify_tries);
  for (int i = 0; i < tries; ++i) {
    plan::Plan again;
    try {
      again = replan();
    } catch (...) {
      report.failure = "verification could not read the host: " + thrown(std::current_exception());
      return false;
    }
    report.not_converged.clear();
    for (const auto& a : again.actions) {
      report.not_converged.push_back(unconverged(a));
    }
    for (const auto& e : again.errors) {
      report.not_converged.push_back(e.str());
    }
    if (report.not_converged.empty() || stop_asked(options)) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(options.verify_interval_ms));
  }
  if (stop_asked(options)) {
    report.failure = "interrupted during verification";
  } else if (!report.not_converged.empty()) {
    report.failure = "verification failed: " + report.not_converged.front();
  }
  return report.ok();
}

Report apply_plan(const plan::Plan& plan, LinkBackend& backend,
                  const std::function<plan::Plan()>& replan, const Options& options)
{
  Report report;
  report.host = plan.host;
  std::vector<std::pair<std::string, std::function<void(LinkBackend&)>>> journal;
  std::vector<std::string> mode_changed;
  for (const auto& a : plan.actions) {
    if (stop_asked(options)) {
      report.failure = "interrupted before: " + a.describe();
      break;
    }
    try {
      run(a, backend);
    } catch (const BackendError& e) {
      report.failure = e.what();
      say(options, "  " + a.describe() + "  FAILED: " + e.what());
      break;
    } catch (const EnvironmentError&) {
      if (report.done.empty()) {
        throw;  // nothing changed yet: the caller reports it as before any change
      }
      report.failure = thrown(std::current_exception());
      say(options, "  " + a.describe() + "  FAILED: " + report.failure);
      break;
    } catch (...) {
      report.failure = thrown(std::current_exception());
      say(options, "  " + a.describe() + "  FAILED: " + report.failure);
      break;
    }
    say(options, "  " + a.describe() + "  ok");
    report.done.push_back(a.describe());
    // After a mode change, undoing the mode restores the MTU too (in the right mode); the
    // MTU's own undo would run first, in the wrong mode, and could be refused.
    const bool mtu_restored_by_mode =
        a.kind == ActionKind::set_mtu &&
        std::find(mode_changed.begin(), mode_changed.end(), a.ifname) != mode_changed.end();
    if (a.kind == ActionKind::set_mode) {
      mode_changed.push_back(a.ifname);
    }
    if (auto undo = inverse(a); undo && !mtu_restored_by_mode) {
      journal.push_back(std::move(*undo));
    }
    if (options.step_delay_ms > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(options.step_delay_ms));
    }
  }
  // An empty plan comes from an inspection made moments ago that found nothing to change:
  // that inspection is the verification, and a second one would only double a no-op's cost
  // (issue 15). A plan with actions is verified by re-reading the host.
  if (report.failure.empty() && !plan.actions.empty()) {
    verify_host(replan, options, report);
  }
  if (report.failure.empty()) {
    report.changes = report.done.size();
    return report;
  }
  for (auto it = journal.rbegin(); it != journal.rend(); ++it) {
    try {
      std::string line;
      try {
        it->second(backend);
        line = it->first + ": ok";
      } catch (...) {
        line = it->first + ": FAILED: " + thrown(std::current_exception());
      }
      say(options, "  rollback: " + line);
      report.rollback.push_back(std::move(line));
    } catch (...) {
      // No memory left for the line itself: the undo steps after it still run.
    }
  }
  return report;
}

std::vector<std::string> rollback_failures(const Report& report)
{
  // Each backend's words for an undo that worked. apply_plan writes "STEP: ok" or "STEP: FAILED:
  // WHY", STEP being its own description, so the failure's mark decides (WHY may end in
  // anything). The NetworkManager session writes "... ok" or "... already removed by the
  // checkpoint" last, after ids that are anyone's and may hold " ... failed" themselves, so the
  // end decides there.
  const bool nm = report.backend == Backend::networkmanager;
  const auto ends = [](const std::string& line, const std::string& tail) {
    return line.size() >= tail.size() &&
           line.compare(line.size() - tail.size(), tail.size(), tail) == 0;
  };
  const auto worked = [&](const std::string& line) {
    if (!nm) {
      return line.find(": FAILED: ") == std::string::npos && ends(line, ": ok");
    }
    return ends(line, " ... ok") || ends(line, " ... already removed by the checkpoint");
  };
  std::vector<std::string> failed;
  std::copy_if(report.rollback.begin(), report.rollback.end(), std::back_inserter(failed),
               [&](const std::string& line) { return !worked(line); });
  return failed;
}

std::string report_to_json(const Report& report)
{
  const bool nm = report.backend == Backend::networkmanager;
  JsonWriter j;
  j.begin_object();
  j.key("host").value(report.host);
  j.key("backend").value(to_string(report.backend));
  j.key("ok").value(report.ok());
  j.key("changes").value(static_cast<uint64_t>(report.changes));
  auto list = [&j](const char* key, const std::vector<std::string>& items) {
    j.key(key).begin_array();
    for (const auto& i : items) {
      j.value(i);
    }
    j.end_array();
  };
  auto string_or_null = [&j](const char* key, const std::string& value) {
    j.key(key);
    if (value.empty()) {
      j.null();
    } else {
      j.value(value);
    }
  };
  list("done", report.done);
  if (nm) {
    list("unchanged", report.unchanged);
    j.key("foreign").begin_array();
    for (const auto& f : report.foreign) {
      j.begin_object();
      j.key("interface").value(f.interface);
      j.key("id").value(f.id);
      j.key("uuid").value(f.uuid);
      string_or_null("saved", f.saved);
      j.end_object();
    }
    j.end_array();
  }
  list("rollback", report.rollback);
  list("rollback_failed", rollback_failures(report));
  list("not_converged", report.not_converged);
  if (nm) {
    string_or_null("checkpoint", report.checkpoint);
  }
  string_or_null("failure", report.failure);
  j.end_object();
  return j.take_line();
}

}  // namespace ibsetup::apply
