#pragma once
// sim::ForEachReduce<Acc, Op>: runs f(i[, j[, k]]) at every point of a box, as for_each does (f
// may write fields), and reduces the values f returns with op into *out, in an order fixed by
// the box alone (the same bits on every run): a reduction fused into a pass. ForEachSum adds
// doubles. *out is memory kernels read: device memory on a GPU, host memory on the CPU. A
// function then(), run once after the result is written, can act on it
// (CG computes alpha from p . A p there): on a GPU the whole of it is one launch, each block
// summing its points and the last block to finish summing the blocks' sums and running then.
//
//   sim::ForEachSum sum(ctx);
//   sum.queue("cg::update_x_r", box, UpdateAndNorm{...}, slot, Check{...});
//
// Recordable (graph.hpp): its scratch is allocated once, at construction.
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "core/runtime/context.hpp"
#include "core/cpu/for_each.hpp"
#include "core/detail/dispatch.hpp"
#include "core/runtime/types.hpp"
#include "core/array/array.hpp"
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
SIM_INLINE auto call_at_row(const Box<Rank>& b, index_t r, index_t c, const F& f) {
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
/// *p read past the (incoherent) L1 cache: another block wrote it (Acc: a whole number of doubles).
template <class Acc>
__device__ Acc load_cg(const Acc* p) {
  static_assert(sizeof(Acc) % sizeof(double) == 0, "ForEachReduce's values are made of doubles");
  double d[sizeof(Acc) / sizeof(double)];
  for (std::size_t k = 0; k < sizeof(Acc) / sizeof(double); ++k) d[k] = __ldcg(reinterpret_cast<const double*>(p) + k);
  Acc a;
  memcpy(&a, d, sizeof a);
  return a;
}
constexpr int sum_threads = 256;
/// The most blocks of a ForEachSum launch (its partial sums' slots).
constexpr index_t sum_blocks_max = 2048;

/// A block's threads' values reduced with op in a fixed tree; every thread gets the result.
template <class Acc, class Op>
SIM_INLINE Acc block_reduce(Acc v, Acc* shared, const Op& op) {
#ifdef __CUDA_ARCH__
  const int t = int(threadIdx.y * blockDim.x + threadIdx.x);
  shared[t] = v;
  __syncthreads();
  for (int w = sum_threads / 2; w > 0; w >>= 1) {
    if (t < w) shared[t] = op(shared[t], shared[t + w]);
    __syncthreads();
  }
  const Acc total = shared[0];
  __syncthreads();
  return total;
#else
  (void)shared, (void)op;
  return v;
#endif
}

template <int Rank, class Acc, class Op, class F, class Then>
__global__ void __launch_bounds__(sum_threads) for_each_reduce_kernel(Box<Rank> b, index_t rows, index_t n_last, F f, Op op,
                                                                      Acc init, Then then, Acc* partial, unsigned* done,
                                                                      Acc* out) {
  __shared__ Acc shared[sum_threads];
  __shared__ bool last;
  const index_t c = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  Acc acc = init;
  if (c < n_last)
    for (index_t r = index_t(blockIdx.y) * blockDim.y + threadIdx.y; r < rows; r += index_t(gridDim.y) * blockDim.y)
      acc = op(acc, call_at_row(b, r, c, f));
  const Acc mine = block_reduce(acc, shared, op);
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
  Acc a = init;
  for (unsigned k = unsigned(t); k < blocks; k += sum_threads) a = op(a, load_cg(partial + k));
  const Acc total = block_reduce(a, shared, op);
  if (t == 0) {
    *out = total;
    *done = 0;
    then();
  }
}
}  // namespace gpu
#endif

inline namespace SIM_TU_NS {

/// A 2D function with a member row(i, j0, j1, op, init) returning op(...op(op(init, f(i, j0)),
/// f(i, j0 + 1))..., f(i, j1 - 1)) gets whole rows on the cpu backend (see cpu::has_rows).
template <class F, int Rank, class = void>
struct has_reduce_rows : std::false_type {};
template <class F>
struct has_reduce_rows<F, 2, std::void_t<typename F::cpu_reduce_rows>> : std::true_type {};

/// A pass whose function's values are reduced with Op into memory kernels read (see above).
template <class Acc, class Op>
class ForEachReduce {
 public:
  ForEachReduce() = default;
  /// A reducing pass on ctx with op, whose identity is init (allocates its scratch on a GPU).
  explicit ForEachReduce(const Context& ctx, Op op = {}, Acc init = Acc{}) : ctx_(ctx), op_(op), init_(init) {
#if SIM_TU_HAS_CUDA
    if (ctx.is_cuda()) {  // the partial results, then the finished-block counter (0 between launches)
      const index_t words = (index_t(sizeof(Acc)) * gpu::sum_blocks_max + index_t(sizeof(double)) - 1) / index_t(sizeof(double));
      scratch_ = Array<double, 1>(ctx, Extents<1>{{words + 1}});
      scratch_.fill(0.0);
    }
#endif
  }

  /// Queues f at every point of box, the reduction of its values into *out, then then().
  template <int Rank, class F, class Then = NothingAfter>
  void queue(const char* name, const Box<Rank>& box, const F& f, Acc* out, const Then& then = {}) {
    const index_t n_last = box.size() == 0 ? 0 : box.extent(Rank - 1), rows = n_last == 0 ? 0 : box.size() / n_last;
    if (ctx_.is_cuda()) {
#if SIM_TU_HAS_CUDA
      const unsigned bx = n_last >= 256 ? 256 : n_last > 64 ? 128 : n_last > 32 ? 64 : 32;
      const unsigned by = unsigned(gpu::sum_threads) / bx;
      const index_t gx = std::max<index_t>(1, (n_last + bx - 1) / bx);
      const index_t gy = std::max<index_t>(1, std::min<index_t>((rows + by - 1) / by, gpu::sum_blocks_max / gx));
      if (gx > gpu::sum_blocks_max) throw Error(std::string(name) + ": rows too long for ForEachSum");
      auto stream = static_cast<cudaStream_t>(ctx_.stream());
      Acc* partial = reinterpret_cast<Acc*>(scratch_.data());
      auto* done = reinterpret_cast<unsigned*>(scratch_.data() + (scratch_.size() - 1));
      gpu::for_each_reduce_kernel<Rank, Acc><<<dim3(unsigned(gx), unsigned(gy)), dim3(bx, by), 0, stream>>>(
          box, rows, n_last, f, op_, init_, then, partial, done, out);
      SIM_CUDA_CHECK_LAUNCH(name, stream);
#else
      throw detail::not_compiled_for_cuda(name);
#endif
      return;
    }
    row_results_.assign(std::size_t(rows), init_);
    Acc* results = row_results_.data();
    const Op op = op_;
    const Acc init = init_;
    cpu::for_row_chunks(rows, box.size(), [&](index_t r0, index_t r1) {  // on the pool's threads
      for (index_t r = r0; r < r1; ++r) {
        if constexpr (has_reduce_rows<F, Rank>::value) {  // the function takes whole rows (cpu only)
          results[r] = f.row(box.lo[0] + r, box.lo[1], box.hi[1], op, init);
        } else {
          Acc a = init;
          for (index_t c = 0; c < n_last; ++c) a = op(a, call_at_row(box, r, c, f));
          results[r] = a;
        }
      }
    });
    Acc total = init_;
    for (const Acc& x : row_results_) total = op_(total, x);
    *out = total;
    then();
  }

 private:
  Context ctx_;
  Op op_{};
  Acc init_{};
  Array<double, 1> scratch_;
  std::vector<Acc> row_results_;
};

/// Adds doubles.
struct AddDoubles {
  SIM_INLINE double operator()(double a, double b) const { return a + b; }
};

/// A pass whose values are summed in double.
using ForEachSum = ForEachReduce<double, AddDoubles>;

}  // namespace SIM_TU_NS
}  // namespace sim
