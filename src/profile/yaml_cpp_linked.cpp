// The test programs, built from the library's objects rather than the library, link yaml-cpp's
// parser in (yaml_cpp.hpp).
#include "profile/yaml_cpp.hpp"

namespace ibsetup::profile::detail {

bool yaml_cpp_events(const std::string& text, YAML::EventHandler& handler, YamlSyntaxError& error)
{
  return yaml_cpp::parse_events(text, handler, error);
}

}  // namespace ibsetup::profile::detail
