#pragma once
// sim::AsyncReduction<Acc>: a reduction queued on the context's stream whose result lands in
// host memory when the stream gets there; wait() reads it. Recordable (graph.hpp): a recorded
// step can end with the reduction its next step needs (the adaptive dt's maximum speed), so
// the host waits once, for everything, instead of launching a reduction and waiting for it.
//
//   sim::AsyncReduction<double> top(ctx);
//   top.queue("max |u|", box, map, sim::ops::Maximum{}, 0.0);   // asynchronous
//   ... more work ...
//   double m = top.wait();                                      // waits for the stream
//
// On the CPU queue() reduces at once and wait() returns the value. The GPU's scratch space is
// sized by the first queue(), which must not run while recording (later ones may).
#include <cstddef>
#include <memory>

#include "core/runtime/context.hpp"
#include "core/kernels/for_each.hpp"
#include "core/kernels/for_each_reduce.hpp"
#include "core/runtime/host_buffer.hpp"
#include "core/kernels/reduce.hpp"
#if SIM_TU_HAS_CUDA
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "core/cuda/check.hpp"
#endif

namespace sim {
inline namespace SIM_TU_NS {

/// *out = value (a one-point kernel of AsyncReduction).
template <class Acc>
struct StoreReduced {
  Acc* out;
  Acc value;
  SIM_INLINE void operator()(index_t) const { *out = value; }
};

template <class Acc>
class AsyncReduction {
 public:
  AsyncReduction() = default;
  /// An empty reduction on ctx.
  explicit AsyncReduction(const Context& ctx) : ctx_(ctx), host_(ctx, 1) {}

  /// Queues the reduction of map over box with op (init: op's identity).
  template <int Rank, class Map, class Op>
  void queue(const char* name, const Box<Rank>& box, const Map& map, const Op& op, Acc init) {
    if (!ctx_.is_cuda() || box.size() == 0) {
      host_[0] = reduce(ctx_, name, box, map, op, init);
      return;
    }
#if SIM_TU_HAS_CUDA
    Acc* out = queue_on_device(name, box, map, op, init, nullptr);
    SIM_CUDA_CHECK(cudaMemcpyAsync(host_.data(), out, sizeof(Acc), cudaMemcpyDeviceToHost,
                                   static_cast<cudaStream_t>(ctx_.stream())));
#endif
  }

  /// Queues the reduction into *out, memory that kernels read (device memory on a GPU, host
  /// memory on the CPU, where it reduces at once): the result feeds the next kernels without
  /// a trip through the host. wait() does not see it.
  template <int Rank, class Map, class Op>
  void queue_into(const char* name, const Box<Rank>& box, const Map& map, const Op& op, Acc init, Acc* out) {
    if (!ctx_.is_cuda()) {
      *out = reduce(ctx_, name, box, map, op, init);
      return;
    }
    queue_on_device(name, box, map, op, init, out);
  }

  /// Like queue(), but f runs at every point of box as a for_each function does (it may write
  /// fields) and returns the value to reduce with pass's op: a reduction fused into a pass
  /// (for_each_reduce.hpp). Recordable once a queue() has sized the scratch. to_host = false
  /// leaves the result in result() only (for kernels that read it; wait() does not see it);
  /// then() runs once the result is in result() (in the pass's last block on a GPU).
  template <int Rank, class F, class Op, class Then = NothingAfter>
  void queue_each(ForEachReduce<Acc, Op>& pass, const char* name, const Box<Rank>& box, const F& f, bool to_host = true,
                  const Then& then = {}) {
    if (!ctx_.is_cuda()) {
      (void)to_host;  // (on the cpu backend the result is on the host either way)
      return pass.queue(name, box, f, host_.data(), then);
    }
#if SIM_TU_HAS_CUDA
    ensure_scratch(0);
    Acc* out = static_cast<Acc*>(scratch_.get());
    pass.queue(name, box, f, out, then);
    if (to_host)
      SIM_CUDA_CHECK(cudaMemcpyAsync(host_.data(), out, sizeof(Acc), cudaMemcpyDeviceToHost,
                                     static_cast<cudaStream_t>(ctx_.stream())));
#endif
  }

  /// Where queue() and queue_each() put the result before its copy to the host: memory that
  /// kernels read (device scratch on a GPU), so a later kernel can take it without a wait.
  const Acc* result() const { return ctx_.is_cuda() ? static_cast<const Acc*>(scratch_.get()) : host_.data(); }

  /// Waits for the stream and returns the last queued result.
  Acc wait() const {
    ctx_.synchronize();
    return host_[0];
  }


 private:
  /// Queues CUB's reduction on the GPU into out (null: the scratch's own slot), which it returns.
  template <int Rank, class Map, class Op>
  Acc* queue_on_device(const char* name, const Box<Rank>& box, const Map& map, const Op& op, Acc init, Acc* out) {
#if SIM_TU_HAS_CUDA
    auto stream = static_cast<cudaStream_t>(ctx_.stream());
    if (box.size() == 0) {  // the reduction of nothing is init
      if (!out) ensure_scratch(0), out = static_cast<Acc*>(scratch_.get());
      for_each(ctx_, name, Box<1>{{0}, {1}}, StoreReduced<Acc>{out, init});
      return out;
    }
    auto points = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), gpu::box_point<Acc>(box, map));
    std::size_t temp = 0;
    SIM_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, temp, points, static_cast<Acc*>(nullptr), box.size(), op, init, stream));
    ensure_scratch(temp);
    if (!out) out = static_cast<Acc*>(scratch_.get());
    void* work = static_cast<char*>(scratch_.get()) + 256;
    SIM_CUDA_CHECK(cub::DeviceReduce::Reduce(work, temp, points, out, box.size(), op, init, stream));
    SIM_CUDA_CHECK_LAUNCH(name, stream);
    return out;
#else
    (void)box, (void)map, (void)op, (void)init, (void)out;
    throw detail::not_compiled_for_cuda(name);
#endif
  }

  /// Sizes the GPU scratch space for temp bytes of CUB work (the first call: not while recording).
  void ensure_scratch(std::size_t temp) {
    if (scratch_ && temp + 256 <= scratch_bytes_) return;
    ctx_.synchronize();
    scratch_bytes_ = temp + 2 * sizeof(Acc) + 256;
    const Context owner = ctx_;
    const std::size_t bytes = scratch_bytes_;
    scratch_ = std::shared_ptr<void>(ctx_.allocate(bytes), [owner, bytes](void* p) { owner.deallocate(p, bytes); });
  }

  Context ctx_;
  HostBuffer<Acc> host_;
  std::shared_ptr<void> scratch_;
  std::size_t scratch_bytes_ = 0;
};

}  // namespace SIM_TU_NS
}  // namespace sim
