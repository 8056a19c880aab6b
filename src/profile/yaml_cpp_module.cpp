// ibsetup-yaml.so: yaml-cpp's parser behind one entry point (yaml_cpp.hpp says why it is a
// module). The only code of the project that links libyaml-cpp.
#include "profile/yaml_cpp.hpp"

#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include <sstream>

namespace ibsetup::profile::detail::yaml_cpp {

bool parse_events(const std::string& text, YAML::EventHandler& handler, YamlSyntaxError& error)
{
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(handler)) {
    }
  } catch (const YAML::Exception& e) {
    // Caught here so that the library needs none of yaml-cpp's symbols, its type_info included.
    error = {e.mark.line, e.mark.column, e.msg};
    return false;
  }
  return true;
}

}  // namespace ibsetup::profile::detail::yaml_cpp

extern "C" [[gnu::visibility("default")]] const ibsetup::profile::detail::yaml_cpp::Api*
ibsetup_yaml_cpp_api()
{
  static const ibsetup::profile::detail::yaml_cpp::Api api{
      IBSETUP_YAML_MODULE_TAG, &ibsetup::profile::detail::yaml_cpp::parse_events};
  return &api;
}
