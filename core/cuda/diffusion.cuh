#pragma once
// Hand-tuned explicit diffusion stage for the GPU, behind sim::diffusion_stage. Blocks of
// 32 x 8 threads (in 3D with a shared-memory tile for the dimension-1 neighbours), the 32
// along the contiguous dimension (coalesced); each thread updates
// ROWS consecutive cells along dimension 0 and issues all their loads before the first
// use, so more bytes are in flight per thread (what a memory-bound float32 stencil needs).
// 32-bit offsets when the field fits (cheaper address arithmetic than 64-bit). On a face of
// the contiguous dimension with a rule (lo / hi `on`), the edge lanes apply it instead of
// reading the ghost: no separate strided ghost fill, and no ghost sector read.
#include <cuda_runtime.h>

#include <cstdlib>

#include "core/boundary.hpp"
#include "core/cuda/check.hpp"
#include "core/stencil.hpp"

namespace sim::gpu {

template <class T>
struct DiffusionArgs {
  const T* __restrict__ v;
  const T* __restrict__ u0;
  const T* __restrict__ src;
  T* __restrict__ out;
  index_t n0, n1, n2;           // interior extents (n2 = 1 in 2D)
  index_t s0, s1;               // strides of dimensions 0 and 1 (the last stride is 1); all fields share them
  T c0, c1, c2;                 // alpha dt / dx_d^2
  T dt, w;
  bool has_src, has_u0;
  FaceRule<T> lo, hi;           // the contiguous dimension's faces (rules applied where `on`)
  index_t period;               // the grid's extent in that dimension (periodic rules read across it)
};

/// The neighbour across a ruled face: sign * (periodic ? the far cell, loaded : the centre) + add.
template <class T>
__device__ __forceinline__ T ruled(const FaceRule<T>& f, T loaded, T center) {
  return f.sign * (f.periodic ? loaded : center) + f.add;
}

/// out = centre + lap, then the source and the u0 blend where the stage has them (EXTRA:
/// either may be present; without, the kernel carries neither their registers nor tests).
template <class T, class I, bool EXTRA = true>
__device__ __forceinline__ void finish(const DiffusionArgs<T>& a, I o, T center, T lap) {
  T next = center + lap;
  if constexpr (EXTRA) {
    if (a.has_src) next += a.dt * a.src[o];
    if (a.has_u0) next = a.w * a.u0[o] + (T(1) - a.w) * next;
  }
  a.out[o] = next;
}

template <class T, class I, int ROWS>
__global__ void __launch_bounds__(256) diffusion_stage_2d(DiffusionArgs<T> a) {
  const I j = I(blockIdx.x) * 32 + I(threadIdx.x);
  const I i0 = (I(blockIdx.y) * 8 + I(threadIdx.y)) * ROWS;
  if (j >= I(a.n1) || i0 >= I(a.n0)) return;
  const I s0 = I(a.s0), n0 = I(a.n0), base = i0 * s0 + j, period = I(a.period);
  const bool at_lo = a.lo.on && j == 0, at_hi = a.hi.on && j == I(a.n1) - 1;
  T col[ROWS + 2], left[ROWS], right[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS + 2; ++r) col[r] = i0 + r - 1 <= n0 ? a.v[base + (r - 1) * s0] : T(0);
#pragma unroll
  for (int r = 0; r < ROWS; ++r)
    if (i0 + r < n0) {
      const I o = base + r * s0;
      left[r] = at_lo ? (a.lo.periodic ? a.v[o - 1 + period] : T(0)) : a.v[o - 1];
      right[r] = at_hi ? (a.hi.periodic ? a.v[o + 1 - period] : T(0)) : a.v[o + 1];
    }
#pragma unroll
  for (int r = 0; r < ROWS; ++r)
    if (i0 + r < n0) {
      const T c = col[r + 1];
      const T jm = at_lo ? ruled(a.lo, left[r], c) : left[r], jp = at_hi ? ruled(a.hi, right[r], c) : right[r];
      finish(a, base + r * s0, c, a.c0 * (col[r] - T(2) * c + col[r + 2]) + a.c1 * (jm - T(2) * c + jp));
    }
}

/// One 3D block's cells: 32 columns (k) x BY rows (j) x ROWS planes (i). The j neighbours
/// come from a shared-memory tile of the block's centres (rows j-1 and j+BY loaded by the
/// first and last warp rows), so each row leaves L2 once per block: the float32 3D stage
/// is bound by L2 traffic (its fabric between the two L2 halves, per ncu on the H100).
/// GUARD: a block at the grid's far edges (partial in some dimension); all threads reach
/// the barrier either way.
template <class T, class I, int ROWS, int BY, bool EXTRA, bool GUARD>
__device__ __forceinline__ void stage_3d_block(const DiffusionArgs<T>& a, T (&tile)[ROWS][BY + 2][32]) {
  const int tx = int(threadIdx.x), ty = int(threadIdx.y);
  const I k = I(blockIdx.x) * 32 + tx, j = I(blockIdx.y) * BY + ty, i0 = I(blockIdx.z) * ROWS;
  const I s0 = I(a.s0), s1 = I(a.s1), n0 = I(a.n0), n1 = I(a.n1), n2 = I(a.n2), base = i0 * s0 + j * s1 + k;
  const I period = I(a.period), halo_offset = ty == 0 ? -s1 : s1;
  const bool in = !GUARD || (k < n2 && j < n1);
  const bool centre = !GUARD || (k < n2 && j <= n1);  // row n1 (ghosts) is row n1-1's neighbour in the tile
  const bool edge = ty == 0 || ty == BY - 1;
  const bool at_lo = a.lo.on && k == 0, at_hi = a.hi.on && k == n2 - 1;
  T col[ROWS + 2], km[ROWS], kp[ROWS], halo[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS + 2; ++r) col[r] = centre && (!GUARD || i0 + r - 1 <= n0) ? a.v[base + (r - 1) * s0] : T(0);
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const I o = base + r * s0;
    const bool row = in && (!GUARD || i0 + r < n0);
    km[r] = row ? (at_lo ? (a.lo.periodic ? a.v[o - 1 + period] : T(0)) : a.v[o - 1]) : T(0);
    kp[r] = row ? (at_hi ? (a.hi.periodic ? a.v[o + 1 - period] : T(0)) : a.v[o + 1]) : T(0);
    halo[r] = row && edge ? a.v[o + halo_offset] : T(0);
  }
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    tile[r][ty + 1][tx] = col[r + 1];
    if (edge) tile[r][ty == 0 ? 0 : BY + 1][tx] = halo[r];
  }
  __syncthreads();
#pragma unroll
  for (int r = 0; r < ROWS; ++r)
    if (in && (!GUARD || i0 + r < n0)) {
      const T c = col[r + 1];
      const T m = at_lo ? ruled(a.lo, km[r], c) : km[r], p = at_hi ? ruled(a.hi, kp[r], c) : kp[r];
      finish<T, I, EXTRA>(a, base + r * s0, c,
             a.c0 * (col[r] - T(2) * c + col[r + 2]) + a.c1 * (tile[r][ty][tx] - T(2) * c + tile[r][ty + 2][tx]) +
                 a.c2 * (m - T(2) * c + p));
    }
}

/// Occupancy asked of ptxas for the 3D stage: full (32 registers) where that spills at most
/// a word (float64, two rows, without source or blend), else three quarters (40 registers);
/// measured on the H100, bench/results/2026-11-22-h100-heat3d-tile.
template <class T, int ROWS, bool EXTRA>
constexpr int stage_3d_threads_per_sm() { return sizeof(T) == 8 && ROWS <= 2 && !EXTRA ? 2048 : 1536; }

template <class T, class I, int ROWS, int BY, bool EXTRA>
__global__ void __launch_bounds__(32 * BY, stage_3d_threads_per_sm<T, ROWS, EXTRA>() / (32 * BY)) diffusion_stage_3d(DiffusionArgs<T> a) {
  __shared__ T tile[ROWS][BY + 2][32];
  const bool full = (I(blockIdx.x) + 1) * 32 <= I(a.n2) && (I(blockIdx.y) + 1) * BY <= I(a.n1) &&
                    (I(blockIdx.z) + 1) * ROWS <= I(a.n0);
  if (full) stage_3d_block<T, I, ROWS, BY, EXTRA, false>(a, tile);
  else stage_3d_block<T, I, ROWS, BY, EXTRA, true>(a, tile);
}

/// A tuning override from the environment, or 0.
inline int diffusion_knob(const char* name) {
  const char* e = std::getenv(name);
  return e ? std::atoi(e) : 0;
}

/// Cells per thread along dimension 0 (SIMKIT_DIFFUSION_ROWS = 1, 2, 4 or 8 overrides, for tuning).
inline int diffusion_rows(int element_size) {
  static const int forced = diffusion_knob("SIMKIT_DIFFUSION_ROWS");
  if (forced == 1 || forced == 2 || forced == 4 || forced == 8) return forced;
  return element_size == 4 ? 4 : 2;  // measured best on the H100 (bench/results/2026-11-21-h100-run3)
}

template <class T, class I, int ROWS>
bool launch_rows(const DiffusionArgs<T>& a, int rank, cudaStream_t stream) {
  const dim3 block(32, 8);
  if (rank == 2) {
    const index_t gy = (a.n0 + 8 * ROWS - 1) / (8 * ROWS);
    if (gy > 65535) return false;
    diffusion_stage_2d<T, I, ROWS><<<dim3(unsigned((a.n1 + 31) / 32), unsigned(gy)), block, 0, stream>>>(a);
  } else {
    // 3D block height in dimension 1 (SIMKIT_DIFFUSION_BLOCK_Y = 16 overrides, for tuning;
    // 8 measured best on the H100, bench/results/2026-11-22-h100-heat3d-tile)
    static const int by = diffusion_knob("SIMKIT_DIFFUSION_BLOCK_Y") == 16 ? 16 : 8;
    const index_t gz = (a.n0 + ROWS - 1) / ROWS, gy = (a.n1 + by - 1) / by;
    if (gz > 65535 || gy > 65535) return false;
    const dim3 grid(unsigned((a.n2 + 31) / 32), unsigned(gy), unsigned(gz));
    const bool extra = a.has_src || a.has_u0;
    if (by == 8 && extra) diffusion_stage_3d<T, I, ROWS, 8, true><<<grid, block, 0, stream>>>(a);
    if (by == 8 && !extra) diffusion_stage_3d<T, I, ROWS, 8, false><<<grid, block, 0, stream>>>(a);
    if (by == 16 && extra) diffusion_stage_3d<T, I, ROWS, 16, true><<<grid, dim3(32, 16), 0, stream>>>(a);
    if (by == 16 && !extra) diffusion_stage_3d<T, I, ROWS, 16, false><<<grid, dim3(32, 16), 0, stream>>>(a);
  }
  return true;
}

/// Launches the stage; false when the grid is too large for this kernel's launch shape
/// (the caller then uses the generic path).
template <class T>
bool launch_diffusion_stage(const Context& ctx, int rank, const DiffusionArgs<T>& a, index_t allocation) {
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  const bool small = allocation < (index_t(1) << 31) - 1;
  bool ok = false;
  switch (diffusion_rows(sizeof(T)) * (small ? 1 : -1)) {
    case 1: ok = launch_rows<T, int, 1>(a, rank, stream); break;
    case 2: ok = launch_rows<T, int, 2>(a, rank, stream); break;
    case 4: ok = launch_rows<T, int, 4>(a, rank, stream); break;
    case 8: ok = launch_rows<T, int, 8>(a, rank, stream); break;
    case -1: ok = launch_rows<T, index_t, 1>(a, rank, stream); break;
    case -2: ok = launch_rows<T, index_t, 2>(a, rank, stream); break;
    case -8: ok = launch_rows<T, index_t, 8>(a, rank, stream); break;
    default: ok = launch_rows<T, index_t, 4>(a, rank, stream); break;
  }
  if (ok) SIM_CUDA_CHECK_LAUNCH("sim::diffusion_stage", stream);
  return ok;
}

}  // namespace sim::gpu
