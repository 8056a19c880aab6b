// The inverse of expand_hostlist: many host names folded into one short expression.
#include <ibsetup/hostlist.hpp>

#include <algorithm>
#include <map>
#include <tuple>

namespace ibsetup {

namespace {

bool is_digit(char c)
{
  return c >= '0' && c <= '9';
}

struct Numbered {
  unsigned long long value = 0;
  std::string text;  // as written: "007" and "7" are different hosts
};

// The width expand_hostlist gives a range whose lower bound is written as text.
size_t width_of(const std::string& text)
{
  return text.size() > 1 && text[0] == '0' ? text.size() : 0;
}

std::string pad(unsigned long long n, size_t width)
{
  std::string s = std::to_string(n);
  if (s.size() < width) {
    s.insert(0, width - s.size(), '0');
  }
  return s;
}

// "001-003,7" for the sorted numbers of one prefix/suffix pair.
std::string fold_numbers(const std::vector<Numbered>& numbers)
{
  std::string out;
  size_t i = 0;
  while (i < numbers.size()) {
    const size_t width = width_of(numbers[i].text);
    size_t j = i;
    while (j + 1 < numbers.size() && numbers[j + 1].value == numbers[j].value + 1 &&
           numbers[j + 1].text == pad(numbers[j + 1].value, width)) {
      ++j;
    }
    if (!out.empty()) {
      out += ',';
    }
    out += numbers[i].text;
    if (j > i) {
      out += '-' + numbers[j].text;
    }
    i = j + 1;
  }
  return out;
}

}  // namespace

std::string fold_hostlist(const std::vector<std::string>& hosts)
{
  // Keyed by (prefix, suffix) around the last run of digits; names without digits fold to
  // themselves. A std::map keeps the output sorted, so equal sets give equal text.
  std::map<std::pair<std::string, std::string>, std::vector<Numbered>> numbered;
  std::vector<std::string> plain;
  for (const auto& h : hosts) {
    size_t end = h.size();
    while (end > 0 && !is_digit(h[end - 1])) {
      --end;
    }
    size_t start = end;
    while (start > 0 && is_digit(h[start - 1])) {
      --start;
    }
    // Numbers too long for an unsigned long long are left unfolded.
    if (end == 0 || end - start > 18) {
      plain.push_back(h);
      continue;
    }
    Numbered n;
    n.text = h.substr(start, end - start);
    n.value = std::stoull(n.text);
    numbered[{h.substr(0, start), h.substr(end)}].push_back(std::move(n));
  }
  std::vector<std::pair<std::string, std::string>> items;  // sort key, text
  for (auto& [key, numbers] : numbered) {
    std::sort(numbers.begin(), numbers.end(), [](const Numbered& a, const Numbered& b) {
      return std::tie(a.value, a.text) < std::tie(b.value, b.text);
    });
    numbers.erase(
        std::unique(numbers.begin(), numbers.end(),
                    [](const Numbered& a, const Numbered& b) { return a.text == b.text; }),
        numbers.end());
    std::string text = key.first;
    if (numbers.size() == 1) {
      text += numbers.front().text;
    } else {
      text += '[' + fold_numbers(numbers) + ']';
    }
    text += key.second;
    items.emplace_back(key.first + '\0' + key.second, std::move(text));
  }
  for (const auto& h : plain) {
    items.emplace_back(h, h);
  }
  std::sort(items.begin(), items.end());
  items.erase(std::unique(items.begin(), items.end()), items.end());
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) {
      out += ',';
    }
    out += item.second;
  }
  return out;
}

}  // namespace ibsetup
