#pragma once
// sim::one_block(ctx, "name", f): runs f(team) on one block of GPU threads (once, serially, on
// the CPU). For a chain of small passes that would each cost a kernel launch: the team spreads
// each pass over its threads (team.for_each) and waits for all of them between passes
// (team.sync()). Multigrid's coarse levels are the use: a dozen passes over a few thousand
// cells each become one launch.
//
//   struct Chain {
//     View<double, 2> a, b;
//     SIM_INLINE void operator()(const sim::BlockTeam& team) const {
//       team.for_each(box, First{a});   team.sync();
//       team.for_each(box, Second{a, b});
//     }
//   };
//   sim::one_block(ctx, "my::chain", Chain{a, b});
//
// One block runs on one of the GPU's multiprocessors: use it for work of a few thousand points.
#include "core/runtime/context.hpp"
#include "core/detail/dispatch.hpp"
#include "core/runtime/types.hpp"
#if SIM_TU_HAS_CUDA
#include <cuda_runtime.h>

#include "core/cuda/check.hpp"
#endif

namespace sim {

/// The threads of a one_block launch, as the function sees them.
struct BlockTeam {
  /// Runs f(i, j) for every point of the 2D box, spread over the team (no wait at the end).
  template <class F>
  SIM_INLINE void for_each(const Box<2>& b, const F& f) const {
    const index_t n1 = b.extent(1), n = b.extent(0) * n1;
#ifdef __CUDA_ARCH__
    for (index_t t = threadIdx.x; t < n; t += blockDim.x) {
#else
    for (index_t t = 0; t < n; ++t) {
#endif
      const index_t i = t / n1;
      f(b.lo[0] + i, b.lo[1] + (t - i * n1));
    }
  }
  /// Waits until every thread of the team has finished the passes before (nothing to wait for on the CPU).
  SIM_INLINE void sync() const {
#ifdef __CUDA_ARCH__
    __syncthreads();
#endif
  }
};

#if SIM_TU_HAS_CUDA
namespace gpu {
/// Threads of a one_block launch (at most 128 registers each).
constexpr int one_block_threads = 512;

template <class F>
__global__ void __launch_bounds__(one_block_threads) one_block_kernel(F f) {
  f(BlockTeam{});
}
}  // namespace gpu
#endif

inline namespace SIM_TU_NS {

/// Runs f(team) on one block of threads of ctx's GPU (asynchronously), or once on the CPU.
template <class F>
void one_block(const Context& ctx, const char* name, const F& f) {
  if (ctx.is_cuda()) {
#if SIM_TU_HAS_CUDA
    auto stream = static_cast<cudaStream_t>(ctx.stream());
    gpu::one_block_kernel<<<1, gpu::one_block_threads, 0, stream>>>(f);
    SIM_CUDA_CHECK_LAUNCH(name, stream);
#else
    throw detail::not_compiled_for_cuda(name);
#endif
  } else {
    f(BlockTeam{});
  }
}

}  // namespace SIM_TU_NS
}  // namespace sim
