#pragma once
// Finite-difference operators on cell-centred fields, as small device functions to call
// inside a for_each over grid.interior(): 3-, 5- and 7-point Laplacians, central gradient
// and divergence (second order). Ghost cells must be filled first (fill_ghosts).
// Star and StencilCell: a cell as the update of a stencil_pass sees it (core/mesh/stencil_pass.hpp);
// pair_phase: whether its GPU 3D kernel may update cells in aligned pairs.
#include <cstddef>
#include <cstdint>

#include "core/mesh/grid.hpp"

namespace sim {

/// Inverse spacings of a grid, in the field's precision, ready for kernels.
template <class T, int Rank>
struct Spacing {
  T inv_dx2[Rank];  ///< 1 / dx^2
  T inv_2dx[Rank];  ///< 1 / (2 dx)
  T inv_dx[Rank];   ///< 1 / dx (face area over cell volume, for flux-form updates)
  /// The spacings of grid g.
  static Spacing of(const Grid<Rank>& g) {
    Spacing s;
    for (int d = 0; d < Rank; ++d)
      s.inv_dx2[d] = T(1.0 / (g.dx[d] * g.dx[d])), s.inv_2dx[d] = T(0.5 / g.dx[d]), s.inv_dx[d] = T(1.0 / g.dx[d]);
    return s;
  }
};

/// A field around one cell, as a stencil_pass hands it to the update: the cell and its
/// 2 Rank face neighbours (ghosts, or a face rule's value, where the cell is on a face).
template <class T, int Rank>
struct Star {
  T c;                   ///< the cell
  T lo[Rank], hi[Rank];  ///< the neighbours at -1 and +1 in each dimension
};

/// One cell of a stencil_pass as the update sees it: in[s], the stars of the fields read with
/// neighbours (in the order given to reads()); read(p), the p-th field of point_reads() at the
/// cell; write(o, x), the o-th field of writes() at the cell.
template <class T, int Rank, int S, class Access>
struct StencilCell {
  Star<T, Rank> in[S];
  Access at;
  SIM_INLINE T read(int p) const { return at.read(p); }
  SIM_INLINE void write(int o, T x) const { at.write(o, x); }
};

/// The Laplacian of a star: sum over d of (lo - 2 c + hi) / dx_d^2, dimensions in order (the
/// same bits as laplacian(view, i..., s) on the same values).
template <class T, int Rank>
SIM_INLINE T laplacian(const Star<T, Rank>& u, const Spacing<T, Rank>& s) {
  T sum = (u.lo[0] - T(2) * u.c + u.hi[0]) * s.inv_dx2[0];
  for (int d = 1; d < Rank; ++d) sum += (u.lo[d] - T(2) * u.c + u.hi[d]) * s.inv_dx2[d];
  return sum;
}

/// 3-point Laplacian d2u/dx2 at i.
template <class V, class T>
SIM_INLINE T laplacian(const V& u, index_t i, const Spacing<T, 1>& s) {
  return (u(i - 1) - T(2) * u(i) + u(i + 1)) * s.inv_dx2[0];
}
/// 5-point Laplacian at (i, j).
template <class V, class T>
SIM_INLINE T laplacian(const V& u, index_t i, index_t j, const Spacing<T, 2>& s) {
  const T c = u(i, j);
  return (u(i - 1, j) - T(2) * c + u(i + 1, j)) * s.inv_dx2[0] + (u(i, j - 1) - T(2) * c + u(i, j + 1)) * s.inv_dx2[1];
}
/// 7-point Laplacian at (i, j, k).
template <class V, class T>
SIM_INLINE T laplacian(const V& u, index_t i, index_t j, index_t k, const Spacing<T, 3>& s) {
  const T c = u(i, j, k);
  return (u(i - 1, j, k) - T(2) * c + u(i + 1, j, k)) * s.inv_dx2[0] +
         (u(i, j - 1, k) - T(2) * c + u(i, j + 1, k)) * s.inv_dx2[1] +
         (u(i, j, k - 1) - T(2) * c + u(i, j, k + 1)) * s.inv_dx2[2];
}

/// Central difference du/dx_d at i.
template <class V, class T>
SIM_INLINE T gradient(const V& u, int d, index_t i, const Spacing<T, 1>& s) {
  return (u(i + 1) - u(i - 1)) * s.inv_2dx[d];
}
/// Central difference du/dx_d at (i, j), d = 0 or 1.
template <class V, class T>
SIM_INLINE T gradient(const V& u, int d, index_t i, index_t j, const Spacing<T, 2>& s) {
  return (d == 0 ? u(i + 1, j) - u(i - 1, j) : u(i, j + 1) - u(i, j - 1)) * s.inv_2dx[d];
}
/// Central difference du/dx_d at (i, j, k), d = 0, 1 or 2.
template <class V, class T>
SIM_INLINE T gradient(const V& u, int d, index_t i, index_t j, index_t k, const Spacing<T, 3>& s) {
  const T diff = d == 0 ? u(i + 1, j, k) - u(i - 1, j, k)
                        : (d == 1 ? u(i, j + 1, k) - u(i, j - 1, k) : u(i, j, k + 1) - u(i, j, k - 1));
  return diff * s.inv_2dx[d];
}

/// Central divergence of (ux, uy) at (i, j).
template <class V, class T>
SIM_INLINE T divergence(const V& ux, const V& uy, index_t i, index_t j, const Spacing<T, 2>& s) {
  return gradient(ux, 0, i, j, s) + gradient(uy, 1, i, j, s);
}
/// Central divergence of (ux, uy, uz) at (i, j, k).
template <class V, class T>
SIM_INLINE T divergence(const V& ux, const V& uy, const V& uz, index_t i, index_t j, index_t k,
                        const Spacing<T, 3>& s) {
  return gradient(ux, 0, i, j, k, s) + gradient(uy, 1, i, j, k, s) + gradient(uz, 2, i, j, k, s);
}

/// The phase of the GPU 3D pass's paired columns for fields at ptrs (elements of elem bytes,
/// strides s0 and s1, rows of n2 cells), or -1 where pairs cannot be loaded aligned. A pair
/// (two adjacent cells of a row, one 2 x elem load) is aligned only where its first cell's
/// address is even in elements: every row of every field must then start at the same parity
/// (its phase: all first cells at one parity, s0 and s1 even). Phase 0 pairs columns (0, 1),
/// (2, 3), ...; phase 1 pairs (-1, 0), (1, 2), ... Rows of fewer than 2 cells take no pairs.
/// A row's half-used first or last pair loads one cell beyond it (a ghost, or the neighbouring
/// row): an aligned load that starts inside an allocation ends inside it, since allocations
/// are 256-byte aligned and sized (cudaMalloc's, and the pool's).
inline int pair_phase(std::size_t elem, const void* const* ptrs, int count, index_t s0, index_t s1, index_t n2) {
  if (n2 < 2 || count < 1 || s0 % 2 != 0 || s1 % 2 != 0) return -1;
  int phase = -1;
  for (int f = 0; f < count; ++f) {
    const std::uintptr_t addr = reinterpret_cast<std::uintptr_t>(ptrs[f]);
    if (addr % elem != 0) return -1;
    const int p = int(addr / elem % 2);
    if (phase >= 0 && p != phase) return -1;
    phase = p;
  }
  return phase;
}

}  // namespace sim
