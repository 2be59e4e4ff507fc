#pragma once
// The cuda backend of for_each: the contiguous dimension on threadIdx.x (coalesced), outer
// dimensions on the grid's y and z, with grid-stride loops where the grid limits bind. 3D
// boxes a warp wide or more run in blocks 32 threads wide, each thread walking a few planes
// along dimension 0 (for_each_kernel_3d_rows; the shape's rule in walk_shape.cpp).
#include <cuda_runtime.h>

#include <algorithm>

#include "core/runtime/context.hpp"
#include "core/cuda/check.hpp"
#include "core/cuda/walk_shape.hpp"
#include "core/runtime/types.hpp"

namespace sim::gpu {

template <class F>
__global__ void for_each_kernel_1d(index_t lo, index_t n, F f) {
  const index_t step = index_t(gridDim.x) * blockDim.x;
  for (index_t t = index_t(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += step) f(lo + t);
}

template <class F>
__global__ void for_each_kernel_2d(index_t lo0, index_t lo1, index_t n0, index_t n1, F f) {
  const index_t j = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n1) return;
  const index_t step = index_t(gridDim.y) * blockDim.y;
  for (index_t i = index_t(blockIdx.y) * blockDim.y + threadIdx.y; i < n0; i += step) f(lo0 + i, lo1 + j);
}

template <class F>
__global__ void for_each_kernel_3d(index_t lo0, index_t lo1, index_t lo2, index_t n0, index_t n1, index_t n2, F f) {
  const index_t k = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n2) return;
  const index_t step1 = index_t(gridDim.y) * blockDim.y;
  for (index_t i = blockIdx.z; i < n0; i += gridDim.z)
    for (index_t j = index_t(blockIdx.y) * blockDim.y + threadIdx.y; j < n1; j += step1) f(lo0 + i, lo1 + j, lo2 + k);
}

/// 3D boxes: blocks of 32 x blockDim.y threads over dimensions 2 and 1, each thread walking
/// `rows` consecutive planes along dimension 0. A stencil's neighbours (the rows beside in the
/// block, the plane the thread read last) are then mostly still in the multiprocessor's L1
/// when read, where one 256-wide row a block had every neighbouring row read again from L2 by
/// another block: the 3D fluid's kernels, which read several fields around each cell, are
/// bound by that L2 traffic.
template <class F>
__global__ void __launch_bounds__(256)
    for_each_kernel_3d_rows(index_t lo0, index_t lo1, index_t lo2, index_t n0, index_t n1, index_t n2, index_t rows, F f) {
  const index_t k = index_t(blockIdx.x) * 32 + threadIdx.x, j = index_t(blockIdx.y) * blockDim.y + threadIdx.y;
  if (k >= n2 || j >= n1) return;
  const index_t first = index_t(blockIdx.z) * rows, last = first + rows < n0 ? first + rows : n0;
  for (index_t i = first; i < last; ++i) f(lo0 + i, lo1 + j, lo2 + k);
}

/// Threads per block, and how they split between the contiguous and the next dimension.
constexpr int block_threads = 256;
inline dim3 block_shape(index_t contiguous_extent) {
  unsigned bx = 32;
  while (bx < block_threads && bx < contiguous_extent) bx *= 2;
  return dim3(bx, block_threads / bx, 1);
}
inline unsigned clamp_grid(index_t blocks, index_t limit) { return unsigned(std::max<index_t>(1, std::min(blocks, limit))); }

template <class F>
void launch_for_each(const Context& ctx, const char* name, const Box<1>& b, const F& f) {
  const index_t n = b.extent(0);
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  const unsigned grid = clamp_grid((n + block_threads - 1) / block_threads, 0x7fffffff);
  for_each_kernel_1d<<<grid, block_threads, 0, stream>>>(b.lo[0], n, f);
  SIM_CUDA_CHECK_LAUNCH(name, stream);
}

/// Boxes thin in the contiguous dimension (the ghost layers of a face, say): one flat index
/// per thread, decomposed, so that no lanes idle.
template <int Rank, class F>
__global__ void for_each_kernel_flat(Box<Rank> b, index_t n, F f) {
  const index_t step = index_t(gridDim.x) * blockDim.x;
  for (index_t t = index_t(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += step) {
    if constexpr (Rank == 2) {
      const index_t n1 = b.hi[1] - b.lo[1], i = t / n1;
      f(b.lo[0] + i, b.lo[1] + (t - i * n1));
    } else {
      const index_t n1 = b.hi[1] - b.lo[1], n2 = b.hi[2] - b.lo[2], i = t / (n1 * n2), r = t - i * n1 * n2, j = r / n2;
      f(b.lo[0] + i, b.lo[1] + j, b.lo[2] + (r - j * n2));
    }
  }
}
constexpr index_t thin_extent = 16;

template <int Rank, class F>
void launch_flat(const Context& ctx, const char* name, const Box<Rank>& b, const F& f) {
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  const index_t n = b.size();
  for_each_kernel_flat<Rank><<<clamp_grid((n + block_threads - 1) / block_threads, 0x7fffffff), block_threads, 0, stream>>>(b, n, f);
  SIM_CUDA_CHECK_LAUNCH(name, stream);
}

/// The grid's rows of blocks for `rows` rows of blocks' worth of work, gx blocks wide: up to
/// 8 rows a thread (a thread's start-up, its parameters and indices, costs more than a cell of a
/// stencil), but never fewer than about 16 blocks a multiprocessor.
inline index_t rows_of_blocks(const Context& ctx, index_t gx, index_t rows) {
  const index_t enough = (16 * index_t(std::max(1, ctx.multiprocessor_count())) + gx - 1) / gx;
  return std::min(rows, std::max((rows + 7) / 8, enough));
}

template <class F>
void launch_for_each(const Context& ctx, const char* name, const Box<2>& b, const F& f) {
  const index_t n0 = b.extent(0), n1 = b.extent(1);
  if (n1 < thin_extent) return launch_flat(ctx, name, b, f);
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  dim3 block = block_shape(n1);
  const index_t gx = (n1 + block.x - 1) / block.x, rows = (n0 + block.y - 1) / block.y;
  dim3 grid(clamp_grid(gx, 0x7fffffff), clamp_grid(rows_of_blocks(ctx, gx, rows), 65535));
  for_each_kernel_2d<<<grid, block, 0, stream>>>(b.lo[0], b.lo[1], n0, n1, f);
  SIM_CUDA_CHECK_LAUNCH(name, stream);
}

template <class F>
void launch_for_each(const Context& ctx, const char* name, const Box<3>& b, const F& f) {
  const index_t n0 = b.extent(0), n1 = b.extent(1), n2 = b.extent(2);
  if (n2 < thin_extent) return launch_flat(ctx, name, b, f);
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  const WalkShape w = walk_shape(ctx, n0, n1, n2);
  if (w.rows > 0) {
    const dim3 grid(unsigned((n2 + 31) / 32), unsigned((n1 + w.block_y - 1) / w.block_y), unsigned((n0 + w.rows - 1) / w.rows));
    for_each_kernel_3d_rows<<<grid, dim3(32, w.block_y, 1), 0, stream>>>(b.lo[0], b.lo[1], b.lo[2], n0, n1, n2, w.rows, f);
    SIM_CUDA_CHECK_LAUNCH(name, stream);
    return;
  }
  dim3 block = block_shape(n2);
  dim3 grid(clamp_grid((n2 + block.x - 1) / block.x, 0x7fffffff), clamp_grid((n1 + block.y - 1) / block.y, 65535),
            clamp_grid(n0, 65535));
  for_each_kernel_3d<<<grid, block, 0, stream>>>(b.lo[0], b.lo[1], b.lo[2], n0, n1, n2, f);
  SIM_CUDA_CHECK_LAUNCH(name, stream);
}

}  // namespace sim::gpu
