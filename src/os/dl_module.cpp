#include "os/dl_module.hpp"

#include <dlfcn.h>

namespace ibsetup::os {

LoadedModule load_module(const std::vector<std::string>& paths, const char* entry,
                         const std::function<bool(const void*)>& accept,
                         const std::string& expected)
{
  LoadedModule out;
  const auto note = [&out](const std::string& why) {
    out.tried += (out.tried.empty() ? "" : "; ") + why;
  };
  for (const auto& path : paths) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      note(why != nullptr ? std::string(why) : path + ": cannot be loaded");
      continue;
    }
    using Entry = const void* (*)();
    auto fn = reinterpret_cast<Entry>(dlsym(handle, entry));
    const void* api = fn != nullptr ? fn() : nullptr;
    if (api == nullptr || !accept(api)) {
      note(path + ": not " + expected);
      dlclose(handle);
      continue;
    }
    out.api = api;
    out.tried.clear();
    return out;
  }
  return out;
}

}  // namespace ibsetup::os
