// Golden plan cases: tests/data/plan/<case>/{profile.yaml, observed.json, plan.txt}. The node
// is n1; observed.json is an inspect --json document (make_cases.py writes them).
#include "test_util.hpp"

#include <ibsetup/inventory.hpp>
#include <ibsetup/plan.hpp>
#include <ibsetup/profile.hpp>

#include "gtest_compat.hpp"

#include <cstdlib>

namespace fs = std::filesystem;
using namespace ibsetup;

namespace {

const fs::path k_cases = fs::path(IBSETUP_TEST_DATA) / "plan";

class PlanGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(PlanGolden, MatchesExpectedPlan)
{
  const fs::path dir = k_cases / GetParam();
  const auto profile = profile::load_profile((dir / "profile.yaml").string());
  const auto node = profile::resolve_node(profile, "n1");
  const auto host = inventory::host_from_json(test::read_text(dir / "observed.json"));
  const auto plan = plan::make_plan(node, host, {node.prune});
  const std::string actual = plan::plan_to_text(plan);
  if (std::getenv("IBSETUP_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(dir / "plan.txt") << actual;
  }
  EXPECT_EQ(test::read_text(dir / "plan.txt"), actual) << dir;
}

std::vector<std::string> cases()
{
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(k_cases)) {
    if (e.is_directory()) {
      out.push_back(e.path().filename().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string case_name(const ::testing::TestParamInfo<std::string>& info)
{
  std::string s = info.param;
  for (auto& c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) {
      c = '_';
    }
  }
  return s;
}

INSTANTIATE_TEST_SUITE_P(Cases, PlanGolden, ::testing::ValuesIn(cases()), case_name);

TEST(Plan, IsIdempotentOnceApplied)
{
  // After the actions of create-child, the host has everything: the plan must be empty.
  const fs::path dir = k_cases / "noop";
  const auto profile = profile::load_profile((dir / "profile.yaml").string());
  const auto node = profile::resolve_node(profile, "n1");
  const auto host = inventory::host_from_json(test::read_text(dir / "observed.json"));
  EXPECT_TRUE(plan::make_plan(node, host, {}).actions.empty());
}

TEST(Plan, JsonCarriesEachAction)
{
  const fs::path dir = k_cases / "create-child";
  const auto profile = profile::load_profile((dir / "profile.yaml").string());
  const auto node = profile::resolve_node(profile, "n1");
  const auto host = inventory::host_from_json(test::read_text(dir / "observed.json"));
  const std::string json = plan::plan_to_json(plan::make_plan(node, host, {}));
  EXPECT_NE(std::string::npos,
            json.find(R"x({"op":"create_child","interface":"ib0.8001","text":"+ create ib0.8001 )x"
                      R"x((pkey 0x8001, parent ib0, mode datagram)","parent":"ib0",)x"
                      R"x("pkey":"0x8001","mode":"datagram"})x"))
      << json;
  EXPECT_NE(std::string::npos, json.find(R"("changes":4,)")) << json;
}

// Errors are records: the interface, and the message without it; the outputs join them.
TEST(Plan, ErrorsAreRecordsOfInterfaceAndMessage)
{
  const fs::path dir = k_cases / "parent-missing";
  const auto profile = profile::load_profile((dir / "profile.yaml").string());
  const auto node = profile::resolve_node(profile, "n1");
  const auto host = inventory::host_from_json(test::read_text(dir / "observed.json"));
  const auto plan = plan::make_plan(node, host, {});
  const std::vector<plan::PlanError> expected = {
      {"ib3",
       "no such interface on this host (base IPoIB interfaces come from the HCA driver: is "
       "ib_ipoib loaded?)"},
      {"ib3.8001", "parent ib3 does not exist on this host"}};
  EXPECT_TRUE(expected == plan.errors);
  EXPECT_EQ("ib3.8001: parent ib3 does not exist on this host", plan.errors[1].str());
  EXPECT_NE(std::string::npos,
            plan::plan_to_json(plan).find(
                R"x("errors":["ib3: no such interface on this host (base IPoIB interfaces come )x"
                R"x(from the HCA driver: is ib_ipoib loaded?)","ib3.8001: parent ib3 does not )x"
                R"x(exist on this host"])x"));
}

// A library caller's Host (not read from JSON, which refuses it) may bind a netdev to a port
// its HCA does not list: the planner says the interface is on no port, and reads no port that
// is not there (it used to dereference a null port: a crash).
TEST(Plan, ANetdevOnAPortTheHcaDoesNotListIsOnNoPort)
{
  const fs::path dir = k_cases / "noop";
  const auto profile = profile::load_profile((dir / "profile.yaml").string());
  const auto node = profile::resolve_node(profile, "n1");
  auto host = inventory::host_from_json(test::read_text(dir / "observed.json"));
  ASSERT_FALSE(host.netdevs.empty());
  for (const int port : {2, 0, -5}) {
    host.netdevs[0].port = port;
    const auto plan = plan::make_plan(node, host, {});
    bool said = false;
    for (const auto& e : plan.errors) {
      said = said || (e.interface == host.netdevs[0].name &&
                      e.message.find("but it is on no HCA port") != std::string::npos);
    }
    EXPECT_TRUE(said) << port << ": " << plan::plan_to_text(plan);
  }
}

// An undeclared pkey child that cannot be pruned names itself, not a declared interface.
TEST(Plan, PruneErrorNamesTheUndeclaredChild)
{
  const fs::path dir = k_cases / "prune-on";
  const auto profile = profile::load_profile((dir / "profile.yaml").string());
  const auto node = profile::resolve_node(profile, "n1");
  auto host = inventory::host_from_json(test::read_text(dir / "observed.json"));
  for (auto& n : host.netdevs) {
    if (n.parent) {
      n.pkey.reset();
    }
  }
  const auto plan = plan::make_plan(node, host, {true});
  ASSERT_EQ(1U, plan.errors.size());
  EXPECT_EQ("ib0.8001", plan.errors[0].interface);
  EXPECT_EQ("cannot prune: its pkey cannot be read, so a rollback could not recreate it",
            plan.errors[0].message);
}

// A library caller's node name is not checked as the profile's are: the text of a refused plan
// escapes it as that of a plan that can be applied does, so it cannot forge a line.
TEST(Plan, TextEscapesTheHostOfARefusedPlan)
{
  const fs::path dir = k_cases / "parent-missing";
  const auto profile = profile::load_profile((dir / "profile.yaml").string());
  auto node = profile::resolve_node(profile, "n1");
  node.host = "n1\nplan for n1: no changes";
  const auto host = inventory::host_from_json(test::read_text(dir / "observed.json"));
  const auto plan = plan::make_plan(node, host, {});
  ASSERT_FALSE(plan.errors.empty());
  const std::string text = plan::plan_to_text(plan);
  EXPECT_EQ(std::string::npos, text.find("\nplan for n1: no changes")) << text;
  EXPECT_NE(std::string::npos, text.find("plan for n1\\nplan for n1: no changes: 2 errors"))
      << text;
}

}  // namespace
