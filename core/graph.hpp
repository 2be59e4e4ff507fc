#pragma once
// Work recorded once and replayed many times. On a GPU, everything a function queues on the
// context's stream (kernels, cuFFT and cuBLAS calls, copies between device buffers) becomes
// one CUDA graph, which a single launch replays: the per-kernel launch cost of the host goes
// away, which is what limits small grids. On the CPU a replay simply calls the function again.
//
//   sim::Recorded two_steps = sim::record(ctx, [&] { model.step(dt); model.step(dt); });
//   for (int k = 0; k < n; k += 2) two_steps.replay();
//
// The recorded function must not wait for the device (no reductions read on the host, no
// copies to host memory) and must leave its buffers where it found them: a replay repeats the
// same kernels on the same addresses with the same arguments. A model that swaps buffers each
// step is recorded over an even number of steps. Host-side effects of the function (counters,
// swaps) happen once, while recording; record() does not run the work on the GPU.
//
// record_while() adds a guard read on the device: each replay runs the work only while a flag
// in device memory is nonzero (a CUDA graph conditional node), so work that decides on the
// device when to stop (an adaptive time step reaching the next output time) can be queued
// many times ahead and the replays past the stop do nothing.
#include <functional>
#include <memory>

#include "core/context.hpp"

namespace sim {

class Recorded {
 public:
  Recorded() = default;
  /// Runs (cpu) or launches (cuda) the recorded work once more, asynchronously on the context's stream.
  void replay() const;
  /// True when something was recorded.
  bool valid() const { return impl_ != nullptr; }

  struct Impl;

 private:
  friend Recorded record(const Context& ctx, const std::function<void()>& fn);
  friend Recorded record_while(const Context& ctx, const int* flag, const std::function<void()>& fn);
  std::shared_ptr<Impl> impl_;
};

/// Records what fn queues on ctx's stream (a CUDA graph), without running it on the GPU; on a
/// cpu context keeps fn to call on each replay (and does not call it now either). Throws
/// Error, naming the cause, when fn waits for the device or uses another stream.
Recorded record(const Context& ctx, const std::function<void()>& fn);

/// Like record(), but each replay runs the work only when *flag != 0 at that moment (flag: in
/// memory that kernels read, as from Context::allocate; the work itself may clear it).
Recorded record_while(const Context& ctx, const int* flag, const std::function<void()>& fn);

}  // namespace sim
