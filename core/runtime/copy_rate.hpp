#pragma once
// The device's copy rate (bytes read plus bytes written per second): the roofline of
// memory-bound kernels, and what a run's achieved bandwidth is compared with. Measured once
// per device and kept in the user's cache ($XDG_CACHE_HOME or ~/.cache, simkit/), so a run
// does not pay for it again.
#include "core/runtime/context.hpp"

namespace sim {

/// ctx's device copy rate in bytes/s (a 256 MiB device-to-device copy on a GPU, a 64 MiB
/// memcpy per thread on the CPU; median of 5), from the cache when it holds this device.
double device_copy_rate(const Context& ctx);

}  // namespace sim
