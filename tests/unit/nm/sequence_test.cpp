// The order of a live NetworkManager apply (nm/sequence.hpp) with faked steps: verification
// against the host runs inside the checkpoint and a host that does not match rolls back.
#include "nm/sequence.hpp"

#include <ibsetup/apply.hpp>
#include <ibsetup/nm.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

using namespace ibsetup;

namespace {

class FakeSteps : public nm::Steps {
public:
  std::vector<std::string> calls;
  std::string fail_in;  // the step that throws

  void step(const std::string& what) override
  {
    m_current = what;
    calls.push_back("step " + what);
  }
  const std::string& current() const override { return m_current; }
  void create_checkpoint() override { run("create checkpoint"); }
  void adopt() override { run("adopt"); }
  void store() override { run("add ibsetup-ib0"); }
  void check_stored() override { run("verify ibsetup-ib0"); }
  void activate() override { run("activate ibsetup-ib0"); }
  void destroy_checkpoint() override { run("destroy checkpoint"); }
  void undo() override { calls.push_back("undo"); }

private:
  void run(const std::string& what)
  {
    step(what);
    if (what == fail_in) {
      throw std::runtime_error("refused");
    }
  }
  std::string m_current;
};

plan::Plan mtu_differs()
{
  plan::Plan p;
  plan::Action a;
  a.kind = plan::ActionKind::set_mtu;
  a.ifname = "ib0";
  a.mtu = 4092;
  a.from_mtu = 2044;
  p.actions.push_back(a);
  return p;
}

nm::Options quick(int* replans, plan::Plan (*result)())
{
  nm::Options o;
  o.verify_tries = 3;
  o.verify_interval_ms = 0;
  o.replan = [replans, result] {
    ++*replans;
    return result();
  };
  return o;
}

TEST(NmSequence, HostThatDoesNotMatchRollsBackThroughTheCheckpoint)
{
  int replans = 0;
  FakeSteps steps;
  nm::Report report;
  report.changes = 2;
  nm::run_steps(steps, quick(&replans, mtu_differs), report);
  EXPECT_EQ(3, replans);  // every try, then judged
  EXPECT_EQ("verify against the host: verification failed: ib0 mtu: desired 4092, current 2044",
            report.failure);
  EXPECT_EQ(std::vector<std::string>{"ib0 mtu: desired 4092, current 2044"}, report.not_converged);
  EXPECT_EQ(0U, report.changes);
  EXPECT_EQ((std::vector<std::string>{"step create checkpoint", "step add ibsetup-ib0",
                                      "step verify ibsetup-ib0", "step activate ibsetup-ib0",
                                      "step verify against the host", "undo"}),
            steps.calls);  // never destroyed: the rollback needs the checkpoint
  EXPECT_NE(std::string::npos, apply::report_to_json(report).find(
                                   R"("not_converged":["ib0 mtu: desired 4092, current 2044"])"));
}

TEST(NmSequence, HostThatMatchesKeepsTheChanges)
{
  int replans = 0;
  FakeSteps steps;
  std::vector<std::string> progress;
  nm::Report report;
  report.changes = 2;
  auto o = quick(&replans, [] { return plan::Plan{}; });
  o.progress = [&progress](const std::string& line) { progress.push_back(line); };
  nm::run_steps(steps, o, report);
  EXPECT_TRUE(report.ok()) << report.failure;
  EXPECT_EQ(1, replans);
  EXPECT_EQ(2U, report.changes);
  EXPECT_EQ("step destroy checkpoint", steps.calls.back());
  EXPECT_EQ(std::vector<std::string>{"  verify against the host ... ok"}, progress);
}

TEST(NmSequence, StoreOnlyDoesNotReadTheHost)
{
  int replans = 0;
  FakeSteps steps;
  nm::Report report;
  auto o = quick(&replans, mtu_differs);
  o.activate = false;
  nm::run_steps(steps, o, report);
  EXPECT_TRUE(report.ok()) << report.failure;
  EXPECT_EQ(0, replans);
}

TEST(NmSequence, FailedActivationRollsBackBeforeAnyVerification)
{
  int replans = 0;
  FakeSteps steps;
  steps.fail_in = "activate ibsetup-ib0";
  nm::Report report;
  nm::run_steps(steps, quick(&replans, mtu_differs), report);
  EXPECT_EQ("activate ibsetup-ib0: refused", report.failure);
  EXPECT_EQ(0, replans);
  EXPECT_EQ("undo", steps.calls.back());
}

TEST(NmSequence, InterruptedDuringVerificationRollsBack)
{
  int replans = 0;
  FakeSteps steps;
  nm::Report report;
  auto o = quick(&replans, mtu_differs);
  o.interrupted = [] { return true; };
  nm::run_steps(steps, o, report);
  EXPECT_EQ("verify against the host: interrupted during verification", report.failure);
  EXPECT_EQ("undo", steps.calls.back());
}

}  // namespace
