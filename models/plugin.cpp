#include "models/plugin.hpp"

#include <dlfcn.h>

#include <filesystem>

#include "core/error.hpp"

namespace sim {

void load_plugin(const std::string& path, ModelRegistry& registry) {
  if (!std::filesystem::exists(path))
    throw Error("plugin " + path + ": no such file; build the model (simkit_add_model in CMake) or fix the path");
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    throw Error("plugin " + path + ": cannot be loaded (" + (why ? why : "unknown reason") +
                "); it may have been built against another simkit; rebuild it against this one");
  }
  using AbiFn = const char* (*)();
  using RegisterFn = void (*)(ModelRegistry&);
  auto abi = reinterpret_cast<AbiFn>(dlsym(lib, "simkit_plugin_abi"));
  auto reg = reinterpret_cast<RegisterFn>(dlsym(lib, "simkit_plugin_register_models"));
  if (!abi || !reg) {
    dlclose(lib);
    throw Error("plugin " + path + ": not a simkit model plugin (no SIMKIT_PLUGIN entry points)");
  }
  const std::string theirs = abi(), ours = SIMKIT_PLUGIN_ABI_STRING;
  if (theirs != ours) {
    dlclose(lib);
    throw Error("plugin " + path + ": built against '" + theirs + "' but this simulate is '" + ours +
                "'; rebuild the plugin against this simkit");
  }
  const std::size_t before = registry.all().size();
  reg(registry);
  if (registry.all().size() == before) throw Error("plugin " + path + ": registered no model");
  // The library stays loaded for the life of the process: its code runs the models.
}

}  // namespace sim
