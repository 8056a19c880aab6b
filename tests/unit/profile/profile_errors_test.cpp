// Golden rejection cases: tests/data/profile/invalid/<case>.yaml must fail to load with exactly
// the diagnostics in <case>.err (one per line, sorted by position).
#include "test_util.hpp"

#include <ibsetup/profile.hpp>

#include "gtest_compat.hpp"

namespace fs = std::filesystem;
using namespace ibsetup;

namespace {

const fs::path k_invalid = fs::path(IBSETUP_TEST_DATA) / "profile" / "invalid";

class InvalidProfile : public ::testing::TestWithParam<std::string> {};

std::string strip_trailing_newlines(std::string s)
{
  while (!s.empty() && s.back() == '\n') {
    s.pop_back();
  }
  return s;
}

TEST_P(InvalidProfile, IsRejectedWithExactMessages)
{
  const fs::path yaml = k_invalid / (GetParam() + ".yaml");
  const fs::path err = k_invalid / (GetParam() + ".err");
  ASSERT_TRUE(fs::exists(err)) << "missing " << err;
  const std::string expected = strip_trailing_newlines(test::read_text(err));
  try {
    profile::load_profile_text(test::read_text(yaml), yaml.filename().string());
    FAIL() << yaml << " was accepted";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(expected, e.diagnostics().format());
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
  }
}

std::vector<std::string> cases()
{
  std::vector<std::string> out;
  for (const auto& p : test::files_with(k_invalid, ".yaml")) {
    out.push_back(p.stem().string());
  }
  return out;
}

std::string case_name(const ::testing::TestParamInfo<std::string>& info)
{
  std::string s = info.param;
  for (auto& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c))) {
      c = '_';
    }
  }
  return s;
}

INSTANTIATE_TEST_SUITE_P(Golden, InvalidProfile, ::testing::ValuesIn(cases()), case_name);

}  // namespace
