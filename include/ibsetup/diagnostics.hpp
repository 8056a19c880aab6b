// Located messages (file:line:column: path: text) collected so that one run reports every
// problem of an input, not just the first.
#pragma once
#pragma GCC visibility push(default)  // the public API: export.hpp says why

#include <ibsetup/error.hpp>

#include <string>
#include <vector>

namespace ibsetup {

// A position in an input file, 1-based; 0 means unknown.
struct Mark {
  int line = 0;
  int column = 0;
};

enum class Severity { warning, error };

struct Diagnostic {
  Severity severity = Severity::error;
  std::string file;
  Mark mark;
  std::string path;  // key path inside the document, e.g. nodes[0].interfaces[1].mtu
  std::string message;

  // "file:line:col: path: message", with "warning: " before the path for warnings.
  std::string format() const;
};

// Collects the diagnostics of one input file.
class Diagnostics {
public:
  explicit Diagnostics(std::string file = {}) : m_file(std::move(file)) {}

  void error(Mark mark, std::string path, std::string message);
  void warning(Mark mark, std::string path, std::string message);

  bool has_errors() const { return m_errors > 0; }
  size_t error_count() const { return m_errors; }
  const std::vector<Diagnostic>& all() const { return m_items; }
  const std::string& file() const { return m_file; }

  // All diagnostics, sorted by position, one per line.
  std::string format() const;

private:
  std::string m_file;
  std::vector<Diagnostic> m_items;
  size_t m_errors = 0;
};

// Thrown when an input has errors; what() is every diagnostic, one per line.
class DiagnosticError : public InputError {
public:
  explicit DiagnosticError(Diagnostics diagnostics);
  const Diagnostics& diagnostics() const { return m_diagnostics; }

private:
  Diagnostics m_diagnostics;
};

}  // namespace ibsetup
#pragma GCC visibility pop
