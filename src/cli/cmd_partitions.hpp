// partitions: the subnet manager's partitions.conf from the profile and the hosts' inventories.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace ibsetup::cli {

// partitions FILE --inventories SRC [--format opensm] [--output PATH] [--allow-missing] [--json]
class PartitionsCommands {
public:
  explicit PartitionsCommands(CLI::App& app);
  // Runs `partitions` when parsed; returns its exit code, or -1.
  int run();

private:
  CLI::App* m_partitions = nullptr;
  std::string m_file;
  std::string m_inventories;
  std::string m_format = "opensm";
  std::string m_output;
  bool m_allow_missing = false;
  bool m_json = false;
  bool m_quiet = false;
};

}  // namespace ibsetup::cli
