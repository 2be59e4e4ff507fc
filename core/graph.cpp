// Recorded work: a CUDA graph captured from the context's stream, or the function itself on
// the CPU (graph.hpp). record_while() puts the captured graph under a conditional node that
// a one-thread gate kernel opens from a flag in device memory.
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

/// Runs fn with stream capturing into graph (null: a new graph, the plain record(); else an
/// empty graph to fill: a conditional node's body) and returns the captured graph; throws
/// Error naming the cause when it cannot, with the capture's error cleared.
cudaGraph_t capture(cudaStream_t stream, cudaGraph_t graph, const std::function<void()>& fn) {
  // thread-local: a background thread's CUDA calls (the snapshot writer) do not break the capture
  if (graph) SIM_CUDA_CHECK(cudaStreamBeginCaptureToGraph(stream, graph, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal));
  else SIM_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  std::string failure;
  try {
    fn();
  } catch (const std::exception& e) {
    failure = e.what();
  }
  cudaGraph_t captured = nullptr;
  const cudaError_t end = cudaStreamEndCapture(stream, &captured);
  if (!failure.empty() || end != cudaSuccess) {
    if (captured && !graph) cudaGraphDestroy(captured);
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

/// A graph of the gate kernel reading flag and, after it, a conditional node whose body
/// (returned in body) runs when the gate opened it.
cudaGraph_t gated_graph(const int* flag, cudaGraph_t& body) {
  cudaGraph_t graph = nullptr;
  SIM_CUDA_CHECK(cudaGraphCreate(&graph, 0));
  cudaGraphConditionalHandle handle{};
  SIM_CUDA_CHECK(cudaGraphConditionalHandleCreate(&handle, graph, 0, cudaGraphCondAssignDefault));
#ifdef __CUDACC__
  cudaKernelNodeParams gate{};
  void* args[] = {const_cast<int**>(&flag), &handle};
  gate.func = reinterpret_cast<void*>(&graph_gate);
  gate.gridDim = dim3(1), gate.blockDim = dim3(1);
  gate.kernelParams = args;
  cudaGraphNode_t gate_node = nullptr;
  SIM_CUDA_CHECK(cudaGraphAddKernelNode(&gate_node, graph, nullptr, 0, &gate));
  cudaGraphNodeParams cond{};
  cond.type = cudaGraphNodeTypeConditional;
  cond.conditional.handle = handle;
  cond.conditional.type = cudaGraphCondTypeIf;
  cond.conditional.size = 1;
  cudaGraphNode_t cond_node = nullptr;
  SIM_CUDA_CHECK(cudaGraphAddNode(&cond_node, graph, &gate_node, nullptr, 1, &cond));
  body = cond.conditional.phGraph_out[0];
#else
  (void)flag, (void)body;
  throw Error("sim::record_while: graph.cpp was not compiled by nvcc");
#endif
  return graph;
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
  const auto stream = static_cast<cudaStream_t>(ctx.stream());
  if (!flag) {
    r.impl_->exec = instantiate(capture(stream, nullptr, fn));
    return r;
  }
  cudaGraph_t body = nullptr, graph = gated_graph(flag, body);
  try {
    capture(stream, body, fn);
  } catch (...) {
    cudaGraphDestroy(graph);
    cudaGetLastError();
    throw;
  }
  r.impl_->exec = instantiate(graph);
#else
  (void)flag;
  throw Error("sim::record: a cuda context in a build without CUDA");
#endif
  return r;
}

}  // namespace sim
