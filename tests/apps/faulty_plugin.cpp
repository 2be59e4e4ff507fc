// Plugins that fail while loading, built once per fault (FAULTY_PLUGIN_FAULT): simulate must
// end with exit 2, the plugin's path and its message, never "terminate called".
//   1: registration throws std::runtime_error   2: registration throws an int
//   3: a static constructor throws              4: the ABI function returns a null string
#include <stdexcept>

#include "models/plugin.hpp"

#if FAULTY_PLUGIN_FAULT == 3
namespace {
struct ThrowsWhenLoaded {
  ThrowsWhenLoaded() { throw std::runtime_error("faulty plugin: a static constructor threw"); }
} throws_when_loaded;
}  // namespace
#endif

#if FAULTY_PLUGIN_FAULT == 4
extern "C" __attribute__((visibility("default"))) const char* simkit_plugin_abi() { return nullptr; }
extern "C" __attribute__((visibility("default"))) void simkit_plugin_register_models(sim::ModelRegistry&) {}
#else
SIMKIT_PLUGIN(registry) {
  (void)registry;
#if FAULTY_PLUGIN_FAULT == 1
  throw std::runtime_error("faulty plugin: registration threw");
#elif FAULTY_PLUGIN_FAULT == 2
  throw 42;
#endif
}
#endif
