#include "nm/compare.hpp"

#include <algorithm>

namespace ibsetup::nm {

std::vector<std::string> differences(NMConnection* want, NMConnection* stored)
{
  GHashTable* diffs = nullptr;
  const auto flags = static_cast<NMSettingCompareFlags>(NM_SETTING_COMPARE_FLAG_IGNORE_TIMESTAMP |
                                                        NM_SETTING_COMPARE_FLAG_IGNORE_SECRETS);
  std::vector<std::string> out;
  if (nm_connection_diff(want, stored, flags, &diffs)) {
    return out;
  }
  GHashTableIter settings;
  gpointer setting_name = nullptr;
  gpointer properties = nullptr;
  g_hash_table_iter_init(&settings, diffs);
  while (g_hash_table_iter_next(&settings, &setting_name, &properties)) {
    GHashTableIter props;
    gpointer property = nullptr;
    g_hash_table_iter_init(&props, static_cast<GHashTable*>(properties));
    bool any = false;
    while (g_hash_table_iter_next(&props, &property, nullptr)) {
      out.push_back(std::string(static_cast<const char*>(setting_name)) + "." +
                    static_cast<const char*>(property));
      any = true;
    }
    if (!any) {
      out.push_back(static_cast<const char*>(setting_name));  // a whole setting on one side only
    }
  }
  g_hash_table_destroy(diffs);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ibsetup::nm
