#pragma once

#include "common/strings.hpp"

namespace ibsetup::profile::detail {

template <class E, size_t N>
Setting<E> read_enum(const Entry& e, const EnumName<E> (&names)[N], Diagnostics& diags)
{
  const auto text = read_string(e, diags);
  if (!text) {
    return {};
  }
  const auto lower = util::to_lower(*text);
  std::vector<std::string> words;
  for (const auto& [word, value] : names) {
    if (lower == word) {
      return {value, e.value_mark};
    }
    words.emplace_back(word);
  }
  diags.error(e.value_mark, e.path,
              "'" + *text + "' is not one of " + util::join_alternatives(words));
  return {};
}

}  // namespace ibsetup::profile::detail
