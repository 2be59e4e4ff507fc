#pragma once
// The cuda backend of reductions along one axis (outer x len x inner, the axis in the middle).
// A contiguous axis (inner == 1): one block per long row, one warp per short row, combined
// with cub::BlockReduce / cub::WarpReduce. Any other axis: 32 outputs across a warp (coalesced
// loads), the axis cut into chunks over blocks; the chunk partials are combined in order by the
// last block of each column group to finish. Fixed orders throughout: the same input gives the
// same bits on every run.
#include <cub/block/block_reduce.cuh>
#include <cub/thread/thread_load.cuh>
#include <cub/warp/warp_reduce.cuh>

#include <algorithm>

#include "core/runtime/context.hpp"
#include "core/cuda/check.hpp"
#include "core/cuda/for_each.cuh"
#include "core/cuda/reduce.cuh"
#include "core/runtime/types.hpp"

namespace sim::gpu {

constexpr int axis_threads = 256;

// V > 1: each thread reads V consecutive elements of the row per step (map.vec, len % V == 0).
template <int V, class Acc, class Out, class Map, class Op, class Fin>
__global__ void __launch_bounds__(axis_threads)
    reduce_rows_block_kernel(index_t outer, index_t len, Map map, Op op, Acc init, Fin fin, Out* out) {
  using Reduce = cub::BlockReduce<Acc, axis_threads>;
  __shared__ typename Reduce::TempStorage tmp;
  for (index_t o = blockIdx.x; o < outer; o += gridDim.x) {
    Acc a = init;
    if constexpr (V == 1) {
#pragma unroll 4
      for (index_t m = threadIdx.x; m < len; m += axis_threads) a = op(a, map(o, m, index_t(0)));
    } else {
#pragma unroll 2
      for (index_t m = index_t(threadIdx.x) * V; m < len; m += axis_threads * V) {
        Acc x[V];
        map.template vec<V>(x, o, m, index_t(0));
#pragma unroll
        for (int k = 0; k < V; ++k) a = op(a, x[k]);
      }
    }
    const Acc r = Reduce(tmp).Reduce(a, op);
    if (threadIdx.x == 0) out[o] = fin(r, o, index_t(0), len);
    __syncthreads();
  }
}

template <class Acc, class Out, class Map, class Op, class Fin>
__global__ void __launch_bounds__(axis_threads)
    reduce_rows_warp_kernel(index_t outer, index_t len, Map map, Op op, Acc init, Fin fin, Out* out) {
  using Reduce = cub::WarpReduce<Acc>;
  constexpr int warps = axis_threads / 32;
  __shared__ typename Reduce::TempStorage tmp[warps];
  const int w = threadIdx.x / 32, l = threadIdx.x % 32;
  for (index_t o = index_t(blockIdx.x) * warps + w; o < outer; o += index_t(gridDim.x) * warps) {
    Acc a = init;
    for (index_t m = l; m < len; m += 32) a = op(a, map(o, m, index_t(0)));
    const Acc r = Reduce(tmp[w]).Reduce(a, op);
    if (l == 0) out[o] = fin(r, o, index_t(0), len);
    __syncwarp();
  }
}

// blockDim (32, 8): x over 32 consecutive groups of V outputs p (V > 1: one vector load of V
// values per thread and row, map.vec), y over the axis; blockIdx.y is the chunk of the axis,
// blockIdx.z (looping) the outer index. More than one chunk: each block writes its chunk's
// partials, and the last of a column group's blocks to finish (its ticket, zeroed counters:
// ticket[o * gridDim.x + blockIdx.x]) combines the group's chunks in chunk order, writes the
// outputs and sets the ticket back to zero.
template <int V, class Acc, class Out, class Map, class Op, class Fin>
__global__ void __launch_bounds__(axis_threads)
    reduce_cols_kernel(index_t outer, index_t len, index_t inner, index_t chunk, Map map, Op op, Acc init, Fin fin,
                       Out* out, Acc* partial, unsigned* ticket) {
  __shared__ Acc sh[8][32 * V + 1];
  __shared__ bool last;
  const index_t p = (index_t(blockIdx.x) * 32 + threadIdx.x) * V;
  const index_t m0 = index_t(blockIdx.y) * chunk, m1 = m0 + chunk < len ? m0 + chunk : len;
  for (index_t o = blockIdx.z; o < outer; o += gridDim.z) {
    Acc a[V];
#pragma unroll
    for (int k = 0; k < V; ++k) a[k] = init;
    if (p < inner) {
#pragma unroll 4
      for (index_t m = m0 + threadIdx.y; m < m1; m += 8) {
        if constexpr (V == 1) {
          a[0] = op(a[0], map(o, m, p));
        } else {
          Acc x[V];
          map.template vec<V>(x, o, m, p);
#pragma unroll
          for (int k = 0; k < V; ++k) a[k] = op(a[k], x[k]);
        }
      }
    }
#pragma unroll
    for (int k = 0; k < V; ++k) sh[threadIdx.y][threadIdx.x * V + k] = a[k];
    __syncthreads();
    // the 32 * V outputs of the block, 256 threads: each combines the 8 row groups of some
    for (int c = threadIdx.y * 32 + threadIdx.x; c < 32 * V; c += axis_threads) {
      const index_t q = index_t(blockIdx.x) * 32 * V + c;
      if (q < inner) {
        Acc r = sh[0][c];
        for (int y = 1; y < 8; ++y) r = op(r, sh[y][c]);
        if (partial)
          partial[index_t(blockIdx.y) * outer * inner + o * inner + q] = r;
        else
          out[o * inner + q] = fin(r, o, q, len);
      }
    }
    if (partial) {
      __threadfence();  // this block's partials are visible before its ticket says so
      __syncthreads();
      unsigned* t = ticket + o * gridDim.x + blockIdx.x;
      if (threadIdx.x == 0 && threadIdx.y == 0) last = atomicAdd(t, 1u) == gridDim.y - 1;
      __syncthreads();
      if (last) {
        __threadfence();
        const index_t n = outer * inner;
        for (int c = threadIdx.y * 32 + threadIdx.x; c < 32 * V; c += axis_threads) {
          const index_t q = index_t(blockIdx.x) * 32 * V + c;
          if (q < inner) {
            Acc r = init;
            for (index_t k = 0; k < index_t(gridDim.y); ++k)
              r = op(r, cub::ThreadLoad<cub::LOAD_CG>(partial + k * n + o * inner + q));
            out[o * inner + q] = fin(r, o, q, len);
          }
        }
        if (threadIdx.x == 0 && threadIdx.y == 0) *t = 0;  // every block of the group has counted
      }
    }
    __syncthreads();
  }
}

/// V > 1: map.vec<V> reads V values at once: consecutive outputs (inner % V == 0), or, when
/// the axis is the last (inner == 1), consecutive elements of a row (len % V == 0; rows of
/// 2048 or more, shorter rows take one warp each and scalar loads).
template <int V = 1, class Acc, class Out, class Map, class Op, class Fin>
void reduce_along(const Context& ctx, const char* name, index_t outer, index_t len, index_t inner, const Map& map,
                  const Op& op, Acc init, const Fin& fin, Out* out) {
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  const index_t sms = std::max(1, ctx.multiprocessor_count());
  if (inner == 1) {
    if (len >= 2048) {
      const unsigned grid = clamp_grid(outer, 1 << 30);
      reduce_rows_block_kernel<V><<<grid, axis_threads, 0, stream>>>(outer, len, map, op, init, fin, out);
    } else {
      const unsigned grid = clamp_grid((outer + axis_threads / 32 - 1) / (axis_threads / 32), 1 << 30);
      reduce_rows_warp_kernel<<<grid, axis_threads, 0, stream>>>(outer, len, map, op, init, fin, out);
    }
    SIM_CUDA_CHECK_LAUNCH(name, stream);
    return;
  }
  const index_t bx = (inner + 32 * V - 1) / (32 * V), bz = std::min<index_t>(outer, 65535);
  // one full wave: as many blocks as the SMs hold at once, each a long run of rows (no tail
  // of a partial last wave; fewer partials to combine)
  int per_sm = 0;
  SIM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_cols_kernel<V, Acc, Out, Map, Op, Fin>,
                                                               axis_threads, 0));
  const index_t target = sms * std::max(1, per_sm);
  index_t chunks = std::max<index_t>(1, target / (bx * bz));
  chunks = std::min<index_t>(chunks, std::max<index_t>(1, len / 64));  // 8 rows or more per thread
  chunks = std::min<index_t>(chunks, 65535);
  const index_t chunk = std::max<index_t>(1, (len + chunks - 1) / chunks);
  chunks = std::max<index_t>(1, (len + chunk - 1) / chunk);
  const dim3 block{32, 8, 1}, grid{unsigned(bx), unsigned(chunks), unsigned(bz)};
  if (chunks == 1) {
    reduce_cols_kernel<V><<<grid, block, 0, stream>>>(outer, len, inner, chunk, map, op, init, fin, out,
                                                      static_cast<Acc*>(nullptr), static_cast<unsigned*>(nullptr));
    SIM_CUDA_CHECK_LAUNCH(name, stream);
    return;
  }
  // chunks > 1 only where bx * outer <= target / 2 (at most 16 blocks a multiprocessor): the
  // context's counters suffice
  PoolScratch partial(ctx, std::size_t(chunks * outer * inner) * sizeof(Acc));
  unsigned* tickets = ctx.zeroed_counters(std::size_t(outer * bx));
  reduce_cols_kernel<V><<<grid, block, 0, stream>>>(outer, len, inner, chunk, map, op, init, fin, out,
                                                    static_cast<Acc*>(partial.ptr), tickets);
  SIM_CUDA_CHECK_LAUNCH(name, stream);
}

// ---- whole contiguous ranges: map(t) for t < n combined with op. Each of a fixed number of
// blocks (flat_blocks_per_sm a multiprocessor: a full one of threads) strides over the range
// with independent loads in flight (V > 1: map.vec<V> reads V consecutive values with one
// vector load), reduces with cub::BlockReduce and writes its partial; the last block to finish
// (a ticket, one of the context's zeroed counters) then combines the partials in order, in the
// same kernel, and writes the result straight into the host's result slot: one launch, no
// memset, no copy back. (cub::DeviceReduce sizes its loads by the accumulator, 16-32 bytes for
// argmax and moments, and so keeps fewer loads in flight.)

// Blocks a multiprocessor holds at once in reduce_flat_kernel: the grid is one wave of them,
// so the kernel must fit in 32 registers a thread (float moments took 34 without the bound:
// 7 blocks a multiprocessor, a second partial wave, 12% slower).
constexpr int flat_blocks_per_sm = 8;

template <class Acc, class Op, class Reduce>
__device__ void combine_partials(index_t count, const Op& op, Acc init, const Acc* partial, Acc* result,
                                 typename Reduce::TempStorage& tmp) {
  Acc a = init;
  for (index_t t = threadIdx.x; t < count; t += axis_threads) a = op(a, cub::ThreadLoad<cub::LOAD_CG>(partial + t));
  const Acc r = Reduce(tmp).Reduce(a, op);
  if (threadIdx.x == 0) *result = r;
}

template <int V, class Acc, class Map, class Op>
__global__ void __launch_bounds__(axis_threads, flat_blocks_per_sm)
    reduce_flat_kernel(index_t n, Map map, Op op, Acc init, Acc* partial, unsigned* ticket, Acc* result) {
  using Reduce = cub::BlockReduce<Acc, axis_threads>;
  __shared__ typename Reduce::TempStorage tmp;
  __shared__ bool last;
  Acc a = init;
  const index_t step = index_t(gridDim.x) * axis_threads, first = index_t(blockIdx.x) * axis_threads + threadIdx.x;
  if constexpr (V == 1) {
#pragma unroll 4
    for (index_t t = first; t < n; t += step) a = op(a, map(t));
  } else {
    const index_t nv = n / V;
#pragma unroll 4
    for (index_t q = first; q < nv; q += step) {
      Acc x[V];
      map.template vec<V>(x, q * V);
#pragma unroll
      for (int k = 0; k < V; ++k) a = op(a, x[k]);
    }
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0)  // the last n % V, after every vector of
      for (index_t t = nv * V; t < n; ++t) a = op(a, map(t));  // this thread: ascending order kept
  }
  const Acc r = Reduce(tmp).Reduce(a, op);
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = r;
    __threadfence();  // the partial is visible before the ticket says so
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  __syncthreads();  // tmp is reused
  combine_partials<Acc, Op, Reduce>(index_t(gridDim.x), op, init, partial, result, tmp);
  if (threadIdx.x == 0) *ticket = 0;  // every block has counted
}

/// op-combination of map(0), ..., map(n - 1); waits for the result. V > 1: map.vec<V> too.
template <int V = 1, class Acc, class Map, class Op>
Acc reduce_flat(const Context& ctx, const char* name, index_t n, const Map& map, const Op& op, Acc init) {
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  const index_t blocks = std::max<index_t>(1, std::min<index_t>(flat_blocks_per_sm * std::max(1, ctx.multiprocessor_count()),
                                                                (n / V + axis_threads - 1) / axis_threads));
  PoolScratch partial(ctx, std::size_t(blocks) * sizeof(Acc));
  HostResult<Acc> result(ctx);
  reduce_flat_kernel<V><<<unsigned(blocks), axis_threads, 0, stream>>>(
      n, map, op, init, static_cast<Acc*>(partial.ptr), ctx.zeroed_counters(1), result.device());
  SIM_CUDA_CHECK_LAUNCH(name, stream);
  return result.get(stream);
}

}  // namespace sim::gpu
