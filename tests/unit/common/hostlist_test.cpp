#include <ibsetup/hostlist.hpp>

#include "gtest_compat.hpp"

#include <algorithm>

using namespace ibsetup;

namespace {

using V = std::vector<std::string>;

TEST(Hostlist, ExpandsRangesKeepingWidth)
{
  EXPECT_EQ((V{"cn001", "cn002", "cn003"}), expand_hostlist("cn[001-003]"));
  EXPECT_EQ((V{"gpu09", "gpu10"}), expand_hostlist("gpu[09-10]"));
  EXPECT_EQ((V{"n8", "n9", "n10"}), expand_hostlist("n[8-10]"));
}

TEST(Hostlist, CommaListsAndSingles)
{
  EXPECT_EQ((V{"a1", "a3", "a4", "login", "b2"}), expand_hostlist("a[1,3-4],login,b2"));
}

TEST(Hostlist, SeveralBracketsMakeAProduct)
{
  EXPECT_EQ((V{"r1n1", "r1n2", "r2n1", "r2n2"}), expand_hostlist("r[1-2]n[1-2]"));
  EXPECT_EQ((V{"r1-ib", "r2-ib"}), expand_hostlist("r[1-2]-ib"));
}

struct Bad {
  const char* text;
  size_t offset;
  const char* message;
};

class HostlistErrors : public ::testing::TestWithParam<Bad> {};

TEST_P(HostlistErrors, ReportPositionAndReason)
{
  const Bad b = GetParam();
  try {
    expand_hostlist(b.text, 1000);
    FAIL() << b.text << " accepted";
  } catch (const HostlistError& e) {
    EXPECT_EQ(b.offset, e.offset()) << b.text;
    EXPECT_STREQ(b.message, e.what()) << b.text;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, HostlistErrors,
    ::testing::Values(Bad{"", 0, "empty hostlist"}, Bad{"cn[1-3", 2, "'[' without a matching ']'"},
                      Bad{"cn1-3]", 5, "']' without a matching '['"},
                      Bad{"cn[3-1]", 3, "range '3-1' goes backwards"},
                      Bad{"cn[1-x]", 5, "'x' is not a number"},
                      Bad{"cn[1,,2]", 5, "empty range inside []"},
                      Bad{"cn[a[1]]", 4, "nested '[' inside []"},
                      Bad{"cn01,,cn02", 5, "empty host name"},
                      Bad{"cn 01", 2, "character ' ' is not allowed in a host name"},
                      Bad{"n[1-5000]", 0, "expands to 5000 hosts, more than 1000"},
                      Bad{"a[1-40]b[1-40]", 0, "expands to 1600 hosts, more than 1000"},
                      Bad{"a,b[1-999],c", 0, "expands to 1001 hosts, more than 1000"},
                      Bad{"n[0-18446744073709551615]", 0,
                          "expands to more than 18446744073709551614 hosts, more than 1000"}));

TEST(HostlistFold, RangesAndSingles)
{
  EXPECT_EQ("cn[003,007-009]", fold_hostlist({"cn009", "cn003", "cn008", "cn007"}));
  EXPECT_EQ("cn001", fold_hostlist({"cn001"}));
  EXPECT_EQ("", fold_hostlist({}));
  EXPECT_EQ("cn[1-3]", fold_hostlist({"cn3", "cn1", "cn2", "cn2"}));
}

TEST(HostlistFold, KeepsWrittenWidth)
{
  // Padded ranges may grow past their width; "9" and "09" are different hosts.
  EXPECT_EQ("cn[098-101]", fold_hostlist({"cn098", "cn099", "cn100", "cn101"}));
  EXPECT_EQ("n[09,9-10]", fold_hostlist({"n9", "n10", "n09"}));
  EXPECT_EQ("n[8-9,010]", fold_hostlist({"n8", "n9", "n010"}));
}

TEST(HostlistFold, PrefixesSuffixesAndPlainNames)
{
  EXPECT_EQ("cn[01-02],gpu[1-2]-ib,login",
            fold_hostlist({"login", "gpu2-ib", "cn02", "gpu1-ib", "cn01"}));
  // Only the last number folds.
  EXPECT_EQ("r1n[1-2],r2n1", fold_hostlist({"r1n1", "r1n2", "r2n1"}));
}

TEST(HostlistFold, RoundTripsThroughExpand)
{
  const std::vector<std::string> sets[] = {
      expand_hostlist("cn[001-512],gpu[01-08],login1"),
      expand_hostlist("a[1-3,5,7-9,10,012],b[0099-0101],c"),
      {"x1", "x01", "x001", "x2", "x02"},
  };
  for (const auto& hosts : sets) {
    auto expanded = expand_hostlist(fold_hostlist(hosts));
    auto want = hosts;
    std::sort(want.begin(), want.end());
    std::sort(expanded.begin(), expanded.end());
    EXPECT_EQ(want, expanded) << fold_hostlist(hosts);
  }
}

}  // namespace

TEST(HostlistMeasure, CountsHostsAndBytesWithoutExpanding)
{
  EXPECT_EQ(136U, measure_hostlist("cn[001-128],gpu[01-08]").hosts);
  EXPECT_EQ(128U * 5 + 8 * 5, measure_hostlist("cn[001-128],gpu[01-08]").bytes);
  // Unpadded numbers grow: n8 n9 n10.
  EXPECT_EQ(7U, measure_hostlist("n[8-10]").bytes);
  const auto big = measure_hostlist("x[000000-999999]");
  EXPECT_EQ(1000000U, big.hosts);
  EXPECT_EQ(7000000U, big.bytes);
  EXPECT_EQ(~0ULL, measure_hostlist("a[0-18446744073709551615]b[0-9]").hosts);
  EXPECT_EQ(~0ULL, measure_hostlist("a[0-18446744073709551615]b[0-9]").bytes);
}

TEST(HostlistMeasure, AgreesWithTheExpansion)
{
  for (const char* e : {"cn[001-128],gpu[01-08]", "r[1-2]n[01-04]", "a[1,3-4],login,b2",
                        "n[95-105,0999-1001]x[7-12].ib", "q[0-0]", "z[9-11][098-101]"}) {
    const auto hosts = expand_hostlist(e);
    size_t bytes = 0;
    for (const auto& h : hosts) {
      bytes += h.size();
    }
    const auto size = measure_hostlist(e);
    EXPECT_EQ(hosts.size(), size.hosts) << e;
    EXPECT_EQ(bytes, size.bytes) << e;
  }
}

std::string hostlist_error(const std::string& expression)
{
  try {
    measure_hostlist(expression);
  } catch (const HostlistError& e) {
    return std::to_string(e.offset()) + ": " + e.what();
  }
  return "accepted";
}

TEST(HostlistMeasure, RefusesNamesLongerThanAHostNameBeforeExpanding)
{
  // A 2,000-character prefix on a million numbers would be 2 GB of names.
  EXPECT_EQ("0: host names of up to 2006 characters; a host name has at most 253",
            hostlist_error(std::string(2000, 'a') + "[000000-999999]"));
  const std::string labels = std::string(63, 'a') + "." + std::string(63, 'b') + "." +
                             std::string(63, 'c') + "." + std::string(60, 'd');
  EXPECT_EQ("4: host names of up to 254 characters; a host name has at most 253",
            hostlist_error("cn1," + labels + "[1-10]"));
  EXPECT_EQ("accepted", hostlist_error(labels + "[1-9]"));
  EXPECT_EQ(
      "0: host names with a part (between dots) of up to 64 characters; a part has at "
      "most 63",
      hostlist_error(std::string(60, 'a') + "[1-1000].ib"));
  EXPECT_EQ("accepted", hostlist_error(std::string(60, 'a') + "[1-999].ib"));
}
