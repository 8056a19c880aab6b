// partitions: the subnet manager's partitions.conf from the profile and the hosts' inventories.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace ibsetup::partitions {
struct Layout;
}

namespace ibsetup::cli {

// partitions FILE --inventories SRC [--format opensm] [--output PATH] [--allow-missing] [--json]
//            [--verify [--ca CA] [--ca-port N]]
class PartitionsCommands {
public:
  explicit PartitionsCommands(CLI::App& app);
  // Runs `partitions` when parsed; returns its exit code, or -1.
  int run();

private:
  // --verify: the fabric's P_Key tables against the layout; the exit code.
  int verify(const partitions::Layout& layout, bool complete);

  CLI::App* m_partitions = nullptr;
  std::string m_file;
  std::string m_inventories;
  std::string m_format = "opensm";
  std::string m_output;
  bool m_allow_missing = false;
  bool m_json = false;
  bool m_quiet = false;
  bool m_verify = false;
  std::string m_ca;
  int m_ca_port = 0;
};

}  // namespace ibsetup::cli
