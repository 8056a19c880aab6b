// Prometheus text exposition (format 0.0.4) built up family by family, then printed sorted, so
// that the same input gives byte-identical output whatever order it was added in.
#pragma once

#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ibsetup::check::metrics {

using Labels = std::vector<std::pair<std::string, std::string>>;

// A gauge family's name and HELP text.
struct GaugeFamily {
  const char* name;
  const char* help;
};

class Exposition {
public:
  // Declares a gauge family; every family gets its HELP and TYPE lines even without samples.
  void gauge(const std::string& name, const std::string& help);
  // Declares each of the families, as gauge() does.
  void gauges(std::initializer_list<GaugeFamily> families);
  // Sets one sample of a declared family. A second sample with the same labels as printed
  // (escape_label_value) keeps the larger value (a number over NaN): two results of one check
  // and subject are one series (a duplicate series would make node_exporter refuse the whole
  // file).
  void set(const std::string& name, const Labels& labels, double value);
  std::string str() const;

private:
  struct Family {
    std::string help;
    std::map<Labels, double> samples;
  };
  std::map<std::string, Family> m_families;
};

// A label value as the text format wants it: backslash, double quote and newline escaped,
// and every other control character (C0, DEL, C1) and every byte that is not part of valid
// UTF-8 replaced by U+FFFD (parsers refuse the file otherwise).
std::string escape_label_value(const std::string& value);

// A sample value: integers without a decimal point, others in the shortest form that reads
// back the same, and +Inf, -Inf, NaN spelled as the format spells them.
std::string format_value(double value);

}  // namespace ibsetup::check::metrics
