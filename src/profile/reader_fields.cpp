#include "profile/reader_fields.hpp"

#include "common/strings.hpp"

#include <set>

namespace ibsetup::profile::detail {

Mark mark_of(const YamlNode& node, Mark fallback)
{
  const Mark m = node.Mark();
  return m.line <= 0 ? fallback : m;
}

std::string describe(const YamlNode& node)
{
  switch (node.kind()) {
  case YamlKind::map:
    return "a mapping";
  case YamlKind::sequence:
    return "a list";
  case YamlKind::scalar:
    return "'" + util::escape_text(node.Scalar()) + "'";
  case YamlKind::null:
  default:
    return "nothing";
  }
}

namespace {

// Why a decoded scalar (YAML escapes such as "\e" or "\u0085" already applied) cannot be
// profile text, or "": the file's own bytes are checked before parsing, escapes only here.
std::string text_problem(const std::string& s)
{
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {  // printable ASCII: nearly every byte of a profile
      ++i;
      continue;
    }
    const size_t n = util::utf8_length(s, i);
    if (n == 0) {
      return util::describe_char(s, i) + " is not UTF-8 text";
    }
    if (util::is_control(util::utf8_decode(s, i, n))) {
      return "control character " + util::describe_char(s, i) +
             " is not allowed (YAML escapes included)";
    }
    i += n;
  }
  return {};
}

std::vector<Entry> collect(const YamlNode& node, const std::string& path, Mark mark,
                           Diagnostics& diags, bool* is_map)
{
  std::vector<Entry> out;
  *is_map = false;
  if (node.IsNull()) {
    *is_map = true;
    return out;
  }
  if (!node.IsMap()) {
    diags.error(mark, path, "expected a mapping (key: value lines), got " + describe(node));
    return out;
  }
  *is_map = true;
  out.reserve(node.size());
  std::set<std::string> seen;
  for (size_t i = 0; i < node.size(); ++i) {
    const YamlNode key = node.key(i);
    Entry e;
    e.key_mark = mark_of(key, mark);
    if (!key.IsScalar()) {
      diags.error(e.key_mark, path, "keys must be plain words, got " + describe(key));
      continue;
    }
    e.key = key.Scalar();
    if (const auto problem = text_problem(e.key); !problem.empty()) {
      diags.error(e.key_mark, path, "in a key, " + problem);
      continue;
    }
    e.value = node.value(i);
    e.value_mark = mark_of(e.value, e.key_mark);
    if (e.value.IsNull() || e.value_mark.line < e.key_mark.line) {
      e.value_mark = e.key_mark;
    }
    e.path = path.empty() ? e.key : path + "." + e.key;
    if (!seen.insert(e.key).second) {
      diags.error(e.key_mark, e.path, "duplicate key '" + e.key + "'");
      continue;
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace

MapReader::MapReader(const YamlNode& node, std::string path, Mark mark, Diagnostics& diags,
                     const std::vector<std::string>& known)
    : m_path(std::move(path)), m_mark(mark)
{
  for (auto& e : collect(node, m_path, mark, diags, &m_is_map)) {
    bool ok = false;
    for (const auto& k : known) {
      ok = ok || k == e.key;
    }
    if (!ok) {
      std::string msg = "unknown key '" + e.key + "'";
      const auto suggestion = util::closest_match(e.key, known);
      if (!suggestion.empty()) {
        msg += "; did you mean '" + suggestion + "'?";
      } else {
        msg += " (known keys: " + util::join_alternatives(known, ", ") + ")";
      }
      diags.error(e.key_mark, e.path, msg);
      continue;
    }
    m_entries.push_back(std::move(e));
  }
}

const Entry* MapReader::get(const std::string& key) const
{
  for (const auto& e : m_entries) {
    if (e.key == key) {
      return &e;
    }
  }
  return nullptr;
}

std::vector<Entry> read_named_map(const YamlNode& node, const std::string& path, Mark mark,
                                  Diagnostics& diags)
{
  bool is_map = false;
  return collect(node, path, mark, diags, &is_map);
}

Setting<std::string> read_string(const Entry& e, Diagnostics& diags)
{
  if (!e.value.IsScalar()) {
    diags.error(e.value_mark, e.path, "expected a value, got " + describe(e.value));
    return {};
  }
  if (const auto problem = text_problem(e.value.Scalar()); !problem.empty()) {
    diags.error(e.value_mark, e.path, problem);
    return {};
  }
  return {e.value.Scalar(), e.value_mark};
}

Setting<uint16_t> read_pkey_number(const Entry& e, Diagnostics& diags)
{
  const auto text = read_string(e, diags);
  if (!text) {
    return {};
  }
  const auto value = util::parse_unsigned(util::trim(*text));
  if (!value || *value > 0xffff) {
    diags.error(e.value_mark, e.path,
                "'" + *text + "' is not a P_Key: expected a 16-bit number such as 0x8001");
    return {};
  }
  return {static_cast<uint16_t>(*value), e.value_mark};
}

Setting<int> read_int(const Entry& e, long long min, long long max, Diagnostics& diags)
{
  const auto text = read_string(e, diags);
  if (!text) {
    return {};
  }
  const auto value = util::parse_unsigned(util::trim(*text));
  if (!value || static_cast<long long>(*value) < min || static_cast<long long>(*value) > max ||
      *value > static_cast<uint64_t>(max)) {
    diags.error(e.value_mark, e.path,
                "'" + *text + "' is not a whole number from " + std::to_string(min) + " to " +
                    std::to_string(max));
    return {};
  }
  return {static_cast<int>(*value), e.value_mark};
}

Setting<uint64_t> read_u64(const Entry& e, Diagnostics& diags)
{
  const auto text = read_string(e, diags);
  if (!text) {
    return {};
  }
  const auto value = util::parse_unsigned(util::trim(*text));
  if (!value) {
    diags.error(e.value_mark, e.path, "'" + *text + "' is not a non-negative whole number");
    return {};
  }
  return {*value, e.value_mark};
}

Setting<double> read_number(const Entry& e, Diagnostics& diags)
{
  const auto text = read_string(e, diags);
  if (!text) {
    return {};
  }
  const auto value = util::parse_decimal(util::trim(*text));
  if (!value) {
    // Every such value (a rate, a speed, a fraction, microseconds) is a plain decimal at or
    // above zero: say so, rather than call -200 or 1e3 no number.
    diags.error(
        e.value_mark, e.path,
        "'" + *text + "' is not a plain decimal number at or above 0 (such as 200 or 12.5)");
    return {};
  }
  return {*value, e.value_mark};
}

Setting<bool> read_bool(const Entry& e, Diagnostics& diags)
{
  const auto text = read_string(e, diags);
  if (!text) {
    return {};
  }
  const auto lower = util::to_lower(*text);
  if (lower == "true" || lower == "yes" || lower == "on") {
    return {true, e.value_mark};
  }
  if (lower == "false" || lower == "no" || lower == "off") {
    return {false, e.value_mark};
  }
  diags.error(e.value_mark, e.path, "'" + *text + "' is not true or false");
  return {};
}

Setting<IpPrefix> read_prefix(const Entry& e, Family family, Diagnostics& diags)
{
  const auto text = read_string(e, diags);
  if (!text) {
    return {};
  }
  std::string why;
  auto prefix = IpPrefix::parse(util::trim(*text), family, &why);
  if (!prefix) {
    diags.error(e.value_mark, e.path, "'" + *text + "' is not a valid CIDR: " + why);
    return {};
  }
  return {*prefix, e.value_mark};
}

std::vector<Entry> read_list(const Entry& e, Diagnostics& diags)
{
  std::vector<Entry> out;
  if (e.value.IsNull()) {
    return out;
  }
  if (!e.value.IsSequence()) {
    diags.error(e.value_mark, e.path, "expected a list, got " + describe(e.value));
    return out;
  }
  for (size_t i = 0; i < e.value.size(); ++i) {
    Entry x;
    x.key = std::to_string(i);
    x.value = e.value.item(i);
    x.key_mark = mark_of(x.value, e.value_mark);
    x.value_mark = x.key_mark;
    x.path = e.path + "[" + std::to_string(i) + "]";
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace ibsetup::profile::detail
