// Recorded work: a CUDA graph captured from the context's stream, or the function itself on
// the CPU (graph.hpp).
#include "core/graph.hpp"

#include <string>

#include "core/error.hpp"
#if SIMKIT_HAS_CUDA
#include <cuda_runtime.h>

#include "core/cuda/check.hpp"
#endif

namespace sim {

struct Recorded::Impl {
  Context ctx;
  std::function<void()> fn;  // cpu
#if SIMKIT_HAS_CUDA
  cudaGraphExec_t exec = nullptr;
  ~Impl() {
    if (exec) cudaGraphExecDestroy(exec);
  }
#endif
};

void Recorded::replay() const {
  if (!impl_) throw Error("Recorded::replay: nothing was recorded");
  if (!impl_->ctx.is_cuda()) {
    impl_->fn();
    return;
  }
#if SIMKIT_HAS_CUDA
  SIM_CUDA_CHECK(cudaGraphLaunch(impl_->exec, static_cast<cudaStream_t>(impl_->ctx.stream())));
#endif
}

Recorded record(const Context& ctx, const std::function<void()>& fn) {
  Recorded r;
  r.impl_ = std::make_shared<Recorded::Impl>();
  r.impl_->ctx = ctx;
  if (!ctx.is_cuda()) {
    r.impl_->fn = fn;
    return r;
  }
#if SIMKIT_HAS_CUDA
  const auto stream = static_cast<cudaStream_t>(ctx.stream());
  // thread-local: a background thread's CUDA calls (the snapshot writer) do not break the capture
  SIM_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  std::string failure;
  try {
    fn();
  } catch (const std::exception& e) {
    failure = e.what();
  }
  cudaGraph_t graph = nullptr;
  const cudaError_t end = cudaStreamEndCapture(stream, &graph);
  if (!failure.empty() || end != cudaSuccess) {
    if (graph) cudaGraphDestroy(graph);
    cudaGetLastError();  // clear the capture error so the context stays usable
    throw Error("sim::record: the work could not be recorded as a CUDA graph (" +
                (failure.empty() ? std::string(cudaGetErrorString(end)) : failure) +
                "); recorded work must not wait for the device or read results on the host");
  }
  const cudaError_t inst = cudaGraphInstantiate(&r.impl_->exec, graph, 0);
  cudaGraphDestroy(graph);
  if (inst != cudaSuccess) throw Error(std::string("sim::record: cudaGraphInstantiate failed: ") + cudaGetErrorString(inst));
#else
  throw Error("sim::record: a cuda context in a build without CUDA");
#endif
  return r;
}

}  // namespace sim
