#pragma once
// Tiled transpose: a 64 x 64 tile read along rows into shared memory (one padding column
// against bank conflicts) and written along the rows of the destination; 32 x 8 threads,
// sixteen elements each (two columns 32 apart, eight rows 8 apart), all sixteen loads in
// flight before the barrier. Both global accesses coalesce.
// 4-byte elements move in pairs (8-byte accesses) where the shapes and strides allow.
//   serial: for i, j: dst(j, i) = src(i, j)
#include <cuda_runtime.h>

#include <cstdint>

#include "core/runtime/context.hpp"
#include "core/cuda/check.hpp"
#include "core/runtime/types.hpp"
#include "core/array/view.hpp"

namespace sim::gpu {

constexpr int transpose_tile = 64, transpose_cols = 32, transpose_rows = 8;

template <class T>
__global__ void __launch_bounds__(transpose_cols* transpose_rows) transpose_kernel(View<const T, 2> src, View<T, 2> dst) {
  __shared__ T tile[transpose_tile][transpose_tile + 1];
  const index_t n0 = src.shape.n[0], n1 = src.shape.n[1];
  for (index_t by = blockIdx.y; by * transpose_tile < n0; by += gridDim.y) {
    const index_t i0 = by * transpose_tile, j0 = index_t(blockIdx.x) * transpose_tile;
#pragma unroll
    for (int r = 0; r < transpose_tile; r += transpose_rows)
#pragma unroll
      for (int h = 0; h < transpose_tile; h += transpose_cols) {
        const index_t i = i0 + threadIdx.y + r, j = j0 + threadIdx.x + h;
        if (i < n0 && j < n1) tile[threadIdx.y + r][threadIdx.x + h] = src(i, j);
      }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < transpose_tile; r += transpose_rows)
#pragma unroll
      for (int h = 0; h < transpose_tile; h += transpose_cols) {
        const index_t dj = j0 + threadIdx.y + r, di = i0 + threadIdx.x + h;  // destination row, column
        if (dj < n1 && di < n0) dst(dj, di) = tile[threadIdx.x + h][threadIdx.y + r];
      }
    __syncthreads();
  }
}

template <class T>
struct alignas(2 * sizeof(T)) TransposePair {
  T a, b;
};

// 4-byte elements: the same tile, each thread reading and writing pairs of neighbours
// (8-byte accesses, 256 bytes a warp) - two columns of a source row in, two columns of a
// destination row out. Even extents, unit inner strides, even row strides, aligned rows.
template <class T>
__global__ void __launch_bounds__(transpose_cols* transpose_rows)
    transpose_pairs_kernel(View<const T, 2> src, View<T, 2> dst) {
  __shared__ T tile[transpose_tile][transpose_tile + 1];
  using P = TransposePair<T>;
  const index_t n0 = src.shape.n[0], n1 = src.shape.n[1];
  for (index_t by = blockIdx.y; by * transpose_tile < n0; by += gridDim.y) {
    const index_t i0 = by * transpose_tile, j0 = index_t(blockIdx.x) * transpose_tile;
    const int c = 2 * threadIdx.x;
#pragma unroll
    for (int r = 0; r < transpose_tile; r += transpose_rows) {
      const index_t i = i0 + threadIdx.y + r, j = j0 + c;
      if (i < n0 && j < n1) {
        const P v = *reinterpret_cast<const P*>(src.ptr + i * src.stride[0] + j);
        tile[threadIdx.y + r][c] = v.a, tile[threadIdx.y + r][c + 1] = v.b;
      }
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < transpose_tile; r += transpose_rows) {
      const index_t dj = j0 + threadIdx.y + r, di = i0 + c;  // destination row, column
      if (dj < n1 && di < n0)
        *reinterpret_cast<P*>(dst.ptr + dj * dst.stride[0] + di) = P{tile[c][threadIdx.y + r], tile[c + 1][threadIdx.y + r]};
    }
    __syncthreads();
  }
}

template <class T>
bool transpose_pairs_ok(View<const T, 2> src, View<T, 2> dst) {
  if constexpr (sizeof(T) != 4) {
    return false;
  } else {
    const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 8 == 0; };
    return src.shape.n[0] % 2 == 0 && src.shape.n[1] % 2 == 0 && src.stride[1] == 1 && dst.stride[1] == 1 &&
           src.stride[0] % 2 == 0 && dst.stride[0] % 2 == 0 && aligned(src.ptr) && aligned(dst.ptr);
  }
}

template <class T>
void transpose(const Context& ctx, View<const T, 2> src, View<T, 2> dst) {
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  const index_t bx = (src.shape.n[1] + transpose_tile - 1) / transpose_tile;
  const index_t by = (src.shape.n[0] + transpose_tile - 1) / transpose_tile;
  const dim3 grid{unsigned(bx), unsigned(by < 65535 ? by : 65535), 1}, block{transpose_cols, transpose_rows, 1};
  if (transpose_pairs_ok(src, dst))
    transpose_pairs_kernel<T><<<grid, block, 0, stream>>>(src, dst);
  else
    transpose_kernel<T><<<grid, block, 0, stream>>>(src, dst);
  SIM_CUDA_CHECK_LAUNCH("sim::transpose", stream);
}

}  // namespace sim::gpu
