#include "test_util.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace ibsetup::test {

TempDir::TempDir()
{
  std::string tmpl = (std::filesystem::temp_directory_path() / "ibsetup-test-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) {
    throw std::runtime_error("mkdtemp failed");
  }
  m_path = tmpl;
}

TempDir::~TempDir()
{
  if (::testing::Test::HasFailure()) {
    std::fprintf(stderr, "keeping %s for inspection\n", m_path.c_str());
    return;
  }
  std::error_code ec;
  std::filesystem::remove_all(m_path, ec);
}

}  // namespace ibsetup::test
