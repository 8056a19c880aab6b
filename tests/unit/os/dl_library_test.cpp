#include "os/dl_library.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <string>

using ibsetup::os::DlLibrary;

namespace {

bool contains(const std::string& s, const std::string& part)
{
  return s.find(part) != std::string::npos;
}

}  // namespace

TEST(DlLibrary, AMissingLibraryNamesItselfAndItsPackage)
{
  DlLibrary lib("libibsetup-no-such-library.so.9", "the test's own package");
  EXPECT_EQ(nullptr, lib.symbol("anything"));
  EXPECT_EQ(nullptr, lib.symbol("anything", "V_1"));
  const std::string why = lib.first_error();
  EXPECT_TRUE(contains(why,
                       "libibsetup-no-such-library.so.9 cannot be loaded (the test's own "
                       "package): "))
      << why;
}

TEST(DlLibrary, FunctionsAreFoundWithAndWithoutAVersion)
{
  DlLibrary lib("libc.so.6", "glibc");
  using Getpid = pid_t (*)();
  const auto plain = reinterpret_cast<Getpid>(lib.symbol("getpid"));
  ASSERT_NE(nullptr, plain);
  EXPECT_EQ(getpid(), plain());
  // x86_64's first glibc version node; other architectures start later.
#if defined(__x86_64__)
  const auto versioned = reinterpret_cast<Getpid>(lib.symbol("getpid", "GLIBC_2.2.5"));
  ASSERT_NE(nullptr, versioned);
  EXPECT_EQ(getpid(), versioned());
#endif
  EXPECT_EQ("", lib.first_error());
}

TEST(DlLibrary, TheFirstMissingFunctionIsTheOneReported)
{
  DlLibrary lib("libc.so.6", "glibc");
  EXPECT_EQ(nullptr, lib.symbol("ibsetup_no_such_function"));
  EXPECT_EQ(nullptr, lib.symbol("getpid", "IBSETUP_NO_SUCH_VERSION"));
  EXPECT_NE(nullptr, lib.symbol("getpid"));  // found functions do not clear it
  EXPECT_EQ("libc.so.6 has no ibsetup_no_such_function (too old?)", lib.first_error());
  DlLibrary other("libc.so.6", "glibc");
  EXPECT_EQ(nullptr, other.symbol("getpid", "IBSETUP_NO_SUCH_VERSION"));
  EXPECT_EQ("libc.so.6 has no getpid@IBSETUP_NO_SUCH_VERSION (too old?)", other.first_error());
}
