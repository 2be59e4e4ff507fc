// DeviceClock (device_clock.hpp): the state in device memory, uploaded and read through a
// pinned host mirror.
#include "core/runtime/device_clock.hpp"

#if SIMKIT_HAS_CUDA
#include <cuda_runtime.h>

#include "core/cuda/check.hpp"
#endif

namespace sim {

DeviceClock::DeviceClock(const Context& ctx) : ctx_(ctx), host_(ctx, 1), snapshots_(ctx, 2) {
  host_[0] = snapshots_[0] = snapshots_[1] = ClockState{};
  if (ctx.is_cuda()) {
#if SIMKIT_HAS_CUDA
    for (std::shared_ptr<void>& e : events_) {
      cudaEvent_t event = nullptr;
      SIM_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
      e = std::shared_ptr<void>(event, [](void* q) { cudaEventDestroy(static_cast<cudaEvent_t>(q)); });
    }
#endif
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

void DeviceClock::snapshot(int k) {
  if (!ctx_.is_cuda()) {
    snapshots_[std::size_t(k)] = host_[0];
    return;
  }
#if SIMKIT_HAS_CUDA
  auto stream = static_cast<cudaStream_t>(ctx_.stream());
  SIM_CUDA_CHECK(cudaMemcpyAsync(snapshots_.data() + k, device_, sizeof(ClockState), cudaMemcpyDeviceToHost, stream));
  SIM_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(events_[k].get()), stream));
#endif
}

ClockState DeviceClock::wait_snapshot(int k) {
#if SIMKIT_HAS_CUDA
  if (ctx_.is_cuda()) SIM_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(events_[k].get())));
#endif
  return snapshots_[std::size_t(k)];
}

}  // namespace sim
