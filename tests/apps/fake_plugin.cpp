// A plugin that claims another simkit ABI: simulate must refuse it with a message.
namespace sim {
class ModelRegistry;
}
extern "C" __attribute__((visibility("default"))) const char* simkit_plugin_abi() { return "simkit-abi-1 9.9.9 cuda=0 gcc=1"; }
extern "C" __attribute__((visibility("default"))) void simkit_plugin_register_models(sim::ModelRegistry&) {}
