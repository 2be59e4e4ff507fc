#pragma once
// Model plugins: a shared library that registers models with `simulate`. In the plugin:
//
//   SIMKIT_PLUGIN(registry) { registry.add(my_model_info()); }
//
// The macro also exports the simkit ABI the plugin was built against; `simulate` refuses a
// plugin built against another one, with a message instead of a crash.
#include <string>

#include "models/model.hpp"

/// The ABI a plugin must match: simkit version, backends and compiler major version.
#define SIMKIT_PLUGIN_ABI_STRING                                                                        \
  "simkit-abi-1 " SIMKIT_ABI_VERSION_TEXT " cuda=" SIMKIT_ABI_CUDA_TEXT " gcc=" SIMKIT_ABI_GCC_TEXT
#define SIMKIT_ABI_STR2(x) #x
#define SIMKIT_ABI_STR(x) SIMKIT_ABI_STR2(x)
#ifndef SIMKIT_ABI_VERSION_TEXT
#define SIMKIT_ABI_VERSION_TEXT "0.1"
#endif
#define SIMKIT_ABI_CUDA_TEXT SIMKIT_ABI_STR(SIMKIT_HAS_CUDA)
#define SIMKIT_ABI_GCC_TEXT SIMKIT_ABI_STR(__GNUC__)

/// Defines the plugin's entry points; the body receives `sim::ModelRegistry& NAME`.
#define SIMKIT_PLUGIN(registry)                                                                        \
  static void simkit_plugin_register(sim::ModelRegistry& registry);                                   \
  extern "C" __attribute__((visibility("default"))) const char* simkit_plugin_abi() {                 \
    return SIMKIT_PLUGIN_ABI_STRING;                                                                  \
  }                                                                                                   \
  extern "C" __attribute__((visibility("default"))) void simkit_plugin_register_models(sim::ModelRegistry& r) { \
    simkit_plugin_register(r);                                                                        \
  }                                                                                                   \
  static void simkit_plugin_register(sim::ModelRegistry& registry)

namespace sim {

/// Loads the plugin at path and registers its models; throws Error for a missing file, a
/// library without simkit entry points, or one built against another simkit ABI.
void load_plugin(const std::string& path, ModelRegistry& registry);

}  // namespace sim
