// Test driver for the fabric verification alone: reads a Layout written by hand from JSON
// (expectations no profile gives, such as a member the fabric lacks), verifies it through
// libibmad (umad2sim in the tests) and prints the report. cli_test.py covers
// `partitions --verify` itself.
//   fabric_verify LAYOUT.json [--json] [--ca CA] [--port N] [--timeout-ms N] [--retries N]
// LAYOUT.json: {"partitions":[{"name","pkey":"0x8001","all":"full"|"limited",
//   "members":[[HOST, DEVICE, PORT, GUID, "full"|"limited"], ...]}], "missing":[[HOST, WHAT]]}
// Exit 0 when every port matches, 1 when some differ or do not answer, 2 on bad use.
#include "partitions/verify.hpp"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

using namespace ibsetup::partitions;

namespace {

Layout read_layout(const std::string& path)
{
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error(path + ": cannot open");
  }
  const auto doc = nlohmann::json::parse(in);
  Layout l;
  for (const auto& p : doc.at("partitions")) {
    Partition part;
    part.name = p.at("name").get<std::string>();
    part.pkey =
        static_cast<uint16_t>(std::stoul(p.at("pkey").get<std::string>(), nullptr, 16) & 0x7fff);
    if (p.count("all") != 0) {
      part.all_full = p.at("all") == "full";
      part.all_limited = p.at("all") == "limited";
    }
    if (p.count("members") != 0) {
      for (const auto& m : p.at("members")) {
        Member mem;
        mem.host = m.at(0).get<std::string>();
        mem.device = m.at(1).get<std::string>();
        mem.port = m.at(2).get<int>();
        mem.guid = m.at(3).get<std::string>();
        mem.full = m.at(4) == "full";
        part.members.push_back(mem);
      }
    }
    l.partitions.push_back(part);
  }
  if (doc.count("missing") != 0) {
    for (const auto& m : doc.at("missing")) {
      l.missing.push_back({m.at(0).get<std::string>(), m.at(1).get<std::string>(), {}});
    }
  }
  return l;
}

}  // namespace

int main(int argc, char** argv)
{
  std::string layout_path;
  bool json = false;
  VerifyOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "fabric_verify: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--json") {
      json = true;
    } else if (a == "--ca") {
      options.ca = next();
    } else if (a == "--port") {
      options.port = std::stoi(next());
    } else if (a == "--timeout-ms") {
      options.timeout_ms = std::stoi(next());
    } else if (a == "--retries") {
      options.retries = std::stoi(next());
    } else if (layout_path.empty()) {
      layout_path = a;
    } else {
      std::cerr << "usage: fabric_verify LAYOUT.json [--json] [--ca CA] [--port N]\n";
      return 2;
    }
  }
  try {
    const VerifyReport report = verify_fabric(read_layout(layout_path), options);
    std::cout << (json ? format_verify_json(report) : format_verify_text(report));
    return report.ok() ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "fabric_verify: error: " << e.what() << '\n';
    return 2;
  }
}
