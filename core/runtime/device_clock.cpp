// DeviceClock (device_clock.hpp): the state in device memory, uploaded and read through a
// pinned host mirror.
#include "core/runtime/device_clock.hpp"

#if SIMKIT_HAS_CUDA
#include <cuda_runtime.h>

#include "core/cuda/check.hpp"
#endif

namespace sim {

DeviceClock::DeviceClock(const Context& ctx) : ctx_(ctx), host_(ctx, 1) {
  host_[0] = ClockState{};
  if (ctx.is_cuda()) {
    void* p = ctx.allocate(sizeof(ClockState));
    Context owner = ctx;
    device_mem_ = std::shared_ptr<void>(p, [owner](void* q) { owner.deallocate(q, sizeof(ClockState)); });
    device_ = static_cast<ClockState*>(p);
    start(host_[0]);
  } else {
    device_ = host_.data();
  }
}

void DeviceClock::start(const ClockState& s) {
  if (!ctx_.is_cuda()) {
    host_[0] = s;
    return;
  }
#if SIMKIT_HAS_CUDA
  ctx_.synchronize();  // a queued upload may still read the mirror
  host_[0] = s;
  SIM_CUDA_CHECK(cudaMemcpyAsync(device_, host_.data(), sizeof(ClockState), cudaMemcpyHostToDevice,
                                 static_cast<cudaStream_t>(ctx_.stream())));
#endif
}

const ClockState& DeviceClock::read() {
  if (!ctx_.is_cuda()) return host_[0];
#if SIMKIT_HAS_CUDA
  SIM_CUDA_CHECK(cudaMemcpyAsync(host_.data(), device_, sizeof(ClockState), cudaMemcpyDeviceToHost,
                                 static_cast<cudaStream_t>(ctx_.stream())));
  ctx_.synchronize();
#endif
  return host_[0];
}

}  // namespace sim
