// Where in a JSON text a failure lies, when the parser does not say: nlohmann's callback and
// its out_of_range errors carry no position. Each scans the text as the lexer read it, which it
// had read without error up to the failure; line and column count from 1, {0, 0} when not
// found.
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>

namespace ibsetup::json::detail {

// Where the array or object that opens nesting level depth + 1 starts.
std::pair<size_t, size_t> position_of_level(std::string_view text, size_t depth);
// Where the n-th member name (from 1) of the text starts: a string where an object expects a
// name (after '{' or a ',' between members), whether or not its colon follows.
std::pair<size_t, size_t> position_of_key(std::string_view text, size_t n);
// Where the first number written as `token` starts: the first such is the one that failed.
std::pair<size_t, size_t> position_of_number(std::string_view text, std::string_view token);

}  // namespace ibsetup::json::detail
