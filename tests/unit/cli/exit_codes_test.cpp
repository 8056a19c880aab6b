// The kind -> exit code table: the documented numbers (README "Exit codes", ibsetup(8)).
#include "cli/exit_codes.hpp"

#include <gtest/gtest.h>

using namespace ibsetup;

TEST(ExitCodes, DocumentedNumbers)
{
  EXPECT_EQ(0, cli::exit_code(ErrorKind::ok));
  EXPECT_EQ(1, cli::exit_code(ErrorKind::internal));
  EXPECT_EQ(2, cli::exit_code(ErrorKind::usage));
  EXPECT_EQ(3, cli::exit_code(ErrorKind::bad_input));
  EXPECT_EQ(4, cli::exit_code(ErrorKind::environment));
  EXPECT_EQ(5, cli::exit_code(ErrorKind::check_failed));
  EXPECT_EQ(6, cli::exit_code(ErrorKind::changes_pending));
  EXPECT_EQ(7, cli::exit_code(ErrorKind::apply_failed));
  EXPECT_EQ(8, cli::exit_code(ErrorKind::busy));
  EXPECT_EQ(9, cli::exit_code(ErrorKind::reboot_required));
}

TEST(ExitCodes, ErrorsCarryTheirKind)
{
  EXPECT_EQ(ErrorKind::bad_input, InputError("x").kind());
  EXPECT_EQ(ErrorKind::environment, EnvironmentError("x").kind());
  EXPECT_EQ(ErrorKind::busy, Error(ErrorKind::busy, "x").kind());
}
