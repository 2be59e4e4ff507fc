#pragma once
// The vectorised cuda path of expression assignment (c = a * 5 + b, out = A + r): each thread
// evaluates V consecutive elements with one vector load per operand (16 bytes of the
// destination type) and one vector store. Contiguous operands run as one flat range; rows
// (broadcasts, slices whose rows are whole vectors) as a 2-D grid over vectors x rows with
// no per-element index division. Anything else (narrow or odd rows, unaligned views, short
// arrays) takes the element kernel of for_each.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/runtime/context.hpp"
#include "core/cuda/check.hpp"
#include "core/cuda/for_each.cuh"
#include "core/runtime/types.hpp"
#include "core/array/view.hpp"

namespace sim::gpu {

/// Elements per thread in vectorised kernels over T: 16 bytes of T (4 for 1-byte types).
template <class T>
constexpr int vec_width = sizeof(T) >= 8 ? 2 : 4;

template <int V, class T, class E>
__global__ void __launch_bounds__(block_threads) assign_flat_vec_kernel(T* dst, index_t n, E e) {
  using X = typename E::value_type;
  const index_t nv = n / V, q = index_t(blockIdx.x) * block_threads + threadIdx.x;
  if (q < nv) {
    X x[V];
    e.template vec<V>(x, q * V);
    Pack<T, V> pk;
#pragma unroll
    for (int k = 0; k < V; ++k) pk.v[k] = static_cast<T>(x[k]);
    *reinterpret_cast<Pack<T, V>*>(dst + q * V) = pk;
  }
  const index_t t = nv * V + q;  // the last n % V elements, one per thread
  if (t < n) dst[t] = static_cast<T>(e.flat(t));
}

// blockDim (bx, by): x over the vectors of a row, y over rows; rows stride over the grid.
template <int V, class T, int R, class E>
__global__ void __launch_bounds__(block_threads) assign_rows_vec_kernel(View<T, R> dst, index_t rows, index_t nv, E e) {
  using X = typename E::value_type;
  const index_t q = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= nv) return;
  const index_t j = q * V, step = index_t(gridDim.y) * blockDim.y;
  for (index_t r = index_t(blockIdx.y) * blockDim.y + threadIdx.y; r < rows; r += step) {
    X x[V];
    T* p;
    if constexpr (R == 2) {
      e.template vec<V>(x, r, j);
      p = &dst(r, j);
    } else {
      const index_t i = r / dst.shape.n[1], k = r - i * dst.shape.n[1];  // once per row
      e.template vec<V>(x, i, k, j);
      p = &dst(i, k, j);
    }
    Pack<T, V> pk;
#pragma unroll
    for (int k = 0; k < V; ++k) pk.v[k] = static_cast<T>(x[k]);
    *reinterpret_cast<Pack<T, V>*>(p) = pk;
  }
}

/// Queues dst = e with vector loads and stores when the layouts allow; false (queueing
/// nothing) when they do not, for the element kernel to do it.
template <class T, int R, class E>
bool assign_vectorised(const Context& ctx, const char* name, View<T, R> dst, const E& e) {
  constexpr int V = vec_width<T>;
  const index_t n = dst.size();
  if (n < index_t(V) * block_threads * 4) return false;  // short: one element per thread is as good
  if (reinterpret_cast<std::uintptr_t>(dst.ptr) % alignof(Pack<T, V>) != 0) return false;
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  if (dst.contiguous() && e.contiguous()) {
    if (!e.template vec_ok<V>(true)) return false;
    const index_t threads = (n / V) + (n % V ? 1 : 0);
    assign_flat_vec_kernel<V><<<clamp_grid((threads + block_threads - 1) / block_threads, 0x7fffffff), block_threads, 0,
                                stream>>>(dst.ptr, n, e);
    SIM_CUDA_CHECK_LAUNCH(name, stream);
    return true;
  }
  if constexpr (R == 1) {
    return false;
  } else {
    const index_t last = dst.shape.n[R - 1];
    if (dst.stride[R - 1] != 1 || last % V != 0) return false;
    for (int d = 0; d < R - 1; ++d)
      if (dst.stride[d] % V != 0) return false;
    if (!e.template vec_ok<V>(false)) return false;
    const index_t nv = last / V, rows = n / last;
    const dim3 block = block_shape(nv);
    const dim3 grid(clamp_grid((nv + block.x - 1) / block.x, 0x7fffffff), clamp_grid((rows + block.y - 1) / block.y, 65535));
    assign_rows_vec_kernel<V><<<grid, block, 0, stream>>>(dst, rows, nv, e);
    SIM_CUDA_CHECK_LAUNCH(name, stream);
    return true;
  }
}

}  // namespace sim::gpu
