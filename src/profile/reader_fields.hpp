// Typed reading of the parsed document's nodes with located errors: the only place that knows how a
// profile value is spelled in YAML.
#pragma once

#include <ibsetup/diagnostics.hpp>
#include <ibsetup/profile.hpp>

#include "profile/yaml_tree.hpp"

#include <string>
#include <utility>
#include <vector>

namespace ibsetup::profile::detail {

Mark mark_of(const YamlNode& node, Mark fallback = {});

// A key of a mapping with its value.
struct Entry {
  std::string key;
  YamlNode value;
  Mark key_mark;
  Mark value_mark;
  std::string path;  // parent path + "." + key
};

// Reads a mapping: reports a non-mapping value, duplicate keys and unknown keys (with a
// did-you-mean suggestion), then hands out known keys.
class MapReader {
public:
  MapReader(const YamlNode& node, std::string path, Mark mark, Diagnostics& diags,
            const std::vector<std::string>& known);

  bool is_map() const { return m_is_map; }
  const Entry* get(const std::string& key) const;
  const std::vector<Entry>& entries() const { return m_entries; }
  const std::string& path() const { return m_path; }
  Mark mark() const { return m_mark; }

private:
  std::string m_path;
  Mark m_mark;
  bool m_is_map = false;
  std::vector<Entry> m_entries;
};

// Reads all entries of a mapping whose keys are names chosen by the user (hosts, interfaces).
std::vector<Entry> read_named_map(const YamlNode& node, const std::string& path, Mark mark,
                                  Diagnostics& diags);

// "a mapping", "a list", "null", "a scalar"
std::string describe(const YamlNode& node);

// Each reader reports its own errors and returns an empty Setting on failure.
Setting<std::string> read_string(const Entry& e, Diagnostics& diags);
Setting<int> read_int(const Entry& e, long long min, long long max, Diagnostics& diags);
Setting<uint64_t> read_u64(const Entry& e, Diagnostics& diags);
// Any 16-bit number, as a P_Key is written ("0x8001", "32769"); the callers judge its value.
Setting<uint16_t> read_pkey_number(const Entry& e, Diagnostics& diags);
Setting<double> read_number(const Entry& e, Diagnostics& diags);
Setting<bool> read_bool(const Entry& e, Diagnostics& diags);
Setting<IpPrefix> read_prefix(const Entry& e, Family family, Diagnostics& diags);

// One word of a closed set. The sets are constant tables: a table of std::strings would be
// built by a static initializer at every load of the library, whatever the command.
template <class E>
struct EnumName {
  const char* word;
  E value;
};

// Reads one of a closed set of words (case-insensitive).
template <class E, size_t N>
Setting<E> read_enum(const Entry& e, const EnumName<E> (&names)[N], Diagnostics& diags);

// Every element of a list with its own path ("peers[2]"); reports a non-list value.
std::vector<Entry> read_list(const Entry& e, Diagnostics& diags);

}  // namespace ibsetup::profile::detail

#include "profile/reader_fields_enum.hpp"
