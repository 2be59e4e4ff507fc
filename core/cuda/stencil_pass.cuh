#pragma once
// The tuned GPU kernels behind sim::stencil_pass (core/stencil_pass.hpp), for any model's
// pointwise update. Blocks of 32 x 8 threads (in 3D with a shared-memory tile for the
// dimension-1 neighbours), the 32 along the contiguous dimension (coalesced); each thread
// updates ROWS consecutive cells along dimension 0 and issues all its neighbour loads (of
// every field read with neighbours) before the first update, so more bytes are in flight per
// thread (what a memory-bound float32 stencil needs). 32-bit offsets when the fields fit
// (cheaper address arithmetic than 64-bit). On a face of the contiguous dimension with a rule
// (lo / hi `on`), the edge lanes apply it instead of reading the ghost: no separate strided
// ghost fill, and no ghost sector read. The update sees each cell as a StencilCell: the stars
// of the fields read with neighbours, and read(p) / write(o, x) of the others at the cell.
// In 3D, a second kernel marches along dimension 0 instead (stencil_march_3d, "2.5D
// blocking": each plane read once per block); SIMKIT_STENCIL_MARCH picks the kernel (0: the
// per-block stencil_pass_3d, N: marching over chunks of N planes; default_march otherwise).
// Tuning constants (block shape, rows per thread, occupancy) live here, in one place.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <type_traits>

#include "core/boundary.hpp"
#include "core/cuda/check.hpp"
#include "core/stencil.hpp"

namespace sim::gpu {

/// N pointers (at least one slot, so that N = 0 compiles).
template <class T, int N>
struct Ptrs {
  T* __restrict__ p[N > 0 ? N : 1];
};

/// What one launch needs: the update, the fields (S read with neighbours, P at the cell, O
/// written), the box's extents and strides (shared by all fields) and the contiguous
/// dimension's face rules per neighbour-read field.
template <class T, int S, int P, int O, class U>
struct PassArgs {
  U update;
  Ptrs<const T, S> in;
  Ptrs<const T, P> point;
  Ptrs<T, O> out;
  index_t n0, n1, n2;  // the box's extents (n2 = 1 in 2D)
  index_t s0, s1;      // strides of dimensions 0 and 1 (the last stride is 1)
  FaceRule<T> lo[S], hi[S];
  index_t period;      // the grid's extent in the contiguous dimension (periodic rules read across it)
};

/// read(p) and write(o, x) at one cell: offset o of every field.
template <class T, int P, int O, class I>
struct OffsetAccess {
  Ptrs<const T, P> point;
  Ptrs<T, O> out;
  I o;
  __device__ __forceinline__ T read(int k) const { return point.p[k][o]; }
  __device__ __forceinline__ void write(int k, T x) const { out.p[k][o] = x; }
};

/// The neighbour across a ruled face: sign * (periodic ? the far cell, loaded : the centre) + add.
template <class T>
__device__ __forceinline__ T ruled(const FaceRule<T>& f, T loaded, T center) {
  return f.sign * (f.periodic ? loaded : center) + f.add;
}

/// The contiguous dimension's neighbour of offset o at step +-1: across the face's rule where
/// `at` (loaded from the periodic partner or not at all), else the cell beside.
template <class T, class I>
__device__ __forceinline__ T side_load(const T* __restrict__ v, I o, int step, bool at, const FaceRule<T>& f, I period) {
  return at ? (f.periodic ? v[o + step - step * period] : T(0)) : v[o + step];
}

template <class T, class I, int ROWS, int S, int P, int O, class U>
__global__ void __launch_bounds__(256) stencil_pass_2d(PassArgs<T, S, P, O, U> a) {
  const I j = I(blockIdx.x) * 32 + I(threadIdx.x);
  const I i0 = (I(blockIdx.y) * 8 + I(threadIdx.y)) * ROWS;
  if (j >= I(a.n1) || i0 >= I(a.n0)) return;
  const I s0 = I(a.s0), n0 = I(a.n0), base = i0 * s0 + j, period = I(a.period);
  bool at_lo[S], at_hi[S];
  T col[S][ROWS + 2], left[S][ROWS], right[S][ROWS];
#pragma unroll
  for (int s = 0; s < S; ++s) {
    at_lo[s] = a.lo[s].on && j == 0, at_hi[s] = a.hi[s].on && j == I(a.n1) - 1;
#pragma unroll
    for (int r = 0; r < ROWS + 2; ++r) col[s][r] = i0 + r - 1 <= n0 ? a.in.p[s][base + (r - 1) * s0] : T(0);
  }
#pragma unroll
  for (int s = 0; s < S; ++s)
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
      if (i0 + r < n0) {
        const I o = base + r * s0;
        left[s][r] = side_load(a.in.p[s], o, -1, at_lo[s], a.lo[s], period);
        right[s][r] = side_load(a.in.p[s], o, 1, at_hi[s], a.hi[s], period);
      }
#pragma unroll
  for (int r = 0; r < ROWS; ++r)
    if (i0 + r < n0) {
      StencilCell<T, 2, S, OffsetAccess<T, P, O, I>> x{{}, {a.point, a.out, base + r * s0}};
#pragma unroll
      for (int s = 0; s < S; ++s) {
        const T c = col[s][r + 1];
        x.in[s].c = c;
        x.in[s].lo[0] = col[s][r], x.in[s].hi[0] = col[s][r + 2];
        x.in[s].lo[1] = at_lo[s] ? ruled(a.lo[s], left[s][r], c) : left[s][r];
        x.in[s].hi[1] = at_hi[s] ? ruled(a.hi[s], right[s][r], c) : right[s][r];
      }
      a.update(x);
    }
}

/// One 3D block's cells: 32 columns (k) x BY rows (j) x ROWS planes (i). The j neighbours
/// come from a shared-memory tile of the block's centres (rows j-1 and j+BY loaded by the
/// first and last warp rows), so each row leaves L2 once per block: the float32 3D stage
/// is bound by L2 traffic (its fabric between the two L2 halves, per ncu on the H100).
/// GUARD: a block at the grid's far edges (partial in some dimension); all threads reach
/// the barrier either way.
template <class T, class I, int ROWS, int BY, bool GUARD, int S, int P, int O, class U>
__device__ __forceinline__ void pass_3d_block(const PassArgs<T, S, P, O, U>& a, T (&tile)[S][ROWS][BY + 2][32]) {
  const int tx = int(threadIdx.x), ty = int(threadIdx.y);
  const I k = I(blockIdx.x) * 32 + tx, j = I(blockIdx.y) * BY + ty, i0 = I(blockIdx.z) * ROWS;
  const I s0 = I(a.s0), s1 = I(a.s1), n0 = I(a.n0), n1 = I(a.n1), n2 = I(a.n2), base = i0 * s0 + j * s1 + k;
  const I period = I(a.period), halo_offset = ty == 0 ? -s1 : s1;
  const bool in = !GUARD || (k < n2 && j < n1);
  const bool centre = !GUARD || (k < n2 && j <= n1);  // row n1 (ghosts) is row n1-1's neighbour in the tile
  const bool edge = ty == 0 || ty == BY - 1;
  bool at_lo[S], at_hi[S];
  T col[S][ROWS + 2], km[S][ROWS], kp[S][ROWS], halo[S][ROWS];
#pragma unroll
  for (int s = 0; s < S; ++s) {
    at_lo[s] = a.lo[s].on && k == 0, at_hi[s] = a.hi[s].on && k == n2 - 1;
#pragma unroll
    for (int r = 0; r < ROWS + 2; ++r)
      col[s][r] = centre && (!GUARD || i0 + r - 1 <= n0) ? a.in.p[s][base + (r - 1) * s0] : T(0);
  }
#pragma unroll
  for (int s = 0; s < S; ++s)
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const I o = base + r * s0;
      const bool row = in && (!GUARD || i0 + r < n0);
      km[s][r] = row ? side_load(a.in.p[s], o, -1, at_lo[s], a.lo[s], period) : T(0);
      kp[s][r] = row ? side_load(a.in.p[s], o, 1, at_hi[s], a.hi[s], period) : T(0);
      halo[s][r] = row && edge ? a.in.p[s][o + halo_offset] : T(0);
    }
#pragma unroll
  for (int s = 0; s < S; ++s)
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      tile[s][r][ty + 1][tx] = col[s][r + 1];
      if (edge) tile[s][r][ty == 0 ? 0 : BY + 1][tx] = halo[s][r];
    }
  __syncthreads();
#pragma unroll
  for (int r = 0; r < ROWS; ++r)
    if (in && (!GUARD || i0 + r < n0)) {
      StencilCell<T, 3, S, OffsetAccess<T, P, O, I>> x{{}, {a.point, a.out, base + r * s0}};
#pragma unroll
      for (int s = 0; s < S; ++s) {
        const T c = col[s][r + 1];
        x.in[s].c = c;
        x.in[s].lo[0] = col[s][r], x.in[s].hi[0] = col[s][r + 2];
        x.in[s].lo[1] = tile[s][r][ty][tx], x.in[s].hi[1] = tile[s][r][ty + 2][tx];
        x.in[s].lo[2] = at_lo[s] ? ruled(a.lo[s], km[s][r], c) : km[s][r];
        x.in[s].hi[2] = at_hi[s] ? ruled(a.hi[s], kp[s][r], c) : kp[s][r];
      }
      a.update(x);
    }
}

/// Occupancy asked of ptxas for the 3D pass. One field read with neighbours (the heat stage):
/// full (32 registers) where that spills at most a word (float64, two rows, none read at the
/// cell: the stage without source or blend), else three quarters (40 registers); measured on
/// the H100, bench/results/2026-11-22-h100-heat3d-tile. Two or more (Gray-Scott): half (64
/// registers), as 40 would spill their neighbour registers (ptxas: 140-160 bytes).
template <class T, int ROWS, int S, int P>
constexpr int pass_3d_threads_per_sm() {
  if (S > 1) return 1024;
  return sizeof(T) == 8 && ROWS <= 2 && P == 0 ? 2048 : 1536;
}

template <class T, class I, int ROWS, int BY, int S, int P, int O, class U>
__global__ void __launch_bounds__(32 * BY, pass_3d_threads_per_sm<T, ROWS, S, P>() / (32 * BY))
    stencil_pass_3d(PassArgs<T, S, P, O, U> a) {
  __shared__ T tile[S][ROWS][BY + 2][32];
  const bool full = (I(blockIdx.x) + 1) * 32 <= I(a.n2) && (I(blockIdx.y) + 1) * BY <= I(a.n1) &&
                    (I(blockIdx.z) + 1) * ROWS <= I(a.n0);
  if (full) pass_3d_block<T, I, ROWS, BY, false>(a, tile);
  else pass_3d_block<T, I, ROWS, BY, true>(a, tile);
}

/// One marching 3D block's cells ("2.5D blocking"): 32 columns (k) x BY rows (j), marching
/// along dimension 0 over planes ib .. ie - 1. Each thread keeps its column's centres at
/// planes i-1, i, i+1 of every field read with neighbours in registers, rotating them as it
/// steps, so each plane's centres leave L2 once per block (stencil_pass_3d's ROWS-plane blocks
/// read 2 halo planes per ROWS). The j neighbours come from a shared-memory tile of plane i's
/// centres (rows j-1 and j+BY loaded by the first and last warp rows), double-buffered so one
/// barrier per plane suffices. Loads run ahead of the update: the centres of the AHEAD planes
/// after i+1, and plane i+1's k neighbours and j-halo cells, are in flight while plane i is
/// computed. The update sees the same cell, value for value, as in stencil_pass_3d. GUARD: a
/// block partial in k or j; every thread steps through the same planes and reaches each barrier.
template <class T, class I, int BY, int AHEAD, bool GUARD, int S, int P, int O, class U>
__device__ __forceinline__ void march_3d_block(const PassArgs<T, S, P, O, U>& a, T (&tile)[2][S][BY + 2][32], I ib,
                                               I ie) {
  constexpr int W = 3 + AHEAD;  // centres held: planes i-1 .. i+1+AHEAD
  const int tx = int(threadIdx.x), ty = int(threadIdx.y);
  const I k = I(blockIdx.x) * 32 + tx, j = I(blockIdx.y) * BY + ty;
  const I s0 = I(a.s0), s1 = I(a.s1), n1 = I(a.n1), n2 = I(a.n2), period = I(a.period);
  const I halo_offset = ty == 0 ? -s1 : s1;
  const bool in = !GUARD || (k < n2 && j < n1);
  const bool centre = !GUARD || (k < n2 && j <= n1);  // row n1 (ghosts) is row n1-1's neighbour in the tile
  const bool edge = ty == 0 || ty == BY - 1;
  const int halo_row = ty == 0 ? 0 : BY + 1;
  bool at_lo[S], at_hi[S];
  T col[S][W];             // the column's centres: col[s][0] at plane i-1, col[s][1] at i, ...
  T km[S], kp[S], halo[S];  // plane i's k -1 / +1 neighbours and (edge rows) j-halo cell
  I o = ib * s0 + j * s1 + k;  // plane i's offset
  // before plane ib: centres at ib-1 .. ib+AHEAD (up to ie, the ghost plane at most), sides of ib
#pragma unroll
  for (int s = 0; s < S; ++s) {
    at_lo[s] = a.lo[s].on && k == 0, at_hi[s] = a.hi[s].on && k == n2 - 1;
#pragma unroll
    for (int r = 0; r < W - 1; ++r) col[s][r] = centre && ib + r - 1 <= ie ? a.in.p[s][o + (r - 1) * s0] : T(0);
    km[s] = in ? side_load(a.in.p[s], o, -1, at_lo[s], a.lo[s], period) : T(0);
    kp[s] = in ? side_load(a.in.p[s], o, 1, at_hi[s], a.hi[s], period) : T(0);
    halo[s] = in && edge ? a.in.p[s][o + halo_offset] : T(0);
  }
  for (I i = ib; i < ie; ++i, o += s0) {
    T(&t)[S][BY + 2][32] = tile[int(i - ib) & 1];
    // loads in flight while plane i is computed: centres at i+1+AHEAD, sides of plane i+1
    const bool far = i + 1 + AHEAD <= ie, next = i + 1 < ie;
    T km_next[S], kp_next[S], halo_next[S];
#pragma unroll
    for (int s = 0; s < S; ++s) {
      const I on = o + s0;
      col[s][W - 1] = centre && far ? a.in.p[s][o + (1 + AHEAD) * s0] : T(0);
      km_next[s] = in && next ? side_load(a.in.p[s], on, -1, at_lo[s], a.lo[s], period) : T(0);
      kp_next[s] = in && next ? side_load(a.in.p[s], on, 1, at_hi[s], a.hi[s], period) : T(0);
      halo_next[s] = in && next && edge ? a.in.p[s][on + halo_offset] : T(0);
    }
#pragma unroll
    for (int s = 0; s < S; ++s) {
      t[s][ty + 1][tx] = col[s][1];
      if (edge) t[s][halo_row][tx] = halo[s];
    }
    __syncthreads();  // the other buffer is written next plane: no second barrier
    if (in) {
      StencilCell<T, 3, S, OffsetAccess<T, P, O, I>> x{{}, {a.point, a.out, o}};
#pragma unroll
      for (int s = 0; s < S; ++s) {
        const T c = col[s][1];
        x.in[s].c = c;
        x.in[s].lo[0] = col[s][0], x.in[s].hi[0] = col[s][2];
        x.in[s].lo[1] = t[s][ty][tx], x.in[s].hi[1] = t[s][ty + 2][tx];
        x.in[s].lo[2] = at_lo[s] ? ruled(a.lo[s], km[s], c) : km[s];
        x.in[s].hi[2] = at_hi[s] ? ruled(a.hi[s], kp[s], c) : kp[s];
      }
      a.update(x);
    }
#pragma unroll
    for (int s = 0; s < S; ++s) {
#pragma unroll
      for (int r = 0; r < W - 1; ++r) col[s][r] = col[s][r + 1];
      km[s] = km_next[s], kp[s] = kp_next[s], halo[s] = halo_next[s];
    }
  }
}

/// Occupancy asked of ptxas for the marching 3D pass. Per ptxas -v (sm_90, nvcc 13.0) on the
/// heat stage and Gray-Scott's step, 32-bit offsets, AHEAD 1 or 2: float32 with one or two
/// fields read with neighbours, three quarters (40 registers, no spill; at 32 the heat stage
/// spills 16-24 bytes, Gray-Scott 56); float64, or more fields: half (64; at 40 they spill
/// 16-124 bytes).
template <class T, int S>
constexpr int march_3d_threads_per_sm() {
  return sizeof(T) == 4 && S <= 2 ? 1536 : 1024;
}

/// The marching 3D pass: blocks of 32 x BY columns, each over one chunk of `chunk` planes
/// along dimension 0 (blockIdx.z), the last chunk shorter where chunk does not divide n0.
template <class T, class I, int BY, int AHEAD, int S, int P, int O, class U>
__global__ void __launch_bounds__(32 * BY, march_3d_threads_per_sm<T, S>() / (32 * BY))
    stencil_march_3d(PassArgs<T, S, P, O, U> a, I chunk) {
  __shared__ T tile[2][S][BY + 2][32];
  const I ib = I(blockIdx.z) * chunk, ie = ib + chunk < I(a.n0) ? ib + chunk : I(a.n0);
  const bool full = (I(blockIdx.x) + 1) * 32 <= I(a.n2) && (I(blockIdx.y) + 1) * BY <= I(a.n1);
  if (full) march_3d_block<T, I, BY, AHEAD, false>(a, tile, ib, ie);
  else march_3d_block<T, I, BY, AHEAD, true>(a, tile, ib, ie);
}

/// A tuning override from the environment, or 0.
inline int stencil_knob(const char* name) {
  const char* e = std::getenv(name);
  return e ? std::atoi(e) : 0;
}

/// Cells per thread along dimension 0 by default: measured best on the H100 for the heat
/// stage (bench/results/2026-11-21-h100-run3).
template <class T>
constexpr int default_rows() { return sizeof(T) == 4 ? 4 : 2; }

/// Cells per thread along dimension 0 (SIMKIT_STENCIL_ROWS = 1, 2, 4 or 8 overrides, for tuning).
template <class T>
int stencil_rows() {
  static const int forced = stencil_knob("SIMKIT_STENCIL_ROWS");
  if (forced == 1 || forced == 2 || forced == 4 || forced == 8) return forced;
  return default_rows<T>();
}

/// Whether the 3D tile of S fields (ROWS planes of BY + 2 rows of 32) fits the 48 KB of
/// static shared memory a block may have.
template <class T, int S, int ROWS, int BY>
constexpr bool tile_fits() { return S * ROWS * (BY + 2) * 32 * sizeof(T) <= 48 * 1024; }

/// ROWS, or fewer where the 3D tile of blocks BY high would not fit.
template <class T, int S, int ROWS, int BY>
constexpr int fitting_rows() {
  int r = ROWS;
  while (r > 1 && S * r * (BY + 2) * 32 * sizeof(T) > 48 * 1024) r /= 2;
  return r;
}

template <class T, class I, int ROWS_ASKED, int Rank, int S, int P, int O, class U>
bool launch_rows(const PassArgs<T, S, P, O, U>& a, cudaStream_t stream) {
  constexpr int ROWS = Rank == 2 ? ROWS_ASKED : fitting_rows<T, S, ROWS_ASKED, 8>();
  static_assert(Rank == 2 || tile_fits<T, S, ROWS, 8>(), "stencil_pass: too many fields read with neighbours for "
                                                         "the 3D tile in shared memory");
  const dim3 block(32, 8);
  if constexpr (Rank == 2) {
    const index_t gy = (a.n0 + 8 * ROWS - 1) / (8 * ROWS);
    if (gy > 65535) return false;
    stencil_pass_2d<T, I, ROWS><<<dim3(unsigned((a.n1 + 31) / 32), unsigned(gy)), block, 0, stream>>>(a);
  } else {
    // 3D block height in dimension 1 (SIMKIT_STENCIL_BLOCK_Y = 16 overrides, for tuning, with
    // 32-bit offsets; 8 measured best on the H100, bench/results/2026-11-22-h100-heat3d-tile)
    static const int knob = stencil_knob("SIMKIT_STENCIL_BLOCK_Y");
    constexpr bool offer16 = std::is_same<I, int>::value && tile_fits<T, S, ROWS, 16>();
    const int by = offer16 && knob == 16 ? 16 : 8;
    const index_t gz = (a.n0 + ROWS - 1) / ROWS, gy = (a.n1 + by - 1) / by;
    if (gz > 65535 || gy > 65535) return false;
    const dim3 grid(unsigned((a.n2 + 31) / 32), unsigned(gy), unsigned(gz));
    if constexpr (offer16)
      if (by == 16) {
        stencil_pass_3d<T, I, ROWS, 16><<<grid, dim3(32, 16), 0, stream>>>(a);
        return true;
      }
    stencil_pass_3d<T, I, ROWS, 8><<<grid, block, 0, stream>>>(a);
  }
  return true;
}

/// Whether the marching 3D tile of S fields (two planes of BY + 2 rows of 32) fits the 48 KB
/// of static shared memory a block may have.
template <class T, int S, int BY>
constexpr bool march_tile_fits() { return 2 * S * (BY + 2) * 32 * sizeof(T) <= 48 * 1024; }

/// The marching 3D kernel's chunk of planes when SIMKIT_STENCIL_MARCH is unset: 64 (chosen
/// before measuring: 2 planes in 64 read twice, and 512^3 still gives 8 chunks, 8192 blocks
/// of 32 x 8, about ten waves on 132 SMs; the whole extent would leave 1024 blocks, 1.3 waves).
template <class T, int S>
constexpr int default_march() { return 64; }

/// Centre planes the marching kernel loads ahead of plane i+1 by default: 1 (chosen before
/// measuring; 2 holds one more register per field read with neighbours).
constexpr int default_march_ahead() { return 1; }

/// The 3D kernel asked for: 0 for stencil_pass_3d (ROWS planes a block), N > 0 for
/// stencil_march_3d over chunks of N planes, -1 for the default (default_march).
/// SIMKIT_STENCIL_MARCH sets it (read once); set_stencil_march changes it.
inline std::atomic<int>& stencil_march_setting() {
  static std::atomic<int> m{std::getenv("SIMKIT_STENCIL_MARCH") ? std::max(-1, stencil_knob("SIMKIT_STENCIL_MARCH")) : -1};
  return m;
}

/// The marching kernel's centre planes loaded ahead, 1 or 2, or -1 for the default
/// (default_march_ahead). SIMKIT_STENCIL_MARCH_AHEAD sets it (read once); set_stencil_march changes it.
inline std::atomic<int>& stencil_march_ahead_setting() {
  static std::atomic<int> m{[] {
    const int knob = stencil_knob("SIMKIT_STENCIL_MARCH_AHEAD");
    return knob == 1 || knob == 2 ? knob : -1;
  }()};
  return m;
}

/// The 3D kernel's choice as a test sets it: chunk as SIMKIT_STENCIL_MARCH, ahead as
/// SIMKIT_STENCIL_MARCH_AHEAD (-1: the default).
struct MarchChoice {
  int chunk = -1, ahead = -1;
};

/// Chooses the 3D kernel (values as the environment knobs'; -1 the defaults); returns the previous choice.
inline MarchChoice set_stencil_march(MarchChoice m) {
  MarchChoice previous;
  previous.chunk = stencil_march_setting().exchange(m.chunk < 0 ? -1 : m.chunk);
  previous.ahead = stencil_march_ahead_setting().exchange(m.ahead == 1 || m.ahead == 2 ? m.ahead : -1);
  return previous;
}

/// The marching chunk for a 3D pass of S fields of T read with neighbours, or 0 for stencil_pass_3d.
template <class T, int S>
int stencil_march() {
  const int m = stencil_march_setting().load();
  return m < 0 ? default_march<T, S>() : m;
}

/// Launches stencil_march_3d with AHEAD centre planes in flight, blocks 32 x by.
template <class T, class I, int AHEAD, int S, int P, int O, class U>
void launch_march_ahead(const PassArgs<T, S, P, O, U>& a, I chunk, dim3 grid, int by, cudaStream_t stream) {
  if constexpr (std::is_same<I, int>::value && march_tile_fits<T, S, 16>())
    if (by == 16) {
      stencil_march_3d<T, I, 16, AHEAD><<<grid, dim3(32, 16), 0, stream>>>(a, chunk);
      return;
    }
  stencil_march_3d<T, I, 8, AHEAD><<<grid, dim3(32, 8), 0, stream>>>(a, chunk);
}

/// Launches the marching 3D pass over chunks of `march` planes; false when the grid would be too large.
template <class T, class I, int S, int P, int O, class U>
bool launch_march(const PassArgs<T, S, P, O, U>& a, int march, cudaStream_t stream) {
  static_assert(march_tile_fits<T, S, 8>(), "stencil_pass: too many fields read with neighbours for the marching 3D "
                                            "tile in shared memory");
  // block height in dimension 1: SIMKIT_STENCIL_BLOCK_Y = 16 as for stencil_pass_3d (32-bit offsets)
  static const int knob_by = stencil_knob("SIMKIT_STENCIL_BLOCK_Y");
  const bool offer16 = std::is_same<I, int>::value && march_tile_fits<T, S, 16>();
  const int by = offer16 && knob_by == 16 ? 16 : 8;
  const int asked = stencil_march_ahead_setting().load();
  const int ahead = asked > 0 ? asked : default_march_ahead();
  const index_t chunk = march < a.n0 ? index_t(march) : a.n0;
  const index_t gz = (a.n0 + chunk - 1) / chunk, gy = (a.n1 + by - 1) / by;
  if (gz > 65535 || gy > 65535) return false;
  const dim3 grid(unsigned((a.n2 + 31) / 32), unsigned(gy), unsigned(gz));
  if (ahead == 2) launch_march_ahead<T, I, 2>(a, I(chunk), grid, by, stream);
  else launch_march_ahead<T, I, 1>(a, I(chunk), grid, by, stream);
  return true;
}

/// Launches the pass over a 2D or 3D box; false when the box is too large for this kernel's
/// launch shape (the caller then takes the generic for_each path). allocation: the largest
/// offset the pass reaches (32-bit offsets below 2^31).
template <int Rank, class T, int S, int P, int O, class U>
bool launch_stencil_pass(const Context& ctx, const char* name, const PassArgs<T, S, P, O, U>& a, index_t allocation) {
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  const bool small = allocation < (index_t(1) << 31) - 1;
  bool ok = false;
  int march = 0;
  if constexpr (Rank == 3) march = stencil_march<T, S>();
  if (march > 0) {
    if constexpr (Rank == 3) ok = small ? launch_march<T, int>(a, march, stream) : launch_march<T, index_t>(a, march, stream);
  } else if (!small) {
    ok = launch_rows<T, index_t, default_rows<T>(), Rank>(a, stream);  // rare: no tuning variants
  } else {
    switch (stencil_rows<T>()) {
      case 1: ok = launch_rows<T, int, 1, Rank>(a, stream); break;
      case 2: ok = launch_rows<T, int, 2, Rank>(a, stream); break;
      case 8: ok = launch_rows<T, int, 8, Rank>(a, stream); break;
      default: ok = launch_rows<T, int, 4, Rank>(a, stream); break;
    }
  }
  if (ok) SIM_CUDA_CHECK_LAUNCH(name, stream);
  return ok;
}

}  // namespace sim::gpu
