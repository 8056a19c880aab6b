// A module of the project's own, loaded on first use: the NetworkManager plugin
// (nm/loader.cpp) and yaml-cpp's parser (profile/yaml_cpp_loader.cpp). Each is looked for in
// a few places, and the first file that loads and answers with an interface of the right
// version is kept.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace ibsetup::os {

struct LoadedModule {
  const void* api = nullptr;  // what the entry point returned; null when no candidate would do
  std::string tried;          // when api is null: each candidate's failure, "; "-separated
};

// dlopens each of `paths` in turn (RTLD_NOW | RTLD_LOCAL) and calls its `entry`, a function
// without arguments that returns a pointer. The first whose answer `accept` takes stays loaded
// for the life of the process; the others are closed. `expected` says what was wanted, for a
// file that loads but answers otherwise ("<path>: not <expected>").
LoadedModule load_module(const std::vector<std::string>& paths, const char* entry,
                         const std::function<bool(const void*)>& accept,
                         const std::string& expected);

// The same, typed: a module's interface and, when no candidate would do, `why` followed by
// each candidate's failure.
template <typename Api>
struct Module {
  const Api* api = nullptr;
  std::string error;
};

template <typename Api>
Module<Api> load_module(const std::vector<std::string>& paths, const char* entry,
                        bool (*accept)(const Api&), const std::string& expected,
                        const std::string& why)
{
  const LoadedModule m = load_module(
      paths, entry, [accept](const void* api) { return accept(*static_cast<const Api*>(api)); },
      expected);
  Module<Api> out;
  out.api = static_cast<const Api*>(m.api);
  if (out.api == nullptr) {
    out.error = why + m.tried;
  }
  return out;
}

}  // namespace ibsetup::os
