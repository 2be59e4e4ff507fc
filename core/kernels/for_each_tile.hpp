#pragma once
// sim::for_each_tile(ctx, "name", tiles, scratch_bytes, f): runs f(team, ti, tj) for every tile
// (ti, tj) of a 2D box of tiles: one block of GPU threads per tile, with scratch_bytes of
// shared memory (team.scratch), or on the CPU runs of tiles on the cpu pool's threads, each run
// with a scratch buffer of its own. For kernels that load a tile and its halo once, make
// several passes over it in fast memory (team.for_each, team.sync between passes) and write
// the tile back: multigrid's smoothing sweeps are the use (solvers/mg_tiles.hpp).
#include <cstddef>
#include <vector>

#include "core/runtime/context.hpp"
#include "core/cpu/for_each.hpp"
#include "core/detail/dispatch.hpp"
#include "core/kernels/one_block.hpp"
#include "core/runtime/types.hpp"
#if SIM_TU_HAS_CUDA
#include <cuda_runtime.h>

#include "core/cuda/check.hpp"
#endif

namespace sim {

/// The threads of one tile, and the tile's scratch memory (max_align_t aligned).
struct TileTeam : BlockTeam {
  void* scratch = nullptr;
  /// Runs f(a, c) for a in [a0, a1), c in [c0, c1) (small tile-local indices): rows over the
  /// block's warps, columns over a warp's 32 lanes (no index division). No wait at the end.
  template <class F>
  SIM_INLINE void for_rows(int a0, int a1, int c0, int c1, const F& f) const {
#ifdef __CUDA_ARCH__
    const int lane = int(threadIdx.x) & 31, warp = int(threadIdx.x) >> 5, warps = int(blockDim.x) >> 5;
    for (int a = a0 + warp; a < a1; a += warps)
      for (int c = c0 + lane; c < c1; c += 32) f(a, c);
#else
    for (int a = a0; a < a1; ++a)
      for (int c = c0; c < c1; ++c) f(a, c);
#endif
  }
  /// The scratch memory from byte offset on, as an array of T.
  template <class T>
  SIM_INLINE T* scratch_as(std::size_t offset) const {
    return reinterpret_cast<T*>(static_cast<char*>(scratch) + offset);
  }
};

#if SIM_TU_HAS_CUDA
namespace gpu {
/// Threads of a for_each_tile block.
constexpr int tile_threads = 256;
/// The most scratch a tile may ask for (the shared memory any block gets without opting in).
constexpr std::size_t tile_scratch_max = 48 * 1024;

template <class F>
__global__ void __launch_bounds__(tile_threads) tile_kernel(F f, index_t tiles_j, index_t lo_i, index_t lo_j) {
  extern __shared__ double tile_scratch[];  // double: max_align_t alignment for every element type used
  TileTeam team;
  team.scratch = tile_scratch;
  const index_t t = index_t(blockIdx.x);
  f(team, lo_i + t / tiles_j, lo_j + t % tiles_j);
}
}  // namespace gpu
#endif

inline namespace SIM_TU_NS {

/// Runs f(team, ti, tj) for every tile of tiles on ctx's backend (asynchronous on the GPU), each
/// with scratch_bytes of scratch memory (at most 48 KiB).
template <class F>
void for_each_tile(const Context& ctx, const char* name, const Box<2>& tiles, std::size_t scratch_bytes, const F& f) {
  if (tiles.size() == 0) return;
  const index_t tiles_j = tiles.extent(1);
  if (ctx.is_cuda()) {
#if SIM_TU_HAS_CUDA
    if (scratch_bytes > gpu::tile_scratch_max)
      throw Error(std::string(name) + ": a tile asks for " + std::to_string(scratch_bytes) + " bytes of scratch, more than 48 KiB");
    auto stream = static_cast<cudaStream_t>(ctx.stream());
    gpu::tile_kernel<<<unsigned(tiles.size()), gpu::tile_threads, scratch_bytes, stream>>>(f, tiles_j, tiles.lo[0], tiles.lo[1]);
    SIM_CUDA_CHECK_LAUNCH(name, stream);
#else
    throw detail::not_compiled_for_cuda(name);
#endif
  } else {
    const index_t n = tiles.size();
    const std::size_t words = (scratch_bytes + sizeof(double) - 1) / sizeof(double);
    cpu::for_pieces(n, n > 1, [&](index_t t0, index_t t1) {  // runs of tiles on the cpu pool
      std::vector<double> scratch(words);
      TileTeam team;
      team.scratch = scratch.data();
      for (index_t t = t0; t < t1; ++t) f(team, tiles.lo[0] + t / tiles_j, tiles.lo[1] + t % tiles_j);
    });
  }
}

}  // namespace SIM_TU_NS
}  // namespace sim
