// Recorded work: a CUDA graph captured from the context's stream, or the function itself on
// the CPU (graph.hpp). record_loop() puts the two captured bodies (child graphs) in a WHILE
// node, the second under an IF: a one-thread gate kernel opens the loop from the flag, and
// the bodies' last kernels set both conditions (LoopSignal).
#include "core/runtime/graph.hpp"

#include <atomic>
#include <string>
#include <utility>

#include "core/runtime/error.hpp"
#if SIMKIT_HAS_CUDA
#include <cuda_runtime.h>

#include "core/cuda/check.hpp"
#endif

namespace sim {

#if SIMKIT_HAS_CUDA && defined(__CUDACC__)
/// Opens the loop of a record_loop() replay when *flag is nonzero.
__global__ void graph_gate(const int* flag, cudaGraphConditionalHandle handle) {
  cudaGraphSetConditional(handle, *flag != 0 ? 1u : 0u);
}
#endif

namespace {
// (one stream of recordings a process: the model's, on the main thread)
std::atomic<bool> message_recorded{false};  // a channel queued a message into the capture underway
std::atomic<bool> messages_in_flight{false};  // a replay holding messages may still run
}  // namespace

void note_recorded_message() { message_recorded = true; }
bool replayed_messages_in_flight() { return messages_in_flight; }
void clear_replayed_messages() { messages_in_flight = false; }

struct Recorded::Impl {
  Context ctx;
  bool holds_messages = false;                         // a channel's messages were captured (note_recorded_message)
  std::function<void()> fn;                            // cpu: record()
  std::function<void(int, const LoopSignal&)> body;    // cpu: record_loop(), while *flag != 0
  const int* flag = nullptr;
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
    if (!impl_->flag) impl_->fn();
    for (int k = 0; impl_->flag && *impl_->flag != 0; k ^= 1) impl_->body(k, LoopSignal{});
    return;
  }
#if SIMKIT_HAS_CUDA
  SIM_CUDA_CHECK(cudaGraphLaunch(impl_->exec, static_cast<cudaStream_t>(impl_->ctx.stream())));
  if (impl_->holds_messages) messages_in_flight = true;
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
  if (inst != cudaSuccess) {
    cudaGetLastError();  // cleared: left set, the next launch's check would report it as its own
    throw Error(std::string("sim::record: cudaGraphInstantiate failed: ") + cudaGetErrorString(inst));
  }
  return exec;
}

/// A conditional node of type after `after` (null: none) in graph; returns its body graph.
cudaGraph_t add_conditional(cudaGraph_t graph, cudaGraphNode_t after, cudaGraphConditionalHandle handle,
                            cudaGraphConditionalNodeType type) {
  cudaGraphNodeParams cond{};
  cond.type = cudaGraphNodeTypeConditional;
  cond.conditional.handle = handle;
  cond.conditional.type = type;
  cond.conditional.size = 1;
  cudaGraphNode_t node = nullptr;
  SIM_CUDA_CHECK(cudaGraphAddNode(&node, graph, after ? &after : nullptr, nullptr, after ? 1 : 0, &cond));
  return cond.conditional.phGraph_out[0];
}

/// Adds work (a captured graph, which it takes) to body as a child graph after `after`; returns the node.
cudaGraphNode_t add_child(cudaGraph_t body, cudaGraphNode_t after, cudaGraph_t work) {
  cudaGraphNode_t node = nullptr;
  const cudaError_t added = cudaGraphAddChildGraphNode(&node, body, after ? &after : nullptr, after ? 1 : 0, work);
  cudaGraphDestroy(work);  // the child node holds a copy
  if (added != cudaSuccess) {
    cudaGetLastError();
    throw Error(std::string("sim::record_loop: the work cannot run in a device loop (") + cudaGetErrorString(added) +
                "): looped work may hold kernels, copies and memsets only, no allocations");
  }
  return node;
}

/// The loop of record_loop(): gate(flag) -> WHILE { even -> IF { odd } }.
cudaGraph_t loop_graph(cudaStream_t stream, const int* flag, const std::function<void(int, const LoopSignal&)>& body) {
#ifdef __CUDACC__
  cudaGraph_t graph = nullptr;
  SIM_CUDA_CHECK(cudaGraphCreate(&graph, 0));
  try {
    cudaGraphConditionalHandle go{}, odd_go{};
    SIM_CUDA_CHECK(cudaGraphConditionalHandleCreate(&go, graph, 0, cudaGraphCondAssignDefault));
    SIM_CUDA_CHECK(cudaGraphConditionalHandleCreate(&odd_go, graph, 0, cudaGraphCondAssignDefault));
    // the even body decides whether the odd one runs, and (if not) that the loop ends
    const LoopSignal after_even{{odd_go, go}}, after_odd{{go, 0}};
    // each captured body is the loop's until a child node takes it (freed here on an error before)
    struct Owned {
      cudaGraph_t graph = nullptr;
      ~Owned() {
        if (graph) cudaGraphDestroy(graph);
      }
      cudaGraph_t take() { return std::exchange(graph, nullptr); }
    } even, odd;
    even.graph = capture(stream, [&] { body(0, after_even); });
    odd.graph = capture(stream, [&] { body(1, after_odd); });
    cudaKernelNodeParams gate{};
    void* args[] = {const_cast<int**>(&flag), &go};
    gate.func = reinterpret_cast<void*>(&graph_gate);
    gate.gridDim = dim3(1), gate.blockDim = dim3(1);
    gate.kernelParams = args;
    cudaGraphNode_t gate_node = nullptr;
    SIM_CUDA_CHECK(cudaGraphAddKernelNode(&gate_node, graph, nullptr, 0, &gate));
    cudaGraph_t loop = add_conditional(graph, gate_node, go, cudaGraphCondTypeWhile);
    const cudaGraphNode_t even_node = add_child(loop, nullptr, even.take());
    const cudaGraph_t branch = add_conditional(loop, even_node, odd_go, cudaGraphCondTypeIf);
    add_child(branch, nullptr, odd.take());
  } catch (...) {
    cudaGraphDestroy(graph);
    cudaGetLastError();
    throw;
  }
  return graph;
#else
  (void)stream, (void)flag, (void)body;
  throw Error("sim::record_loop: graph.cpp was not compiled by nvcc");
#endif
}

}  // namespace
#endif

Recorded record(const Context& ctx, const std::function<void()>& fn) {
  Recorded r;
  r.impl_ = std::make_shared<Recorded::Impl>();
  r.impl_->ctx = ctx;
  if (!ctx.is_cuda()) {
    r.impl_->fn = fn;
    return r;
  }
#if SIMKIT_HAS_CUDA
  message_recorded = false;
  r.impl_->exec = instantiate(capture(static_cast<cudaStream_t>(ctx.stream()), fn));
  r.impl_->holds_messages = message_recorded;
#else
  throw Error("sim::record: a cuda context in a build without CUDA");
#endif
  return r;
}

Recorded record_loop(const Context& ctx, const int* flag, const std::function<void(int, const LoopSignal&)>& body) {
  Recorded r;
  r.impl_ = std::make_shared<Recorded::Impl>();
  r.impl_->ctx = ctx;
  if (!ctx.is_cuda()) {
    r.impl_->body = body;
    r.impl_->flag = flag;
    return r;
  }
#if SIMKIT_HAS_CUDA
  message_recorded = false;
  r.impl_->exec = instantiate(loop_graph(static_cast<cudaStream_t>(ctx.stream()), flag, body));
  r.impl_->holds_messages = message_recorded;
#else
  (void)flag;
  throw Error("sim::record_loop: a cuda context in a build without CUDA");
#endif
  return r;
}

}  // namespace sim
