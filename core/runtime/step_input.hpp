#pragma once
// StepInput: a scalar the host sets before each step and kernels read from memory, so that
// recorded work (graph.hpp) replays with the value current at the replay, not the value at
// recording: the adaptive time step of a recorded model step, a forcing amplitude, a time.
//
//   sim::StepInput dt(ctx);
//   dt.set(next_dt);          // host side, before queuing the step
//   dt.upload();              // queued on the stream (recordable: the copy reads the host value when it runs)
//   const double* d = dt.device();  // kernels read *d
//
// On a GPU the value travels from pinned host memory by an asynchronous copy; set() waits
// for the stream only when it changes a value that a queued copy may still read. On the CPU
// device() points at the host value itself.
#include <memory>

#include "core/runtime/context.hpp"
#include "core/runtime/host_buffer.hpp"

namespace sim {

class StepInput {
 public:
  StepInput() = default;
  /// A value of 0 on ctx.
  explicit StepInput(const Context& ctx);
  /// Sets the value the next upload() sends (on a GPU, waits for the stream first when the
  /// value changes, since a queued copy may still read the old one).
  void set(double value);
  /// The value last set.
  double value() const { return host_[0]; }
  /// Queues the copy of the value to device memory on the context's stream (no-op on the CPU).
  void upload();
  /// Where kernels read the value (device memory on a GPU, the host value on the CPU).
  const double* device() const { return device_; }

 private:
  Context ctx_;
  HostBuffer<double> host_;
  double* device_ = nullptr;
  std::shared_ptr<void> device_mem_;
};

}  // namespace sim
