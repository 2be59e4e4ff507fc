#pragma once
// Dense linear algebra kernels. matvec_rows: the product of a row-major matrix (rows
// contiguous): one warp per two rows (x read once for both), each lane reading V
// consecutive elements per step (V = 16 bytes: float4 / double2 when the rows are aligned
// to it), each row's lanes combined with warp shuffles. Streaming loads (__ldcs) for the
// matrix, which is read once, so that x stays in cache for the other rows.
//   serial: for i < m: y[i] = alpha * sum_j a[i * lda + j] * x[j * incx] + beta * y[i]
#include <cuda_runtime.h>

#include <cstdint>

#include "core/runtime/context.hpp"
#include "core/cuda/check.hpp"
#include "core/cuda/for_each.cuh"
#include "core/runtime/types.hpp"

namespace sim::gpu {

constexpr int matvec_threads = 256;  // 8 rows per block

template <class T, int V>
struct Vec16;
template <>
struct Vec16<float, 4> {
  using type = float4;
};
template <>
struct Vec16<double, 2> {
  using type = double2;
};

constexpr int matvec_rows_per_warp = 2;  // rows a warp reads together: x is read once for both

/// V > 1: lda % V == 0, n % V == 0, a and x 16-byte aligned, incx == 1.
template <class T, int V>
__global__ void __launch_bounds__(matvec_threads)
    matvec_rows_kernel(index_t m, index_t n, T alpha, const T* __restrict__ a, index_t lda, const T* __restrict__ x,
                       index_t incx, T beta, T* __restrict__ y, index_t incy) {
  constexpr int R = matvec_rows_per_warp;
  const int lane = threadIdx.x % 32;
  const index_t warps = index_t(gridDim.x) * (matvec_threads / 32);
  for (index_t i0 = (index_t(blockIdx.x) * (matvec_threads / 32) + threadIdx.x / 32) * R; i0 < m; i0 += warps * R) {
    const T* row[R];
#pragma unroll
    for (int r = 0; r < R; ++r) row[r] = a + (i0 + r < m ? i0 + r : i0) * lda;  // past the end: row i0 again, unused
    T s[R];
#pragma unroll
    for (int r = 0; r < R; ++r) s[r] = 0;
    if constexpr (V == 1) {
#pragma unroll 2
      for (index_t j = lane; j < n; j += 32) {
        const T xj = x[j * incx];
#pragma unroll
        for (int r = 0; r < R; ++r) s[r] += __ldcs(row[r] + j) * xj;
      }
    } else {
      using W = typename Vec16<T, V>::type;
      const W* xv = reinterpret_cast<const W*>(x);
      const index_t nv = n / V;
#pragma unroll 2
      for (index_t q = lane; q < nv; q += 32) {
        const W xq = xv[q];
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const W av = __ldcs(reinterpret_cast<const W*>(row[r]) + q);
          if constexpr (V == 4)
            s[r] += av.x * xq.x + av.y * xq.y + av.z * xq.z + av.w * xq.w;
          else
            s[r] += av.x * xq.x + av.y * xq.y;
        }
      }
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
#pragma unroll
      for (int d = 16; d > 0; d /= 2) s[r] += __shfl_xor_sync(0xffffffffu, s[r], d);
    }
    if (lane == 0)
#pragma unroll
      for (int r = 0; r < R; ++r)
        if (i0 + r < m) {
          T& yi = y[(i0 + r) * incy];
          yi = beta == T(0) ? alpha * s[r] : alpha * s[r] + beta * yi;
        }
  }
}

/// y = alpha * A x + beta * y for a row-major A (m x n, leading dimension lda); beta == 0
/// does not read y.
template <class T>
void matvec_rows(const Context& ctx, index_t m, index_t n, T alpha, const T* a, index_t lda, const T* x, index_t incx,
                 T beta, T* y, index_t incy) {
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  constexpr int V = 16 / sizeof(T), rows_per_block = matvec_threads / 32 * matvec_rows_per_warp;
  const unsigned grid = clamp_grid((m + rows_per_block - 1) / rows_per_block, 1 << 30);
  const bool aligned = reinterpret_cast<std::uintptr_t>(a) % 16 == 0 && reinterpret_cast<std::uintptr_t>(x) % 16 == 0;
  if (aligned && incx == 1 && n % V == 0 && lda % V == 0)
    matvec_rows_kernel<T, V><<<grid, matvec_threads, 0, stream>>>(m, n, alpha, a, lda, x, incx, beta, y, incy);
  else
    matvec_rows_kernel<T, 1><<<grid, matvec_threads, 0, stream>>>(m, n, alpha, a, lda, x, incx, beta, y, incy);
  SIM_CUDA_CHECK_LAUNCH("sim::matvec(rows)", stream);
}

// dst row r = src row perm[r]: one block row of 256 threads per destination row.
template <class T>
__global__ void __launch_bounds__(256)
    gather_rows_kernel(index_t rows, index_t cols, const std::int64_t* __restrict__ perm, const T* __restrict__ src,
                       T* __restrict__ dst) {
  for (index_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* s = src + perm[r] * cols;
    T* d = dst + r * cols;
    for (index_t c = threadIdx.x; c < cols; c += 256) d[c] = s[c];
  }
}

/// dst row r = src row perm[r] for row-major rows x cols matrices (perm on the device).
template <class T>
void gather_rows(const Context& ctx, index_t rows, index_t cols, const std::int64_t* perm, const T* src, T* dst) {
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  gather_rows_kernel<T><<<clamp_grid(rows, 1 << 30), 256, 0, stream>>>(rows, cols, perm, src, dst);
  SIM_CUDA_CHECK_LAUNCH("sim::solve(gather rows)", stream);
}

}  // namespace sim::gpu
