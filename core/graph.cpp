// Recorded work: a CUDA graph captured from the context's stream, or the function itself on
// the CPU (graph.hpp). record_while() puts the captured graph (a child graph) under a
// conditional node that a one-thread gate kernel opens from a flag in device memory.
#include "core/graph.hpp"

#include <string>

#include "core/error.hpp"
#if SIMKIT_HAS_CUDA
#include <cuda_runtime.h>

#include "core/cuda/check.hpp"
#endif

namespace sim {

#if SIMKIT_HAS_CUDA && defined(__CUDACC__)
/// Opens the conditional node of a record_while() replay when *flag is nonzero.
__global__ void graph_gate(const int* flag, cudaGraphConditionalHandle handle) {
  cudaGraphSetConditional(handle, *flag != 0 ? 1u : 0u);
}
#endif

struct Recorded::Impl {
  Context ctx;
  std::function<void()> fn;  // cpu
  const int* flag = nullptr;  // cpu: replays run fn only while *flag != 0
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
    if (!impl_->flag || *impl_->flag != 0) impl_->fn();
    return;
  }
#if SIMKIT_HAS_CUDA
  SIM_CUDA_CHECK(cudaGraphLaunch(impl_->exec, static_cast<cudaStream_t>(impl_->ctx.stream())));
#endif
}

#if SIMKIT_HAS_CUDA
namespace {

/// Runs fn with the stream capturing and returns the captured graph; throws Error naming the
/// cause when it cannot, with the capture's error cleared.
cudaGraph_t capture(cudaStream_t stream, const std::function<void()>& fn) {
  // thread-local: a background thread's CUDA calls (the snapshot writer) do not break the capture
  SIM_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  std::string failure;
  try {
    fn();
  } catch (const std::exception& e) {
    failure = e.what();
  }
  cudaGraph_t captured = nullptr;
  const cudaError_t end = cudaStreamEndCapture(stream, &captured);
  if (!failure.empty() || end != cudaSuccess) {
    if (captured) cudaGraphDestroy(captured);
    cudaGetLastError();  // clear the capture error so the context stays usable
    throw Error("sim::record: the work could not be recorded as a CUDA graph (" +
                (failure.empty() ? std::string(cudaGetErrorString(end)) : failure) +
                "); recorded work must not wait for the device or read results on the host");
  }
  return captured;
}

/// The executable form of graph (which it destroys).
cudaGraphExec_t instantiate(cudaGraph_t graph) {
  cudaGraphExec_t exec = nullptr;
  const cudaError_t inst = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  if (inst != cudaSuccess) throw Error(std::string("sim::record: cudaGraphInstantiate failed: ") + cudaGetErrorString(inst));
  return exec;
}

/// A graph of the gate kernel reading flag and, after it, a conditional node that runs work
/// (a captured graph, which it takes) when the gate opened it.
cudaGraph_t gated_graph(const int* flag, cudaGraph_t work) {
#ifdef __CUDACC__
  cudaGraph_t graph = nullptr;
  SIM_CUDA_CHECK(cudaGraphCreate(&graph, 0));
  cudaGraphConditionalHandle handle{};
  SIM_CUDA_CHECK(cudaGraphConditionalHandleCreate(&handle, graph, 0, cudaGraphCondAssignDefault));
  cudaKernelNodeParams gate{};
  void* args[] = {const_cast<int**>(&flag), &handle};
  gate.func = reinterpret_cast<void*>(&graph_gate);
  gate.gridDim = dim3(1), gate.blockDim = dim3(1);
  gate.kernelParams = args;
  cudaGraphNode_t gate_node = nullptr, cond_node = nullptr, work_node = nullptr;
  SIM_CUDA_CHECK(cudaGraphAddKernelNode(&gate_node, graph, nullptr, 0, &gate));
  cudaGraphNodeParams cond{};
  cond.type = cudaGraphNodeTypeConditional;
  cond.conditional.handle = handle;
  cond.conditional.type = cudaGraphCondTypeIf;
  cond.conditional.size = 1;
  SIM_CUDA_CHECK(cudaGraphAddNode(&cond_node, graph, &gate_node, nullptr, 1, &cond));
  const cudaError_t added = cudaGraphAddChildGraphNode(&work_node, cond.conditional.phGraph_out[0], nullptr, 0, work);
  cudaGraphDestroy(work);  // the child node holds a copy
  if (added != cudaSuccess) {
    cudaGraphDestroy(graph);
    cudaGetLastError();
    throw Error(std::string("sim::record_while: the work cannot run under a device guard (") +
                cudaGetErrorString(added) + "): guarded work may hold kernels, copies and memsets only, no allocations");
  }
  return graph;
#else
  (void)flag, (void)work;
  throw Error("sim::record_while: graph.cpp was not compiled by nvcc");
#endif
}

}  // namespace
#endif

Recorded record(const Context& ctx, const std::function<void()>& fn) { return record_while(ctx, nullptr, fn); }

Recorded record_while(const Context& ctx, const int* flag, const std::function<void()>& fn) {
  Recorded r;
  r.impl_ = std::make_shared<Recorded::Impl>();
  r.impl_->ctx = ctx;
  if (!ctx.is_cuda()) {
    r.impl_->fn = fn;
    r.impl_->flag = flag;
    return r;
  }
#if SIMKIT_HAS_CUDA
  cudaGraph_t work = capture(static_cast<cudaStream_t>(ctx.stream()), fn);
  r.impl_->exec = instantiate(flag ? gated_graph(flag, work) : work);
#else
  (void)flag;
  throw Error("sim::record: a cuda context in a build without CUDA");
#endif
  return r;
}

}  // namespace sim
