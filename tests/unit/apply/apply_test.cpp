// The journal, verification and rollback of apply_plan, driven through a recording backend
// (the real netlink backend is tested in network namespaces: tests/scripts/netns_apply_test.sh).
#include "apply/callbacks.hpp"
#include "test_util.hpp"

#include <ibsetup/apply.hpp>
#include <ibsetup/error.hpp>

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>

using namespace ibsetup;
using plan::Action;
using plan::ActionKind;

namespace {

// Records each call; fails the call whose text equals fail_on.
class RecordingBackend : public apply::LinkBackend {
public:
  std::vector<std::string> calls;
  std::string fail_on;

  void create_child(const std::string& parent, const std::string& name, uint16_t /*pkey*/,
                    std::optional<profile::Mode> /*mode*/) override
  {
    record("create " + name + " on " + parent);
  }
  void delete_link(const std::string& name) override { record("delete " + name); }
  void set_mode(const std::string& name, profile::Mode mode) override
  {
    record(name + " mode " + profile::to_string(mode));
  }
  void set_mtu(const std::string& name, int mtu) override
  {
    record(name + " mtu " + std::to_string(mtu));
  }
  void add_address(const std::string& name, const IpPrefix& a) override
  {
    record(name + " add " + a.str());
  }
  void remove_address(const std::string& name, const IpPrefix& a) override
  {
    record(name + " remove " + a.str());
  }
  void set_up(const std::string& name, bool up) override { record(name + (up ? " up" : " down")); }

  // What a call equal to fail_on throws: 'b' BackendError, 'e' EnvironmentError, 's'
  // std::runtime_error, 'i' an int. Each later failure takes the next of then, if any.
  char throws = 'b';
  std::string then;

private:
  void record(const std::string& call)
  {
    calls.push_back(call);
    if (call != fail_on) {
      return;
    }
    const char kind =
        m_failures == 0 || then.empty() ? throws : then[std::min(m_failures - 1, then.size() - 1)];
    ++m_failures;
    switch (kind) {
    case 'e':
      throw EnvironmentError(call + ": cannot reach the kernel");
    case 's':
      throw std::runtime_error(call + ": a caller's backend gave up");
    case 'i':
      throw 42;
    default:
      throw apply::BackendError(call + ": the kernel refused: Invalid argument");
    }
  }

  size_t m_failures = 0;
};

IpPrefix prefix(const char* text)
{
  std::string why;
  return *IpPrefix::parse(text, Family::ipv4, &why);
}

plan::Plan sample_plan()
{
  plan::Plan p;
  p.host = "n1";
  Action create;
  create.kind = ActionKind::create_child;
  create.ifname = "ib0.8001";
  create.parent = "ib0";
  create.pkey = 0x8001;
  Action mtu;
  mtu.kind = ActionKind::set_mtu;
  mtu.ifname = "ib0";
  mtu.mtu = 4092;
  mtu.from_mtu = 2044;
  Action remove;
  remove.kind = ActionKind::remove_address;
  remove.ifname = "ib0";
  remove.address = prefix("10.9.0.1/24");
  Action add;
  add.kind = ActionKind::add_address;
  add.ifname = "ib0";
  add.address = prefix("10.10.0.1/16");
  Action up;
  up.kind = ActionKind::set_up;
  up.ifname = "ib0.8001";
  p.actions = {create, mtu, remove, add, up};
  return p;
}

// sample_plan() run with o, which stops it before its third step: the two steps made are
// undone, and apply_plan throws nothing.
void expect_stopped_before_the_third_step(RecordingBackend& b, const apply::Options& o)
{
  apply::Report report;
  EXPECT_NO_THROW(report = apply::apply_plan(
                      sample_plan(), b, [] { return plan::Plan{}; }, o));
  EXPECT_EQ("interrupted before: - 10.9.0.1/24 on ib0", report.failure);
  EXPECT_EQ((std::vector<std::string>{"create ib0.8001 on ib0", "ib0 mtu 4092", "ib0 mtu 2044",
                                      "delete ib0.8001"}),
            b.calls);
}

apply::Options quick()
{
  apply::Options o;
  o.verify_tries = 3;
  o.verify_interval_ms = 1;
  return o;
}

TEST(Apply, CarriesOutEveryActionAndVerifies)
{
  RecordingBackend b;
  int replans = 0;
  const auto report = apply::apply_plan(
      sample_plan(), b,
      [&] {
        ++replans;
        return plan::Plan{};
      },
      quick());
  EXPECT_TRUE(report.ok());
  EXPECT_EQ(5U, report.changes);
  EXPECT_EQ(1, replans);
  EXPECT_EQ(
      (std::vector<std::string>{"create ib0.8001 on ib0", "ib0 mtu 4092", "ib0 remove 10.9.0.1/24",
                                "ib0 add 10.10.0.1/16", "ib0.8001 up"}),
      b.calls);
}

TEST(Apply, EmptyPlanIsNotReadAgain)
{
  // The inspection that produced an empty plan is its verification; a re-read would find a
  // difference only if something else changed the host meanwhile, which is not this run's doing.
  RecordingBackend b;
  int replans = 0;
  plan::Plan empty;
  empty.host = "cn1";
  const auto report = apply::apply_plan(
      empty, b,
      [&] {
        ++replans;
        plan::Plan drifted;
        drifted.actions.push_back(sample_plan().actions.front());
        return drifted;
      },
      quick());
  EXPECT_TRUE(report.ok());
  EXPECT_EQ(0U, report.changes);
  EXPECT_EQ(0, replans);
  EXPECT_TRUE(b.calls.empty());
  EXPECT_EQ("cn1", report.host);
}

TEST(Apply, FailureRollsBackInReverseOrder)
{
  RecordingBackend b;
  b.fail_on = "ib0 add 10.10.0.1/16";
  const auto report = apply::apply_plan(
      sample_plan(), b, [] { return plan::Plan{}; }, quick());
  EXPECT_FALSE(report.ok());
  EXPECT_EQ(0U, report.changes);
  EXPECT_EQ("ib0 add 10.10.0.1/16: the kernel refused: Invalid argument", report.failure);
  EXPECT_EQ((std::vector<std::string>{"create ib0.8001 on ib0", "ib0 mtu 4092",
                                      "ib0 remove 10.9.0.1/24", "ib0 add 10.10.0.1/16",
                                      // rollback
                                      "ib0 add 10.9.0.1/24", "ib0 mtu 2044", "delete ib0.8001"}),
            b.calls);
  EXPECT_EQ((std::vector<std::string>{"re-add 10.9.0.1/24 on ib0: ok", "ib0 mtu back to 2044: ok",
                                      "delete ib0.8001: ok"}),
            report.rollback);
}

// A library caller's LinkBackend may throw what it likes, and the allocator may throw too: any
// exception from a step after the first is a failed step, and the steps made are undone (it
// used to leave apply_plan with the first change in place and no report).
TEST(Apply, AnyExceptionFromAStepRollsBack)
{
  const std::vector<std::pair<char, std::string>> cases = {
      {'e', "ib0 mtu 4092: cannot reach the kernel"},
      {'s', "ib0 mtu 4092: a caller's backend gave up"},
      {'i', "an exception that is not a std::exception"}};
  for (const auto& [throws, failure] : cases) {
    RecordingBackend b;
    b.fail_on = "ib0 mtu 4092";
    b.throws = throws;
    apply::Report report;
    EXPECT_NO_THROW(report = apply::apply_plan(
                        sample_plan(), b, [] { return plan::Plan{}; }, quick()));
    EXPECT_EQ(failure, report.failure) << throws;
    EXPECT_EQ(
        (std::vector<std::string>{"create ib0.8001 on ib0", "ib0 mtu 4092", "delete ib0.8001"}),
        b.calls)
        << throws;
    EXPECT_EQ(std::vector<std::string>{"delete ib0.8001: ok"}, report.rollback) << throws;
  }
}

// An undo step that throws something other than BackendError is reported, and the undo steps
// after it still run (it used to leave the rollback there, the rest of the steps in place).
TEST(Apply, AnUndoStepThatThrowsDoesNotStopTheRollback)
{
  RecordingBackend b;
  b.fail_on = "ib0 add 10.10.0.1/16";
  b.then = "s";
  plan::Plan p = sample_plan();
  p.actions[2].address = prefix("10.10.0.1/16");  // its undo re-adds the address: fails again
  apply::Report report;
  EXPECT_NO_THROW(report = apply::apply_plan(
                      p, b, [] { return plan::Plan{}; }, quick()));
  EXPECT_EQ((std::vector<std::string>{
                "re-add 10.10.0.1/16 on ib0: FAILED: ib0 add 10.10.0.1/16: a caller's backend "
                "gave up",
                "ib0 mtu back to 2044: ok", "delete ib0.8001: ok"}),
            report.rollback);
}

// The guards a run puts around a caller's callbacks (apply_node, nm::apply_node): an empty
// interrupted() is false, one that throws is true; a progress callback's throw is swallowed.
TEST(Apply, GuardedCallbacks)
{
  EXPECT_FALSE(apply::detail::guarded_interrupted(nullptr)());
  EXPECT_TRUE(apply::detail::guarded_interrupted([]() -> bool { throw 1; })());
  EXPECT_TRUE(apply::detail::guarded_interrupted([] { return true; })());
  EXPECT_FALSE(apply::detail::guarded_progress(nullptr));
  int lines = 0;
  const auto progress = apply::detail::guarded_progress([&lines](const std::string&) {
    ++lines;
    throw std::runtime_error("terminal gone");
  });
  EXPECT_NO_THROW(progress("  + create ib0.8001 ... ok"));
  EXPECT_EQ(1, lines);
}

// Before any change an EnvironmentError still passes through: nothing to roll back.
TEST(Apply, AnEnvironmentErrorBeforeAnyChangePassesThrough)
{
  RecordingBackend b;
  b.fail_on = "create ib0.8001 on ib0";
  b.throws = 'e';
  EXPECT_THROW(apply::apply_plan(
                   sample_plan(), b, [] { return plan::Plan{}; }, quick()),
               EnvironmentError);
}

// Callbacks: an empty interrupted() never stops the run, one that throws stops it (and the
// steps are undone), and a progress callback that throws loses only its lines.
TEST(Apply, CallbacksThatAreEmptyOrThrowDoNotLeaveStepsInPlace)
{
  {
    RecordingBackend b;
    apply::Options o = quick();
    o.interrupted = nullptr;
    o.progress = [](const std::string&) { throw std::runtime_error("terminal gone"); };
    apply::Report report;
    EXPECT_NO_THROW(report = apply::apply_plan(
                        sample_plan(), b, [] { return plan::Plan{}; }, o));
    EXPECT_TRUE(report.ok()) << report.failure;
    EXPECT_EQ(5U, report.changes);
  }
  {
    RecordingBackend b;
    apply::Options o = quick();
    o.interrupted = [&b] {
      if (b.calls.size() == 2) {
        throw std::runtime_error("poll failed");
      }
      return false;
    };
    expect_stopped_before_the_third_step(b, o);
  }
}

// verify_tries below 1 still reads the host once: a host that did not converge is not passed.
TEST(Apply, VerificationReadsTheHostAtLeastOnce)
{
  RecordingBackend b;
  apply::Options o = quick();
  o.verify_tries = 0;
  plan::Plan still;
  still.actions = {sample_plan().actions[1]};
  int replans = 0;
  const auto report = apply::apply_plan(
      sample_plan(), b,
      [&] {
        ++replans;
        return still;
      },
      o);
  EXPECT_EQ(1, replans);
  EXPECT_FALSE(report.ok());
  EXPECT_EQ("verification failed: ib0 mtu: desired 4092, current 2044", report.failure);
}

TEST(Apply, VerificationFailureSaysDesiredAndCurrent)
{
  RecordingBackend b;
  plan::Plan still;
  Action mtu;
  mtu.kind = ActionKind::set_mtu;
  mtu.ifname = "ib0";
  mtu.mtu = 4092;
  mtu.from_mtu = 2044;
  still.actions = {mtu};
  int replans = 0;
  const auto report = apply::apply_plan(
      sample_plan(), b,
      [&] {
        ++replans;
        return still;
      },
      quick());
  EXPECT_FALSE(report.ok());
  EXPECT_EQ(3, replans);
  EXPECT_EQ(std::vector<std::string>{"ib0 mtu: desired 4092, current 2044"}, report.not_converged);
  EXPECT_EQ("verification failed: ib0 mtu: desired 4092, current 2044", report.failure);
  EXPECT_EQ(5U, report.rollback.size());  // everything undone, the link state too
  EXPECT_EQ("ib0.8001 down again: ok", report.rollback.front());
}

TEST(Apply, InterruptionStopsBetweenStepsAndRollsBack)
{
  RecordingBackend b;
  apply::Options o = quick();
  o.interrupted = [&b] { return b.calls.size() == 2; };
  expect_stopped_before_the_third_step(b, o);
}

TEST(Apply, RollbackFailuresAreReportedNotHidden)
{
  RecordingBackend b;
  b.fail_on = "ib0 add 10.10.0.1/16";
  plan::Plan p = sample_plan();
  // The re-add during rollback fails too (same text): it is reported, the rest still runs.
  p.actions[2].address = prefix("10.10.0.1/16");
  const auto report = apply::apply_plan(
      p, b, [] { return plan::Plan{}; }, quick());
  EXPECT_EQ(
      "re-add 10.10.0.1/16 on ib0: FAILED: ib0 add 10.10.0.1/16: the kernel refused: "
      "Invalid argument",
      report.rollback.front());
  EXPECT_EQ("delete ib0.8001: ok", report.rollback.back());
  // The library says which undos failed, for the CLI's "rollback not complete" and --json's
  // rollback_failed (the CLI used to say "rolled back N steps" whatever they said).
  EXPECT_EQ(std::vector<std::string>{report.rollback.front()}, apply::rollback_failures(report));
  EXPECT_NE(std::string::npos,
            apply::report_to_json(report).find(R"("rollback_failed":["re-add 10.10.0.1/16 on )"));
}

TEST(Apply, RollbackFailuresByEachBackendsWords)
{
  apply::Report r;
  EXPECT_TRUE(apply::rollback_failures(r).empty());  // nothing rolled back
  // netlink: the failure's mark decides, whatever the error text ends with.
  r.rollback = {"delete ib0.8001: ok", "ib0 mtu back to 1500: FAILED: a caller's text: ok",
                "ib0 down again: FAILED: No such device"};
  EXPECT_EQ((std::vector<std::string>{r.rollback[1], r.rollback[2]}), apply::rollback_failures(r));
  // NetworkManager: the end decides, since a profile id (anyone's) may hold " ... failed: ".
  r.backend = apply::Backend::networkmanager;
  r.rollback = {"remove x ... failed: y ... ok",
                "remove ibsetup-ib0 ... already removed by the "
                "checkpoint",
                "restore site-ib1 ... failed: not tried, NetworkManager is gone",
                "roll back checkpoint /cp/1 ... failed: no such checkpoint"};
  EXPECT_EQ((std::vector<std::string>{r.rollback[2], r.rollback[3]}), apply::rollback_failures(r));
}

TEST(Apply, ModeUndoRestoresTheMtuInTheRightMode)
{
  RecordingBackend b;
  b.fail_on = "ib0 up";
  plan::Plan p;
  Action mode;
  mode.kind = ActionKind::set_mode;
  mode.ifname = "ib0";
  mode.mode = profile::Mode::datagram;
  mode.from_mode = inventory::IpoibMode::connected;
  mode.from_mtu = 65520;
  Action mtu;
  mtu.kind = ActionKind::set_mtu;
  mtu.ifname = "ib0";
  mtu.mtu = 2044;
  mtu.from_mtu = 65520;
  Action up;
  up.kind = ActionKind::set_up;
  up.ifname = "ib0";
  p.actions = {mode, mtu, up};
  const auto report = apply::apply_plan(
      p, b, [] { return plan::Plan{}; }, quick());
  // 65520 is only valid in connected mode: the mode goes back first, then the MTU.
  EXPECT_EQ((std::vector<std::string>{"ib0 mode datagram", "ib0 mtu 2044", "ib0 up",
                                      "ib0 mode connected", "ib0 mtu 65520"}),
            b.calls);
  EXPECT_EQ(std::vector<std::string>{"ib0 mode back to connected, mtu back to 65520: ok"},
            report.rollback);
}

TEST(Apply, PrunedChildIsRecreatedAsItWas)
{
  RecordingBackend b;
  b.fail_on = "ib0 up";
  plan::Plan p;
  Action del;
  del.kind = ActionKind::delete_child;
  del.ifname = "ib0.8002";
  del.parent = "ib0";
  del.pkey = 0x8002;
  del.from_mode = inventory::IpoibMode::datagram;
  del.from_mtu = 2044;
  del.restore_addresses = {prefix("10.30.0.1/16")};
  del.was_up = true;
  Action up;
  up.kind = ActionKind::set_up;
  up.ifname = "ib0";
  p.actions = {del, up};
  apply::apply_plan(
      p, b, [] { return plan::Plan{}; }, quick());
  EXPECT_EQ(
      (std::vector<std::string>{"delete ib0.8002", "ib0 up", "create ib0.8002 on ib0",
                                "ib0.8002 mtu 2044", "ib0.8002 add 10.30.0.1/16", "ib0.8002 up"}),
      b.calls);
}

TEST(Apply, ReportJson)
{
  apply::Report r;
  r.host = "n1";
  r.changes = 2;
  r.done = {"~ ib0 up"};
  EXPECT_EQ(R"({"host":"n1","backend":"netlink","ok":true,"changes":2,"done":["~ ib0 up"],)"
            R"("rollback":[],"rollback_failed":[],)"
            R"("not_converged":[],"failure":null})"
            "\n",
            apply::report_to_json(r));
}

TEST(Apply, ReportJsonNetworkManager)
{
  apply::Report r;
  r.host = "n1";
  r.backend = apply::Backend::networkmanager;
  r.unchanged = {"ibsetup-ib0"};
  r.foreign.push_back({"ib1", "site-ib1", "u1", ""});
  r.not_converged = {"ib0 mtu: desired 4092, current 2044"};
  r.checkpoint = "/cp/1";
  r.failure = "verify against the host: verification failed: ib0 mtu: desired 4092, current 2044";
  EXPECT_EQ(R"({"host":"n1","backend":"networkmanager","ok":false,"changes":0,"done":[],)"
            R"("unchanged":["ibsetup-ib0"],)"
            R"("foreign":[{"interface":"ib1","id":"site-ib1","uuid":"u1","saved":null}],)"
            R"("rollback":[],"rollback_failed":[],)"
            R"("not_converged":["ib0 mtu: desired 4092, current 2044"],)"
            R"("checkpoint":"/cp/1","failure":"verify against the host: verification failed: )"
            R"(ib0 mtu: desired 4092, current 2044"})"
            "\n",
            apply::report_to_json(r));
}

TEST(ApplyLock, BusyNamesTheHolderAndBothCommandsThatTakeIt)
{
  const test::TempDir dir;
  const std::string path = (dir.path() / "lock").string();
  {
    const apply::ApplyLock held(path, 0);
    // A second open file description conflicts with the first, even in this process.
    const auto start = std::chrono::steady_clock::now();
    try {
      const apply::ApplyLock second(path, 1);
      ADD_FAILURE() << "the lock was taken twice";
    } catch (const Error& e) {
      EXPECT_EQ(ErrorKind::busy, e.kind());
      EXPECT_EQ("another ibsetup run (apply or firmware --apply, pid " + std::to_string(getpid()) +
                    ") holds " + path + "; waited 1 s (use --wait SECONDS to wait longer)",
                e.what());
    }
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  }
  // Released with its holder.
  EXPECT_NO_THROW({ const apply::ApplyLock again(path, 0); });
}

TEST(ApplyLock, AStopWhileWaitingEndsTheWait)
{
  const test::TempDir dir;
  const std::string path = (dir.path() / "lock").string();
  const apply::ApplyLock held(path, 0);
  int polls = 0;
  const auto start = std::chrono::steady_clock::now();
  try {
    const apply::ApplyLock second(path, 30, [&polls] { return ++polls == 3; });
    ADD_FAILURE() << "the lock was taken twice";
  } catch (const Error& e) {
    EXPECT_EQ(ErrorKind::apply_failed, e.kind());
    // apply_node adds "; nothing was changed": the lock cannot know what its caller did.
    EXPECT_EQ(
        "stopped while waiting for " + path + " (held by pid " + std::to_string(getpid()) + ")",
        e.what());
  }
  EXPECT_EQ(3, polls);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  // A callback that throws stops the wait too, with the same error.
  EXPECT_THROW(
      { const apply::ApplyLock third(path, 30, []() -> bool { throw std::runtime_error("x"); }); },
      Error);
}

TEST(ApplyLock, UnopenableFileIsAnEnvironmentError)
{
  const test::TempDir dir;
  const std::string path = (dir.path() / "missing" / "lock").string();
  try {
    const apply::ApplyLock lock(path, 0);
    ADD_FAILURE() << "locked a file in a missing directory";
  } catch (const EnvironmentError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(ApplyLock, AFileThatHoldsMoreThanAPidIsLeftAlone)
{
  const test::TempDir dir;
  const std::string hosts = (dir.path() / "hosts").string();
  const std::string text = "127.0.0.1 localhost\n";
  std::ofstream(hosts) << text;
  try {
    const apply::ApplyLock lock(hosts, 0);
    ADD_FAILURE() << "took " << hosts << " as the lock file";
  } catch (const EnvironmentError& e) {
    EXPECT_EQ("will not use " + hosts +
                  " as the lock file: it holds something other than a pid; give --lock-file a "
                  "path of its own (nothing was changed)",
              e.what());
  }
  EXPECT_EQ(text, test::read_text(hosts));
  const std::string big = (dir.path() / "big").string();
  std::ofstream(big) << std::string(40, '7');
  EXPECT_THROW({ const apply::ApplyLock lock(big, 0); }, EnvironmentError);
  const std::string fifo = (dir.path() / "fifo").string();
  ASSERT_EQ(0, mkfifo(fifo.c_str(), 0600));
  try {
    const apply::ApplyLock lock(fifo, 0);
    ADD_FAILURE() << "took a FIFO as the lock file";
  } catch (const EnvironmentError& e) {
    EXPECT_NE(std::string(e.what()).find("it is not a regular file"), std::string::npos)
        << e.what();
  }
  // A kernel setting that holds a number: regular, size 0, reads as more. This process's own
  // OOM score, so that a regression could change nothing but the test itself.
  const std::string oom = "/proc/self/oom_score_adj";
  const std::string oom_before = test::read_text(oom);
  try {
    const apply::ApplyLock lock(oom, 0);
    ADD_FAILURE() << "took " << oom << " as the lock file";
  } catch (const EnvironmentError& e) {
    EXPECT_NE(std::string(e.what()).find("a kernel file, not a lock file"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(oom_before, test::read_text(oom));
  // A device is refused before it is opened.
  try {
    const apply::ApplyLock lock("/dev/null", 0);
    ADD_FAILURE() << "took /dev/null as the lock file";
  } catch (const EnvironmentError& e) {
    EXPECT_NE(std::string(e.what()).find("it is not a regular file"), std::string::npos)
        << e.what();
  }
  // Numbers that are not one pid: several, one past any pid, 0 (they were overwritten).
  for (const char* numbers : {"123\n456\n", "99999999999999999999999\n", "4194305", "0\n"}) {
    const std::string path = (dir.path() / "numbers").string();
    std::ofstream(path, std::ios::trunc) << numbers;
    EXPECT_THROW({ const apply::ApplyLock lock(path, 0); }, EnvironmentError) << numbers;
    EXPECT_EQ(numbers, test::read_text(path));
  }
  // A symbolic link is named as one (the message was O_NOFOLLOW's "Too many levels of
  // symbolic links").
  const std::string link = (dir.path() / "link").string();
  ASSERT_EQ(0, symlink("stale", link.c_str()));
  try {
    const apply::ApplyLock lock(link, 0);
    ADD_FAILURE() << "took a symbolic link as the lock file";
  } catch (const EnvironmentError& e) {
    EXPECT_NE(std::string(e.what()).find("it is a symbolic link"), std::string::npos) << e.what();
  }
  // A stale lock file of an earlier run (its pid and a newline) is taken over.
  const std::string stale = (dir.path() / "stale").string();
  std::ofstream(stale) << "4242\n";
  EXPECT_NO_THROW({ const apply::ApplyLock lock(stale, 0); });
  EXPECT_EQ(std::to_string(getpid()) + "\n", test::read_text(stale));
}

}  // namespace
