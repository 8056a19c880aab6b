// Inputs the fuzz harnesses (tests/fuzz) found, each with the clean outcome it must have.
//
// Their inputs are also in the harness's corpus (tests/fuzz/NAME/corpus/), which the replay
// test and every fuzz run start from.
#include "gtest_compat.hpp"

#include <ibsetup/diagnostics.hpp>
#include <ibsetup/firmware.hpp>
#include <ibsetup/profile.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace ibsetup {
namespace {

// Every lookup firmware.cpp or a caller could make on a parsed output; only ParseError (from
// the parse itself) is an acceptable exception.
void expect_clean_mstconfig(const std::string& text)
{
  firmware::MstconfigOutput out;
  try {
    out = firmware::parse_mstconfig(text);
  } catch (const firmware::ParseError&) {
    return;
  }
  for (const auto& parameter : out.parameters) {
    for (const char* column : {"Default", "Current", "Next Boot", "New"}) {
      EXPECT_NO_THROW((void)out.value(parameter.first, column))
          << parameter.first << " in column " << column;
    }
  }
}

// Fuzz finding F1 (fuzz_mstconfig, owner: the mstconfig parser): a parameter row read before
// the "Configurations:" header has fewer values than the header has columns, and
// MstconfigOutput::value() indexes the row with values.at(): std::out_of_range escapes
// (src/firmware/parse.cpp, value()), which the CLI reports as an internal error (exit 1).
TEST(FuzzRegressions, MstconfigRowShorterThanHeader)
{
  // The harness's minimised input: a one-value row "Y o", then a two-column header.
  expect_clean_mstconfig("Y o\nConfigurations:Next Boot New");
  // The same through the lookup the firmware step itself makes (the "Next Boot" column).
  expect_clean_mstconfig("LINK_TYPE_P1 ETH(2)\nConfigurations: Default Current Next Boot\n");
}

// In the death test's child: loads text bounded in time (and in address space, where no
// sanitizer needs a large one), so that a loader that loops or allocates without end fails the
// test instead of hanging it or exhausting the machine. Exits 0 on the DiagnosticError expected.
[[noreturn]] void load_bounded(const std::string& text)
{
  alarm(10);
#if !defined(__SANITIZE_ADDRESS__)
  const rlimit cap{1UL << 30U, 1UL << 30U};
  setrlimit(RLIMIT_AS, &cap);
#endif
  try {
    (void)profile::load_profile_text(text, "fuzz.yaml");
  } catch (const DiagnosticError&) {
    std::_Exit(0);
  } catch (...) {
    std::_Exit(2);
  }
  std::_Exit(3);  // loaded: not what this input should give either
}

// Fuzz finding F2 (fuzz_profile, owner: the YAML guard/loader): a document that starts with a
// flow entry ',' at the top level, on which yaml-cpp's YAML::LoadAll never returns, allocating
// a null document per turn until memory runs out (yaml-cpp issue 1040, fixed upstream after
// 0.8.0 by pull request 1319; both 0.6.2 of Rocky 8 and 0.7.0 of Debian 12 loop). `ibsetup
// validate` on such a file ends after ~14 s with "internal error: std::bad_alloc" (exit 1) under
// a 1 GiB cap and grows without bound without one. Stack: YAML::LoadAll <- load_profile_text
// (src/profile/load.cpp, the LoadAll call after guard_text). It must be a DiagnosticError
// (exit 3) found before yaml-cpp is given the text.
TEST(FuzzRegressions, ProfileYamlLoadAllRunaway)
{
  // The harness's first input (14 bytes), the smallest one, and one where a valid profile
  // follows 101 commas.
  EXPECT_EXIT(load_bounded(", v: 1#\n- nod\n"), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(load_bounded(","), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(load_bounded(std::string(101, ',') + "version: 1\nnodes: []\n"),
              ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace ibsetup
