#pragma once
// Tiled transpose: a 32 x 32 tile read along rows into shared memory (one padding column
// against bank conflicts) and written along the rows of the destination; 32 x 8 threads,
// four elements each. Both global accesses coalesce.
#include <cuda_runtime.h>

#include "core/context.hpp"
#include "core/cuda/check.hpp"
#include "core/types.hpp"
#include "core/view.hpp"

namespace sim::gpu {

constexpr int transpose_tile = 32, transpose_rows = 8;

template <class T>
__global__ void __launch_bounds__(transpose_tile* transpose_rows) transpose_kernel(View<const T, 2> src, View<T, 2> dst) {
  __shared__ T tile[transpose_tile][transpose_tile + 1];
  const index_t n0 = src.shape.n[0], n1 = src.shape.n[1];
  for (index_t by = blockIdx.y; by * transpose_tile < n0; by += gridDim.y) {
    const index_t i0 = by * transpose_tile, j0 = index_t(blockIdx.x) * transpose_tile;
    const index_t j = j0 + threadIdx.x;
#pragma unroll
    for (int r = 0; r < transpose_tile; r += transpose_rows) {
      const index_t i = i0 + threadIdx.y + r;
      if (i < n0 && j < n1) tile[threadIdx.y + r][threadIdx.x] = src(i, j);
    }
    __syncthreads();
    const index_t di = i0 + threadIdx.x;  // destination column (source row)
#pragma unroll
    for (int r = 0; r < transpose_tile; r += transpose_rows) {
      const index_t dj = j0 + threadIdx.y + r;  // destination row (source column)
      if (dj < n1 && di < n0) dst(dj, di) = tile[threadIdx.x][threadIdx.y + r];
    }
    __syncthreads();
  }
}

template <class T>
void transpose(const Context& ctx, View<const T, 2> src, View<T, 2> dst) {
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  const index_t bx = (src.shape.n[1] + transpose_tile - 1) / transpose_tile;
  const index_t by = (src.shape.n[0] + transpose_tile - 1) / transpose_tile;
  const dim3 grid{unsigned(bx), unsigned(by < 65535 ? by : 65535), 1}, block{transpose_tile, transpose_rows, 1};
  transpose_kernel<T><<<grid, block, 0, stream>>>(src, dst);
  SIM_CUDA_CHECK_LAUNCH("sim::transpose", stream);
}

}  // namespace sim::gpu
