// Transpose copies; compiled by nvcc in cuda builds (the tiled kernel in cuda/transpose.cuh).
#include "core/array/transpose.hpp"

#include <algorithm>
#include <cstdint>

#include "core/detail/dispatch.hpp"
#include "core/cpu/for_each.hpp"
#if SIM_TU_HAS_CUDA
#include "core/cuda/transpose.cuh"
#endif

namespace sim {

template <class T>
void transpose(const Context& ctx, View<const T, 2> src, View<T, 2> dst) {
  if (dst.shape.n[0] != src.shape.n[1] || dst.shape.n[1] != src.shape.n[0])
    throw ShapeError("transpose: source shape " + to_string(src.shape) + " needs a destination of shape (" +
                     std::to_string(src.shape.n[1]) + ", " + std::to_string(src.shape.n[0]) + "), not " +
                     to_string(dst.shape));
  if (src.size() == 0) return;
  if (ctx.is_cuda()) {
#if SIM_TU_HAS_CUDA
    gpu::transpose(ctx, src, dst);
    return;
#else
    throw detail::not_compiled_for_cuda("sim::transpose");
#endif
  }
  // 64 x 64 blocks: the block's source rows and destination rows both stay in cache.
  constexpr index_t b = 64;
  const index_t n0 = src.shape.n[0], n1 = src.shape.n[1], bi = (n0 + b - 1) / b, bj = (n1 + b - 1) / b;
  auto block = [&](index_t t) {
    const index_t i0 = (t / bj) * b, j0 = (t % bj) * b, i1 = std::min(n0, i0 + b), j1 = std::min(n1, j0 + b);
    for (index_t j = j0; j < j1; ++j)
      for (index_t i = i0; i < i1; ++i) dst(j, i) = src(i, j);
  };
  if (src.size() > cpu::parallel_threshold) cpu::parallel_chunks(bi * bj, block);  // the pool's threads
  else
    for (index_t t = 0; t < bi * bj; ++t) block(t);
}

template <class T>
Array<T, 2> transpose(const Array<T, 2>& a) {
  Array<T, 2> t(a.context(), extents(a.extent(1), a.extent(0)));
  transpose<T>(a.context(), a.view(), t.view());
  return t;
}

#define SIM_INSTANTIATE_TRANSPOSE(T)                                              \
  template void transpose<T>(const Context&, View<const T, 2>, View<T, 2>);       \
  template Array<T, 2> transpose<T>(const Array<T, 2>&);
SIM_INSTANTIATE_TRANSPOSE(float)
SIM_INSTANTIATE_TRANSPOSE(double)
SIM_INSTANTIATE_TRANSPOSE(std::int32_t)
SIM_INSTANTIATE_TRANSPOSE(std::int64_t)
SIM_INSTANTIATE_TRANSPOSE(std::uint32_t)
SIM_INSTANTIATE_TRANSPOSE(std::uint64_t)

}  // namespace sim
