#pragma once
// sim::ForEachSum: runs f(i[, j[, k]]) at every point of a box, as for_each does (f may write
// fields), and adds up the doubles f returns into *out, in an order fixed by the box alone
// (the same bits on every run). *out is memory kernels read: device memory on a GPU, host
// memory on the CPU. A function then(), run once after the sum is written, can act on it
// (CG computes alpha from p . A p there): on a GPU the whole of it is one launch, each block
// summing its points and the last block to finish summing the blocks' sums and running then.
//
//   sim::ForEachSum sum(ctx);
//   sum.queue("cg::update_x_r", box, UpdateAndNorm{...}, slot, Check{...});
//
// Recordable (graph.hpp): its scratch is allocated once, at construction.
#include <algorithm>
#include <string>
#include <vector>

#include "core/context.hpp"
#include "core/dispatch.hpp"
#include "core/types.hpp"
#include "core/array.hpp"
#if SIM_TU_HAS_CUDA
#include <cuda_runtime.h>

#include "core/cuda/check.hpp"
#endif

namespace sim {

/// A then() for ForEachSum that does nothing.
struct NothingAfter {
  SIM_INLINE void operator()() const {}
};

/// The point of a box at row r (the outer indices, flattened) and contiguous index c.
template <int Rank, class F>
SIM_INLINE double call_at_row(const Box<Rank>& b, index_t r, index_t c, const F& f) {
  if constexpr (Rank == 1) {
    (void)r;
    return f(b.lo[0] + c);
  } else if constexpr (Rank == 2) {
    return f(b.lo[0] + r, b.lo[1] + c);
  } else {
    const index_t n1 = b.hi[1] - b.lo[1], i = r / n1;
    return f(b.lo[0] + i, b.lo[1] + (r - i * n1), b.lo[2] + c);
  }
}

#if SIM_TU_HAS_CUDA
namespace gpu {
constexpr int sum_threads = 256;
/// The most blocks of a ForEachSum launch (its partial sums' slots).
constexpr index_t sum_blocks_max = 2048;

/// A block's threads' values summed in a fixed tree; every thread gets the total.
SIM_INLINE double block_sum(double v, double* shared) {
#ifdef __CUDA_ARCH__
  const int t = int(threadIdx.y * blockDim.x + threadIdx.x);
  shared[t] = v;
  __syncthreads();
  for (int w = sum_threads / 2; w > 0; w >>= 1) {
    if (t < w) shared[t] += shared[t + w];
    __syncthreads();
  }
  const double total = shared[0];
  __syncthreads();
  return total;
#else
  (void)shared;
  return v;
#endif
}

template <int Rank, class F, class Then>
__global__ void __launch_bounds__(sum_threads) for_each_sum_kernel(Box<Rank> b, index_t rows, index_t n_last, F f,
                                                                   Then then, double* partial, unsigned* done, double* out) {
  __shared__ double shared[sum_threads];
  __shared__ bool last;
  const index_t c = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  double acc = 0;
  if (c < n_last)
    for (index_t r = index_t(blockIdx.y) * blockDim.y + threadIdx.y; r < rows; r += index_t(gridDim.y) * blockDim.y)
      acc += call_at_row(b, r, c, f);
  const double mine = block_sum(acc, shared);
  const unsigned blocks = gridDim.x * gridDim.y, me = blockIdx.y * gridDim.x + blockIdx.x;
  const int t = int(threadIdx.y * blockDim.x + threadIdx.x);
  if (t == 0) {
    partial[me] = mine;
    __threadfence();
    last = atomicAdd(done, 1u) == blocks - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  double a = 0;
  for (unsigned k = unsigned(t); k < blocks; k += sum_threads) a += __ldcg(partial + k);
  const double total = block_sum(a, shared);
  if (t == 0) {
    *out = total;
    *done = 0;
    then();
  }
}
}  // namespace gpu
#endif

inline namespace SIM_TU_NS {

class ForEachSum {
 public:
  ForEachSum() = default;
  /// A summing pass on ctx (allocates its scratch on a GPU).
  explicit ForEachSum(const Context& ctx) : ctx_(ctx) {
#if SIM_TU_HAS_CUDA
    if (ctx.is_cuda()) {
      scratch_ = Array<double, 1>(ctx, Extents<1>{{gpu::sum_blocks_max + 1}});
      scratch_.fill(0.0);  // the partial sums, then the finished-block counter (0 between launches)
    }
#endif
  }

  /// Queues f at every point of box, the sum of its values into *out, then then().
  template <int Rank, class F, class Then = NothingAfter>
  void queue(const char* name, const Box<Rank>& box, const F& f, double* out, const Then& then = {}) {
    const index_t n_last = box.size() == 0 ? 0 : box.extent(Rank - 1), rows = n_last == 0 ? 0 : box.size() / n_last;
    if (ctx_.is_cuda()) {
#if SIM_TU_HAS_CUDA
      const unsigned bx = n_last >= 256 ? 256 : n_last > 64 ? 128 : n_last > 32 ? 64 : 32;
      const unsigned by = unsigned(gpu::sum_threads) / bx;
      const index_t gx = std::max<index_t>(1, (n_last + bx - 1) / bx);
      const index_t gy = std::max<index_t>(1, std::min<index_t>((rows + by - 1) / by, gpu::sum_blocks_max / gx));
      if (gx > gpu::sum_blocks_max) throw Error(std::string(name) + ": rows too long for ForEachSum");
      auto stream = static_cast<cudaStream_t>(ctx_.stream());
      double* partial = scratch_.data();
      auto* done = reinterpret_cast<unsigned*>(partial + gpu::sum_blocks_max);
      gpu::for_each_sum_kernel<Rank><<<dim3(unsigned(gx), unsigned(gy)), dim3(bx, by), 0, stream>>>(box, rows, n_last, f, then,
                                                                                                    partial, done, out);
      SIM_CUDA_CHECK_LAUNCH(name, stream);
#else
      throw detail::not_compiled_for_cuda(name);
#endif
      return;
    }
    row_sums_.assign(std::size_t(rows), 0.0);
    double* sums = row_sums_.data();
#pragma omp parallel for schedule(static) if (box.size() > (1 << 14))
    for (index_t r = 0; r < rows; ++r) {
      double a = 0;
      for (index_t c = 0; c < n_last; ++c) a += call_at_row(box, r, c, f);
      sums[r] = a;
    }
    double total = 0;
    for (double s : row_sums_) total += s;
    *out = total;
    then();
  }

 private:
  Context ctx_;
  Array<double, 1> scratch_;
  std::vector<double> row_sums_;
};

}  // namespace SIM_TU_NS
}  // namespace sim
