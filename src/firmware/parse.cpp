// mstconfig's output. Its layout varies between mstflint/MFT versions (column widths, tabs,
// trailing spaces, header columns, the device line), so lines are classified by content, never
// by position; a line that fits no known kind is an error rather than silently skipped.
#include "common/strings.hpp"

#include <ibsetup/firmware.hpp>

#include <algorithm>
#include <cctype>
#include <sstream>

namespace ibsetup::firmware {

namespace {

bool starts_with(std::string_view s, std::string_view prefix)
{
  return s.substr(0, prefix.size()) == prefix;
}

std::vector<std::string> split_ws(std::string_view s)
{
  std::vector<std::string> out;
  std::istringstream in{std::string(s)};
  std::string word;
  while (in >> word) {
    out.push_back(word);
  }
  return out;
}

bool is_parameter_name(std::string_view s)
{
  if (s.empty() || std::isupper(static_cast<unsigned char>(s[0])) == 0) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isupper(static_cast<unsigned char>(c)) != 0 ||
           std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '_';
  });
}

// "Next Boot       New", "Default  Current  Next Boot": "Next Boot" holds a space, so the
// header is read word by word against the names mstconfig prints.
std::optional<std::vector<std::string>> parse_columns(std::string_view rest)
{
  std::vector<std::string> columns;
  const auto words = split_ws(rest);
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] == "Next" && i + 1 < words.size() && words[i + 1] == "Boot") {
      columns.emplace_back("Next Boot");
      ++i;
    } else if (words[i] == "Default" || words[i] == "Current" || words[i] == "New") {
      columns.push_back(words[i]);
    } else {
      return std::nullopt;
    }
    // A column named twice would make its values ambiguous.
    if (std::count(columns.begin(), columns.end(), columns.back()) > 1) {
      return std::nullopt;
    }
  }
  return columns;
}

// Lines mstconfig prints that carry nothing ibsetup needs.
bool is_known_note(std::string_view line)
{
  return starts_with(line, "The '*' shows parameters") ||
         starts_with(line, "Device Firmware does not support reading") ||
         line.find_first_not_of('-') == std::string_view::npos;
}

struct Parser {
  MstconfigOutput out;
  bool seen_device_header = false;
  bool seen_columns_header = false;
  bool after_prompt = false;

  void line(int number, std::string_view raw)
  {
    std::string_view text = util::trim(raw);
    if (text.empty()) {
      return;
    }
    if (after_prompt && (text == "y" || text == "n")) {
      after_prompt = false;  // the answer, echoed on its own line by some terminals
      return;
    }
    if (starts_with(text, "-E-")) {
      out.errors.emplace_back(util::trim(text.substr(3)));
      return;
    }
    if (starts_with(text, "-W-")) {
      out.warnings.emplace_back(util::trim(text.substr(3)));
      return;
    }
    if (starts_with(text, "-I-")) {
      if (text.find("reboot") != std::string_view::npos ||
          text.find("power cycle") != std::string_view::npos) {
        out.reboot_notice = true;
      }
      return;
    }
    if (text.find("write counter to semaphore") != std::string_view::npos) {
      out.semaphore_denied = true;
      return;
    }
    if (starts_with(text, "Apply new Configuration?")) {
      after_prompt = true;
      return;
    }
    if (starts_with(text, "Applying...")) {
      if (text.find("Done") == std::string_view::npos) {
        out.errors.emplace_back(text);
      } else {
        out.applied = true;
      }
      return;
    }
    if (starts_with(text, "Device #")) {
      if (seen_device_header) {
        throw ParseError(number, std::string(raw));  // ibsetup queries one device per run
      }
      seen_device_header = true;
      return;
    }
    if (is_known_note(text)) {
      return;
    }
    if (metadata(number, raw, text)) {
      return;
    }
    if (starts_with(text, "Configurations:")) {
      auto columns = parse_columns(text.substr(std::string_view("Configurations:").size()));
      // One table per run: a second header, or one after values were read, would give the
      // values read so far columns they were not printed under.
      if (!columns || seen_columns_header || !out.parameters.empty()) {
        throw ParseError(number, std::string(raw));
      }
      seen_columns_header = true;
      out.columns = *columns;
      return;
    }
    parameter(number, raw, text);
  }

  bool metadata(int number, std::string_view raw, std::string_view text)
  {
    const auto colon = text.find(':');
    if (colon == std::string_view::npos) {
      return false;
    }
    const std::string_view key = util::trim(text.substr(0, colon));
    const std::string value(util::trim(text.substr(colon + 1)));
    if (key == "Device" || key == "PCI device") {
      // One device per run: a second name would leave which device the values are of, the one
      // the query is trusted by, to the order of the lines.
      auto name = device_name(value);
      // Compared as addresses where both are ("3b:00.0" is "0000:3b:00.0"), as the query is.
      const auto same = [](const std::string& a, const std::string& b) {
        return util::pci_address(a).value_or(a) == util::pci_address(b).value_or(b);
      };
      if (out.device && !same(*out.device, name)) {
        throw ParseError(number, std::string(raw));
      }
      out.device = std::move(name);
    } else if (key == "Device type") {
      out.device_type = value;
    } else if (key != "Name" && key != "Description" && key != "FW Version") {
      return false;
    }
    return true;
  }

  // "/sys/bus/pci/devices/0000:05:00.0/config" (mstflint's "PCI device:" line) names the
  // device by its sysfs config file; the BDF in it is what -d takes.
  static std::string device_name(const std::string& value)
  {
    const std::string prefix = "/sys/bus/pci/devices/";
    if (starts_with(value, prefix)) {
      const auto end = value.find('/', prefix.size());
      return value.substr(prefix.size(), end == std::string::npos ? end : end - prefix.size());
    }
    return value;
  }

  void parameter(int number, std::string_view raw, std::string_view text)
  {
    if (starts_with(text, "*")) {
      text = util::trim(text.substr(1));  // -e marks values that differ from the default
    }
    auto words = split_ws(text);
    const size_t want = out.columns.empty() ? 1 : out.columns.size();
    // A parameter listed twice (IB, then ETH) leaves which value holds to chance.
    const bool again =
        words.size() == want + 1 && std::any_of(out.parameters.begin(), out.parameters.end(),
                                                [&](const auto& p) { return p.first == words[0]; });
    if (words.size() != want + 1 || !is_parameter_name(words[0]) || again) {
      throw ParseError(number, std::string(raw));
    }
    std::string name = words[0];
    words.erase(words.begin());
    out.parameters.emplace_back(std::move(name), std::move(words));
  }
};

}  // namespace

ParseError::ParseError(int line, const std::string& text)
    : EnvironmentError("line " + std::to_string(line) +
                       " of mstconfig's output is not understood: '" + text + "'"),
      m_line(line)
{
}

std::optional<std::string> MstconfigOutput::value(const std::string& name,
                                                  const std::string& column) const
{
  for (const auto& [param, values] : parameters) {
    if (param != name) {
      continue;
    }
    if (columns.empty()) {
      return column == "Next Boot" && values.size() == 1 ? std::optional(values[0]) : std::nullopt;
    }
    const auto it = std::find(columns.begin(), columns.end(), column);
    if (it == columns.end()) {
      return std::nullopt;
    }
    const auto index = static_cast<size_t>(it - columns.begin());
    return index < values.size() ? std::optional(values[index]) : std::nullopt;
  }
  return std::nullopt;
}

MstconfigOutput parse_mstconfig(const std::string& text)
{
  Parser parser;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    parser.line(++number, line);
  }
  return parser.out;
}

std::optional<profile::LinkType> parse_link_type(const std::string& value)
{
  std::string name = value;
  std::string number;
  const auto open = value.find('(');
  if (open != std::string::npos && !value.empty() && value.back() == ')') {
    name = value.substr(0, open);
    number = value.substr(open + 1, value.size() - open - 2);
  }
  static const std::vector<std::pair<std::string, profile::LinkType>> k_names{
      {"IB", profile::LinkType::ib},
      {"ETH", profile::LinkType::eth},
      {"VPI", profile::LinkType::vpi}};
  static const std::vector<std::pair<std::string, profile::LinkType>> k_numbers{
      {"1", profile::LinkType::ib}, {"2", profile::LinkType::eth}, {"3", profile::LinkType::vpi}};
  std::optional<profile::LinkType> by_name;
  std::optional<profile::LinkType> by_number;
  for (const auto& [n, t] : k_names) {
    if (n == name) {
      by_name = t;
    }
  }
  for (const auto& [n, t] : k_numbers) {
    if (n == (number.empty() ? name : number)) {
      by_number = t;
    }
  }
  if (number.empty()) {
    return by_name ? by_name : by_number;
  }
  // "IB(1)": both halves must exist and agree.
  return by_name && by_number && *by_name == *by_number ? by_name : std::nullopt;
}

const char* mst_name(profile::LinkType type)
{
  switch (type) {
  case profile::LinkType::ib:
    return "IB";
  case profile::LinkType::eth:
    return "ETH";
  case profile::LinkType::vpi:
  default:
    return "VPI";
  }
}

int mst_value(profile::LinkType type)
{
  switch (type) {
  case profile::LinkType::ib:
    return 1;
  case profile::LinkType::eth:
    return 2;
  case profile::LinkType::vpi:
  default:
    return 3;
  }
}

}  // namespace ibsetup::firmware
