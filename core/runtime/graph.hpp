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
// record_loop() records a loop that the device runs: a replay repeats the body for as long
// as a flag in device memory says (CUDA graph WHILE and IF conditional nodes, set by the
// body's own last kernel), so work that decides on the device when to stop (adaptive time
// steps up to the next output time) runs as one launch with no host round trip.
#include <functional>
#include <memory>

#include "core/runtime/context.hpp"
#include "core/runtime/macros.hpp"

namespace sim {

/// What the last kernel of a looped recording's body calls with the loop's flag once it is
/// final: set(go) tells the device whether the loop goes on (record_loop). On the CPU, and
/// outside a recording, it does nothing (the loop reads the flag itself).
struct LoopSignal {
  unsigned long long handles[2] = {0, 0};  ///< the conditional nodes it opens or closes (cudaGraphConditionalHandle)
  SIM_INLINE void set(bool go) const {
#if defined(__CUDA_ARCH__)
    for (unsigned long long h : handles)
      if (h) cudaGraphSetConditional(h, go ? 1u : 0u);
#else
    (void)go;
#endif
  }
};

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
  friend Recorded record_loop(const Context& ctx, const int* flag, const std::function<void(int, const LoopSignal&)>& body);
  std::shared_ptr<Impl> impl_;
};

/// Records what fn queues on ctx's stream (a CUDA graph), without running it on the GPU; on a
/// cpu context keeps fn to call on each replay (and does not call it now either). Throws
/// Error, naming the cause, when fn waits for the device or uses another stream.
Recorded record(const Context& ctx, const std::function<void()>& fn);

/// Called by a message channel (NCCL) for a message it queues while a recording is being
/// captured: the recording then holds messages, and each replay of it marks them in flight.
void note_recorded_message();
/// True from the replay of a recording that holds messages until clear_replayed_messages():
/// a channel that may not queue its own messages beside recorded ones still running (NCCL
/// without its graph mixing support) waits for the stream first, then clears it.
bool replayed_messages_in_flight();
/// Marks the replayed messages done (the caller waited for the stream they run on).
void clear_replayed_messages();

/// Records a loop: each replay runs body(0), body(1), body(0), ... while *flag != 0 (flag in
/// memory that kernels read), the flag read before the first body and after each. body(k, s)
/// is recorded once for each k (a model's two buffer parities) and must end with a kernel that
/// calls s.set(*flag != 0) after its last write to the flag. Recordable work only (record()).
Recorded record_loop(const Context& ctx, const int* flag, const std::function<void(int, const LoopSignal&)>& body);

}  // namespace sim
