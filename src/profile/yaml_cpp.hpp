// yaml-cpp's parser, for the profiles the fast path (yaml_fast.hpp) leaves to it: anchors,
// tags, block scalars and the rest of YAML. It is built into a module of its own,
// ibsetup-yaml.so, which libibsetup loads the first time a profile needs it. Linked into the
// library, libyaml-cpp was loaded, relocated and faulted in at every start of every program,
// including the commands that read no profile and the plain profiles the fast path reads:
// about 0.4 ms of a 5 ms C++ start on the development VM (issue 15).
#pragma once

#include <yaml-cpp/eventhandler.h>

#include <string>

namespace ibsetup::profile::detail {

struct YamlSyntaxError {
  int line = 0;  // yaml-cpp's mark, from 0
  int column = 0;
  std::string message;
};

// Hands `handler` yaml-cpp's events for every document of `text`, as YAML::Parser does.
// Returns false, with `error` filled, where yaml-cpp finds a syntax error. What the handler
// throws passes through. In libibsetup, throws EnvironmentError when ibsetup-yaml.so cannot be
// loaded (yaml_cpp_loader.cpp); the test programs link the parser in (yaml_cpp_linked.cpp).
bool yaml_cpp_events(const std::string& text, YAML::EventHandler& handler, YamlSyntaxError& error);

namespace yaml_cpp {

// The parser itself: what the module exports and the test programs link.
bool parse_events(const std::string& text, YAML::EventHandler& handler, YamlSyntaxError& error);

// What the module hands the library. The two exchange C++ objects (a YAML::EventHandler, whose
// virtual functions differ between yaml-cpp versions, std::string, these structs), so the
// library takes only a module of its own build: the tag names the project version, the
// yaml-cpp version and the compiler (src/CMakeLists.txt).
struct Api {
  const char* tag;
  decltype(&parse_events) parse_events_fn;
};
constexpr const char* k_entry = "ibsetup_yaml_cpp_api";
constexpr const char* k_file = "ibsetup-yaml.so";

}  // namespace yaml_cpp

}  // namespace ibsetup::profile::detail
