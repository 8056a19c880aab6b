#include <ibsetup/diagnostics.hpp>

#include "common/strings.hpp"

#include <algorithm>

namespace ibsetup {

std::string Diagnostic::format() const
{
  // One line per diagnostic whatever the file name, key path or message quotes.
  std::string out = util::escape_text(file);
  if (mark.line > 0) {
    out += ':' + std::to_string(mark.line);
    if (mark.column > 0) {
      out += ':' + std::to_string(mark.column);
    }
  }
  out += ": ";
  if (severity == Severity::warning) {
    out += "warning: ";
  }
  if (!path.empty()) {
    out += util::escape_text(path) + ": ";
  }
  return out + util::escape_text(message);
}

void Diagnostics::error(Mark mark, std::string path, std::string message)
{
  m_items.push_back({Severity::error, m_file, mark, std::move(path), std::move(message)});
  ++m_errors;
}

void Diagnostics::warning(Mark mark, std::string path, std::string message)
{
  m_items.push_back({Severity::warning, m_file, mark, std::move(path), std::move(message)});
}

std::string Diagnostics::format() const
{
  std::vector<const Diagnostic*> sorted;
  sorted.reserve(m_items.size());
  for (const auto& d : m_items) {
    sorted.push_back(&d);
  }
  std::stable_sort(sorted.begin(), sorted.end(), [](const Diagnostic* a, const Diagnostic* b) {
    if (a->mark.line != b->mark.line) {
      return a->mark.line < b->mark.line;
    }
    return a->mark.column < b->mark.column;
  });
  std::string out;
  for (const auto* d : sorted) {
    out += d->format();
    out += '\n';
  }
  if (!out.empty()) {
    out.pop_back();
  }
  return out;
}

DiagnosticError::DiagnosticError(Diagnostics diagnostics)
    : InputError(diagnostics.format()), m_diagnostics(std::move(diagnostics))
{
}

}  // namespace ibsetup
