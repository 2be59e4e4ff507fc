// StepInput (step_input.hpp): pinned host value, device copy queued on the context's stream.
#include "core/runtime/step_input.hpp"

#if SIMKIT_HAS_CUDA
#include <cuda_runtime.h>

#include "core/cuda/check.hpp"
#endif

namespace sim {

StepInput::StepInput(const Context& ctx) : ctx_(ctx), host_(ctx, 1) {
  host_[0] = 0.0;
  if (ctx.is_cuda()) {
    void* p = ctx.allocate(sizeof(double));
    Context owner = ctx;
    device_mem_ = std::shared_ptr<void>(p, [owner](void* q) { owner.deallocate(q, sizeof(double)); });
    device_ = static_cast<double*>(p);
    upload();
  } else {
    device_ = host_.data();
  }
}

void StepInput::set(double value) {
  if (value == host_[0]) return;
  // a queued copy (direct or inside a replayed recording) may not have read the old value yet;
  // in an adaptive run the stream is idle here already (the dt came from a reduction)
  if (ctx_.is_cuda()) ctx_.synchronize();
  host_[0] = value;
}

void StepInput::upload() {
  if (!ctx_.is_cuda()) return;
#if SIMKIT_HAS_CUDA
  SIM_CUDA_CHECK(cudaMemcpyAsync(device_, host_.data(), sizeof(double), cudaMemcpyHostToDevice,
                                 static_cast<cudaStream_t>(ctx_.stream())));
#endif
}

}  // namespace sim
