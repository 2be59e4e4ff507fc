#pragma once
// The tuned GPU kernels behind sim::stencil_pass (core/mesh/stencil_pass.hpp), for any model's
// pointwise update. Blocks of 32 x 8 threads (in 3D with a shared-memory tile for the
// dimension-1 neighbours), the 32 along the contiguous dimension (coalesced); each thread
// updates ROWS consecutive cells along dimension 0 and issues all its neighbour loads (of
// every field read with neighbours) before the first update, so more bytes are in flight per
// thread (what a memory-bound float32 stencil needs). 32-bit offsets when the fields fit
// (cheaper address arithmetic than 64-bit). On a face of the contiguous dimension with a rule
// (lo / hi `on`), the edge lanes apply it instead of reading the ghost: no separate strided
// ghost fill, and no ghost sector read. The update sees each cell as a StencilCell: the stars
// of the fields read with neighbours, and read(p) / write(o, x) of the others at the cell.
// 3D has a paired-column variant (stencil_pass_3d_pairs, on by default for float32 and
// float64, SIMKIT_STENCIL_PAIRS = 0 / 1): each thread updates two adjacent cells along the
// contiguous dimension, loaded and stored as one float2 / double2, their k neighbours
// shuffled from the lanes beside, so a block covers 64 columns with half the load
// instructions per byte. It needs every field's rows at one parity (pair_phase in
// core/mesh/stencil.hpp); other layouts, 64-bit offsets and 2D take the one-cell kernels.
// Tuning constants (block shape, rows per thread, occupancy) live here, in one place.
#include <cuda_runtime.h>

#include <cstdlib>
#include <type_traits>

#include "core/mesh/boundary.hpp"
#include "core/cuda/check.hpp"
#include "core/runtime/tuning.hpp"
#include "core/mesh/stencil.hpp"

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

/// Puts a 3D block's centres (col's planes 1..ROWS) in its shared tile, and the edge rows'
/// outer neighbours (halo) in the tile's rows 0 and BY + 1. V: a cell, or a pair of cells.
template <int BY, class V, int S, int ROWS>
__device__ __forceinline__ void store_tile(V (&tile)[S][ROWS][BY + 2][32], const V (&col)[S][ROWS + 2],
                                           const V (&halo)[S][ROWS], int tx, int ty, bool edge) {
#pragma unroll
  for (int s = 0; s < S; ++s)
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      tile[s][r][ty + 1][tx] = col[s][r + 1];
      if (edge) tile[s][r][ty == 0 ? 0 : BY + 1][tx] = halo[s][r];
    }
}

/// One 3D block's cells: 32 columns (k) x BY rows (j) x ROWS planes (i). The j neighbours
/// come from a shared-memory tile of the block's centres (rows j-1 and j+BY loaded by the
/// first and last warp rows), so each row leaves L2 once per block: the float32 3D stage
/// is bound by L2 traffic (its fabric between the two L2 halves, per ncu).
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
  store_tile<BY>(tile, col, halo, tx, ty, edge);
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
/// cell: the stage without source or blend), else three quarters (40 registers), the fastest
/// of the occupancies measured (docs/performance.md). Two or more (Gray-Scott): half (64
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

/// The vector type of two adjacent cells (float2 / double2; void: T has no pairs).
template <class T>
struct PairOf {
  using type = void;
};
template <>
struct PairOf<float> {
  using type = float2;
};
template <>
struct PairOf<double> {
  using type = double2;
};
template <class T>
using Pair = typename PairOf<T>::type;

/// The pair of cells at offsets o and o + 1, in one aligned load (o's address is even in elements).
template <class T, class I>
__device__ __forceinline__ Pair<T> load_pair(const T* __restrict__ v, I o) {
  return *reinterpret_cast<const Pair<T>*>(v + o);
}

/// read(p) and write(o, x) at one cell of a pair: the point reads are loaded before the
/// update and its results kept in registers, so that both cells' go to memory as pairs.
template <class T, int P, int O>
struct PairCellAccess {
  const T* point;  // this cell's value of each field read at the cell
  T* out;          // the update's results
  bool* written;   // which results the update wrote
  __device__ __forceinline__ T read(int k) const { return point[k]; }
  __device__ __forceinline__ void write(int k, T x) const { out[k] = x, written[k] = true; }
};

/// One 3D block of the paired-column variant: 32 x BY threads, each updating two adjacent
/// cells of a row (64 columns a block), ROWS planes deep. Centres (and the tile's j rows)
/// are pair loads; the k neighbours come from the lanes beside (shuffles), the block's edge
/// lanes loading the cell before its first column and after its last, and the thread at a
/// ruled face the rule's partner (periodic). Column k0 = 2q - phase (q the thread's pair):
/// with phase 1 the first pair's column -1 is a neighbour only, never updated.
template <class T, class I, int ROWS, int BY, bool GUARD, int S, int P, int O, class U>
__device__ __forceinline__ void pass_3d_pairs_block(const PassArgs<T, S, P, O, U>& a, int phase,
                                                    Pair<T> (&tile)[S][ROWS][BY + 2][32]) {
  const int tx = int(threadIdx.x), ty = int(threadIdx.y);
  const I k0 = (I(blockIdx.x) * 32 + tx) * 2 - I(phase), j = I(blockIdx.y) * BY + ty, i0 = I(blockIdx.z) * ROWS;
  const I s0 = I(a.s0), s1 = I(a.s1), n0 = I(a.n0), n1 = I(a.n1), n2 = I(a.n2), base = i0 * s0 + j * s1 + k0;
  const I period = I(a.period), halo_offset = ty == 0 ? -s1 : s1;
  const bool in = !GUARD || (k0 < n2 && j < n1);
  const bool centre = !GUARD || (k0 < n2 && j <= n1);  // row n1 (ghosts) is row n1-1's neighbour in the tile
  const bool edge = ty == 0 || ty == BY - 1;
  const bool a_ok = !GUARD || k0 >= 0, b_ok = !GUARD || k0 + 1 < n2;  // cells k0 and k0 + 1 in the box
  // the lane loads the k+1 neighbour itself: the warp's last lane, or the row's last pair
  const bool own_hi = tx == 31 || (GUARD && k0 + 2 >= n2);
  bool lo_a[S], lo_b[S], hi_a[S], hi_b[S];  // cell k0 / k0 + 1 on the ruled face lo / hi
  Pair<T> col[S][ROWS + 2], halo[S][ROWS];
  T km[S][ROWS], kp[S][ROWS];  // the neighbours this lane loads itself (or 0)
#pragma unroll
  for (int s = 0; s < S; ++s) {
    lo_a[s] = a.lo[s].on && k0 == 0, lo_b[s] = GUARD && a.lo[s].on && k0 == -1;
    hi_a[s] = GUARD && a.hi[s].on && k0 == n2 - 1, hi_b[s] = a.hi[s].on && k0 + 1 == n2 - 1;
#pragma unroll
    for (int r = 0; r < ROWS + 2; ++r)
      col[s][r] = centre && (!GUARD || i0 + r - 1 <= n0) ? load_pair(a.in.p[s], base + (r - 1) * s0) : Pair<T>{};
  }
#pragma unroll
  for (int s = 0; s < S; ++s)
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const I o = base + r * s0;
      const T* __restrict__ v = a.in.p[s];
      const bool row = in && (!GUARD || i0 + r < n0);
      km[s][r] = !row || tx != 0 ? T(0)
                 : lo_b[s]       ? side_load(v, o + 1, -1, true, a.lo[s], period)
                 : a_ok          ? side_load(v, o, -1, lo_a[s], a.lo[s], period)
                                 : T(0);
      kp[s][r] = !row || !own_hi ? T(0)
                 : hi_a[s]       ? side_load(v, o, 1, true, a.hi[s], period)
                 : b_ok          ? side_load(v, o + 1, 1, hi_b[s], a.hi[s], period)
                                 : T(0);
      halo[s][r] = row && edge ? load_pair(v, o + halo_offset) : Pair<T>{};
    }
  store_tile<BY>(tile, col, halo, tx, ty, edge);
  __syncthreads();
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    // every lane shuffles (a warp is one row of the block): the cell before k0 is the lane
    // below's second, the cell after k0 + 1 the lane above's first
    T before[S], after[S];
#pragma unroll
    for (int s = 0; s < S; ++s) {
      before[s] = __shfl_up_sync(0xffffffffu, col[s][r + 1].y, 1);
      after[s] = __shfl_down_sync(0xffffffffu, col[s][r + 1].x, 1);
    }
    if (!in || (GUARD && i0 + r >= n0)) continue;
    const I o = base + r * s0;
    T pa[P > 0 ? P : 1], pb[P > 0 ? P : 1], ra[O > 0 ? O : 1], rb[O > 0 ? O : 1];
    bool wa[O > 0 ? O : 1] = {}, wb[O > 0 ? O : 1] = {};
#pragma unroll
    for (int p = 0; p < P; ++p) {
      if (a_ok && b_ok) {
        const Pair<T> x = load_pair(a.point.p[p], o);
        pa[p] = x.x, pb[p] = x.y;
      } else {
        pa[p] = a_ok ? a.point.p[p][o] : T(0), pb[p] = b_ok ? a.point.p[p][o + 1] : T(0);
      }
    }
    StencilCell<T, 3, S, PairCellAccess<T, P, O>> ca{{}, {pa, ra, wa}}, cb{{}, {pb, rb, wb}};
#pragma unroll
    for (int s = 0; s < S; ++s) {
      const T xa = col[s][r + 1].x, xb = col[s][r + 1].y;
      const Pair<T> jm = tile[s][r][ty][tx], jp = tile[s][r][ty + 2][tx];
      ca.in[s].c = xa, cb.in[s].c = xb;
      ca.in[s].lo[0] = col[s][r].x, ca.in[s].hi[0] = col[s][r + 2].x;
      cb.in[s].lo[0] = col[s][r].y, cb.in[s].hi[0] = col[s][r + 2].y;
      ca.in[s].lo[1] = jm.x, ca.in[s].hi[1] = jp.x;
      cb.in[s].lo[1] = jm.y, cb.in[s].hi[1] = jp.y;
      ca.in[s].lo[2] = lo_a[s] ? ruled(a.lo[s], km[s][r], xa) : tx == 0 ? km[s][r] : before[s];
      ca.in[s].hi[2] = hi_a[s] ? ruled(a.hi[s], kp[s][r], xa) : xb;
      cb.in[s].lo[2] = lo_b[s] ? ruled(a.lo[s], km[s][r], xb) : xa;
      cb.in[s].hi[2] = hi_b[s] ? ruled(a.hi[s], kp[s][r], xb) : own_hi ? kp[s][r] : after[s];
    }
    if (a_ok) a.update(ca);
    if (b_ok) a.update(cb);
#pragma unroll
    for (int k = 0; k < O; ++k) {
      T* __restrict__ w = a.out.p[k];
      if (a_ok && b_ok && wa[k] && wb[k]) {
        Pair<T> x;
        x.x = ra[k], x.y = rb[k];
        *reinterpret_cast<Pair<T>*>(w + o) = x;
      } else {
        if (a_ok && wa[k]) w[o] = ra[k];
        if (b_ok && wb[k]) w[o + 1] = rb[k];
      }
    }
  }
}

/// Occupancy asked of ptxas for the paired-column pass (twice the cells of stencil_pass_3d
/// per thread): one field read with neighbours, half (64 registers); two or more, 80
/// registers for float32, 128 for float64, where ptxas (sm_90, default rows) spills nothing:
/// heat 53-64 registers, Gray-Scott float32 80, float64 96 (80 would spill 8 bytes).
template <class T, int S>
constexpr int pass_3d_pairs_threads_per_sm() {
  if (S > 1) return sizeof(T) == 8 ? 512 : 768;
  return 1024;
}

/// The paired-column 3D pass (pass_3d_pairs_block); the grid covers (n2 + phase + 1) / 2 pairs.
template <class T, class I, int ROWS, int BY, int S, int P, int O, class U>
__global__ void __launch_bounds__(32 * BY, pass_3d_pairs_threads_per_sm<T, S>() / (32 * BY))
    stencil_pass_3d_pairs(PassArgs<T, S, P, O, U> a, int phase) {
  __shared__ Pair<T> tile[S][ROWS][BY + 2][32];
  // full: all 64 columns in the box (none before column 0, none past n2 - 1)
  const I first = I(blockIdx.x) * 64 - I(phase);
  const bool full = first >= 0 && first + 64 <= I(a.n2) && (I(blockIdx.y) + 1) * BY <= I(a.n1) &&
                    (I(blockIdx.z) + 1) * ROWS <= I(a.n0);
  if (full) pass_3d_pairs_block<T, I, ROWS, BY, false>(a, phase, tile);
  else pass_3d_pairs_block<T, I, ROWS, BY, true>(a, phase, tile);
}

/// Cells per thread along dimension 0 by default: the fastest measured for the heat stage
/// (more rows share a thread's start-up and index arithmetic; float64 runs out of registers sooner).
template <class T>
constexpr int default_rows() { return sizeof(T) == 4 ? 4 : 2; }

/// The same for the paired-column 3D pass: two rows for float32 with two or more fields read
/// with neighbours (each field doubles the registers a row takes, and four rows spill); one
/// field (heat) keeps four. Figures in docs/performance.md.
template <class T, int S>
constexpr int pair_rows() { return sizeof(T) == 4 && S > 1 ? 2 : default_rows<T>(); }

/// Cells per thread along dimension 0: fallback (the kernel's default), unless
/// SIMKIT_STENCIL_ROWS = 1, 2, 4 or 8 overrides it, for tuning.
inline int stencil_rows(int fallback) {
  const int forced = tuning::current().stencil_rows;  // validated: 1, 2, 4 or 8 when set
  if (forced > 0) return forced;
  return fallback;
}

/// Whether the paired-column 3D pass runs where the layout allows it, by default (float32
/// and float64): half the load instructions per byte, faster in float32 and no slower in
/// float64 (docs/performance.md).
constexpr bool stencil_pairs_by_default = true;

/// Whether the 3D pass may pair columns: SIMKIT_STENCIL_PAIRS (0 off, 1 on where the layout
/// allows) overrides stencil_pairs_by_default (core/runtime/tuning.hpp).
inline bool stencil_pairs() {
  const int knob = tuning::current().stencil_pairs;
  return knob < 0 ? stencil_pairs_by_default : knob == 1;
}

/// Whether the 3D tile of S fields (ROWS planes of BY + 2 rows of COLS) fits the 48 KB of
/// static shared memory a block may have.
template <class T, int S, int ROWS, int BY, int COLS = 32>
constexpr bool tile_fits() { return S * ROWS * (BY + 2) * COLS * sizeof(T) <= 48 * 1024; }

/// ROWS, or fewer where the 3D tile of blocks BY high and COLS wide would not fit.
template <class T, int S, int ROWS, int BY, int COLS = 32>
constexpr int fitting_rows() {
  int r = ROWS;
  while (r > 1 && S * r * (BY + 2) * COLS * sizeof(T) > 48 * 1024) r /= 2;
  return r;
}

/// Whether the paired-column 3D pass exists for T with S fields and ROWS asked (its tile fits).
template <class T, int S, int ROWS>
constexpr bool pairs_possible() {
  return (std::is_same<T, float>::value || std::is_same<T, double>::value) &&
         tile_fits<T, S, fitting_rows<T, S, ROWS, 8, 64>(), 8, 64>();
}

/// Launches a 3D pass kernel: blocks of 32 threads across units (columns, or pairs of them)
/// and BY rows of dimension 1, each thread ROWS cells of dimension 0 deep. BY is 8 (the fastest
/// measured: a taller block re-reads fewer tile rows but leaves fewer blocks a multiprocessor), or 16 with
/// SIMKIT_STENCIL_BLOCK_Y = 16 (tuning; 32-bit offsets, and where the tile of TILE_COLS
/// columns fits). kernel(std::integral_constant<int, BY>, grid, block) launches it; false
/// when the grid would be too large.
template <class T, class I, int S, int ROWS, int TILE_COLS, class Kernel>
bool launch_3d(index_t n0, index_t n1, index_t units, const Kernel& kernel) {
  const int knob = tuning::current().stencil_block_y;
  constexpr bool offer16 = std::is_same<I, int>::value && tile_fits<T, S, ROWS, 16, TILE_COLS>();
  const int by = offer16 && knob == 16 ? 16 : 8;
  const index_t gz = (n0 + ROWS - 1) / ROWS, gy = (n1 + by - 1) / by;
  if (gz > 65535 || gy > 65535) return false;
  const dim3 grid(unsigned((units + 31) / 32), unsigned(gy), unsigned(gz));
  if constexpr (offer16)
    if (by == 16) {
      kernel(std::integral_constant<int, 16>{}, grid, dim3(32, 16));
      return true;
    }
  kernel(std::integral_constant<int, 8>{}, grid, dim3(32, 8));
  return true;
}

/// Launches the pass with ROWS_ASKED cells per thread along dimension 0; in 3D with paired
/// columns (64 a block; pass_3d_pairs_block) where phase >= 0 (pair_phase) and the pair
/// kernel exists for T and S.
template <class T, class I, int ROWS_ASKED, int Rank, int S, int P, int O, class U>
bool launch_rows(const PassArgs<T, S, P, O, U>& a, int phase, cudaStream_t stream) {
  if constexpr (Rank == 2) {
    const index_t gy = (a.n0 + 8 * ROWS_ASKED - 1) / (8 * ROWS_ASKED);
    if (gy > 65535) return false;
    stencil_pass_2d<T, I, ROWS_ASKED><<<dim3(unsigned((a.n1 + 31) / 32), unsigned(gy)), dim3(32, 8), 0, stream>>>(a);
    return true;
  } else {
    if constexpr (std::is_same<I, int>::value && pairs_possible<T, S, ROWS_ASKED>())
      if (phase >= 0) {
        constexpr int ROWS = fitting_rows<T, S, ROWS_ASKED, 8, 64>();
        return launch_3d<T, I, S, ROWS, 64>(a.n0, a.n1, (a.n2 + phase + 1) / 2, [&](auto by, dim3 grid, dim3 block) {
          stencil_pass_3d_pairs<T, I, ROWS, decltype(by)::value><<<grid, block, 0, stream>>>(a, phase);
        });
      }
    constexpr int ROWS = fitting_rows<T, S, ROWS_ASKED, 8>();
    static_assert(tile_fits<T, S, ROWS, 8>(), "stencil_pass: too many fields read with neighbours for the 3D tile in "
                                              "shared memory");
    return launch_3d<T, I, S, ROWS, 32>(a.n0, a.n1, a.n2, [&](auto by, dim3 grid, dim3 block) {
      stencil_pass_3d<T, I, ROWS, decltype(by)::value><<<grid, block, 0, stream>>>(a);
    });
  }
}

/// The phase of paired columns for the pass a (pair_phase of all its fields), or -1: no
/// pairs (switched off, not 3D, or a layout that does not allow them).
template <int Rank, class T, int S, int P, int O, class U>
int pass_pair_phase(const PassArgs<T, S, P, O, U>& a) {
  if (Rank != 3 || !stencil_pairs()) return -1;
  const void* ptrs[S + P + O];
  int n = 0;
  for (int s = 0; s < S; ++s) ptrs[n++] = a.in.p[s];
  for (int p = 0; p < P; ++p) ptrs[n++] = a.point.p[p];
  for (int o = 0; o < O; ++o) ptrs[n++] = a.out.p[o];
  return pair_phase(sizeof(T), ptrs, n, a.s0, a.s1, a.n2);
}

/// Launches the pass over a 2D or 3D box; false when the box is too large for this kernel's
/// launch shape (the caller then takes the generic for_each path). allocation: the largest
/// offset the pass reaches (32-bit offsets below 2^31; pairs only with those).
template <int Rank, class T, int S, int P, int O, class U>
bool launch_stencil_pass(const Context& ctx, const char* name, const PassArgs<T, S, P, O, U>& a, index_t allocation) {
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  const bool small = allocation < (index_t(1) << 31) - 1;
  bool ok = false;
  if (!small) {
    ok = launch_rows<T, index_t, default_rows<T>(), Rank>(a, -1, stream);  // rare: no tuning variants
  } else {
    const int phase = pass_pair_phase<Rank>(a);
    switch (stencil_rows(phase >= 0 ? pair_rows<T, S>() : default_rows<T>())) {
      case 1: ok = launch_rows<T, int, 1, Rank>(a, phase, stream); break;
      case 2: ok = launch_rows<T, int, 2, Rank>(a, phase, stream); break;
      case 8: ok = launch_rows<T, int, 8, Rank>(a, phase, stream); break;
      default: ok = launch_rows<T, int, 4, Rank>(a, phase, stream); break;
    }
  }
  if (ok) SIM_CUDA_CHECK_LAUNCH(name, stream);
  return ok;
}

}  // namespace sim::gpu
