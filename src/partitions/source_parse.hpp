// The inventory sources' parsers, fed one line at a time (inventories.cpp reads the input, the
// fuzz harness and the unit tests feed text): `inspect --json` lines, single `inspect --json`
// documents and ibnetdiscover topologies. Internal to libibsetup.
#pragma once

#include "partitions/model.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace ibsetup::partitions {

// Bounds on what a source may make ibsetup read and keep.
struct SourceLimits {
  size_t max_line = size_t{1} << 20U;     // an inspect --json line is a few KiB
  size_t max_total = size_t{256} << 20U;  // all input together (10,000 hosts fit)
  size_t max_file = size_t{4} << 20U;     // one HOST.json of a directory
  size_t max_problems = 1000;             // then one line saying how many more
  size_t max_quote = 80;                  // bytes of input quoted in a problem
};

// "0x" and 16 lowercase hex digits from "0x0C42A1030016E7E0", "0c42:a103:0016:e7e0" (sysfs)
// or "2c90300a1b2c1" (ibnetdiscover drops leading zeros); nullopt for anything else, and for 0.
std::optional<std::string> normalize_guid(std::string_view text);

// Where one read_inventories call collects what it found.
struct Collector {
  Collector(Inventories& out_, const SourceLimits& limits_) : out(out_), limits(limits_) {}
  Inventories& out;
  const SourceLimits& limits;
  size_t dropped = 0;  // problems past limits.max_problems
  // Hosts given twice with different inventories: neither is kept, nor any later one.
  std::set<std::string> conflicted;

  // Adds a problem, or only counts it once max_problems are kept.
  void problem(std::string where, std::string message);
  // Adds host unless the same host is there already: then a problem naming both places, and
  // when the two inventories differ (a cloned image, a node description naming another host)
  // the host is left out altogether, since either could be the forged one; its members are
  // then missing.
  void host(InventoryHost host);
  // The count of problems left out, as one last problem located at where (at the end).
  void finish(const std::string& where);
};

// Input quoted in a problem: at most limits.max_quote bytes, control characters escaped.
std::string quote(std::string_view text, const SourceLimits& limits);

// The host's ports and netdev bindings from one `inspect --json` document. name is what the
// input calls the host (a clush prefix, a file name; "" for a bare line): the document's
// "host" must agree with it (the same, or one the other's short name), and names the host
// when name is "". Problems of the document are added at where; nullopt when it gives no
// host to keep. column_offset: how many bytes of its line come before text ("HOST: ",
// blanks), so that a JSON error's column is the line's.
std::optional<InventoryHost> host_from_inspect(Collector& c, std::string_view text,
                                               const std::string& name, const std::string& where,
                                               size_t column_offset = 0);

// One input, fed line by line: decides by its first line that is neither empty nor a comment
// whether it is JSON lines or an ibnetdiscover topology, then parses it.
class SourceParser {
public:
  // name: how problems locate lines ("-", "topo.txt"); c receives hosts and problems.
  SourceParser(std::string name, Collector& c);
  ~SourceParser();
  SourceParser(const SourceParser&) = delete;
  SourceParser& operator=(const SourceParser&) = delete;

  // A line without its newline: its first max_line bytes in text, its whole length in length
  // (a longer line is a problem, not parsed).
  void line(std::string_view text, size_t length);
  // The end of the input: what the last block held.
  void finish();

  class Form;

private:
  std::string m_name;
  Collector& m_c;
  size_t m_number = 0;
  bool m_refused_line = false;  // a line too long to look at: the input is not "empty"
  std::unique_ptr<Form> m_form;
};

// What SourceParser hands the lines to once it knows the form.
class SourceParser::Form {
public:
  virtual ~Form() = default;
  // A line of at most limits.max_line bytes; number counts from 1.
  virtual void line(std::string_view text, size_t number) = 0;
  virtual void finish() {}
};

std::unique_ptr<SourceParser::Form> json_lines_form(const std::string& name, Collector& c);
std::unique_ptr<SourceParser::Form> topology_form(const std::string& name, Collector& c);

// Whether line (trimmed, not a comment) starts an ibnetdiscover topology.
bool looks_like_topology(std::string_view line);

// read_inventories with other limits, and "-" read from stdin_fd (tests).
Inventories read_inventories(const std::string& src, const SourceLimits& limits, int stdin_fd);

// A whole text through SourceParser (tests and the fuzz harness).
Inventories parse_source_text(std::string_view text, const std::string& name,
                              const SourceLimits& limits = SourceLimits());

}  // namespace ibsetup::partitions
